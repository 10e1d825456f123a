/**
 * A small, frozen user manual (keys, credits, rate limits, configuration) that tests answer from instead of the
 * real docs/, so growing or rewording the manual never breaks them. test/e2e/docs-answers.test.ts covers the
 * real docs/.
 */
import { fileURLToPath } from 'node:url';

/** Folder of the frozen manual: api-keys.md, credits.md, rate-limits.md, configuration.md, … */
export const MANUAL_CORPUS = fileURLToPath(new URL('../fixtures/corpus/manual/', import.meta.url));
