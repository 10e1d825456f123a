/** The committed sample of the benchmark data folder (see its README): the harness tests read only this. */
import { fileURLToPath } from 'node:url';

export const FIXTURE_DATASETS = fileURLToPath(new URL('../fixtures/datasets/', import.meta.url));
