/** Answerers: the extractive answerer (no model). */
export { createExtractiveAnswerer } from './extractive.ts';
export type { ExtractiveAnswererOptions } from './extractive.ts';
