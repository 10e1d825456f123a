/**
 * Where the benchmark datasets live: `--data <dir>`, else `CITEWISE_DATASETS`, else `../shared/datasets` beside
 * the checkout when it exists. Datasets are read in place and never copied into the repository.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/datasets` relative to the repository root. */
const DEFAULT_DATASETS_DIR = fileURLToPath(new URL('../../../shared/datasets', import.meta.url));

/**
 * The datasets folder, or a one-sentence explanation of why none was found. `flag` is the value of `--data`
 * (wins), `env` the value of `CITEWISE_DATASETS`.
 */
export function resolveDatasetsDir(
  flag: string | undefined,
  env: string | undefined,
): { readonly dir: string } | { readonly error: string } {
  const chosen = flag ?? env;
  if (chosen !== undefined && chosen !== '') {
    const dir = resolve(chosen);
    return existsSync(dir)
      ? { dir }
      : {
          error: `The datasets folder ${dir} does not exist (from ${flag === undefined ? 'CITEWISE_DATASETS' : '--data'}).`,
        };
  }
  if (existsSync(DEFAULT_DATASETS_DIR)) return { dir: DEFAULT_DATASETS_DIR };
  return {
    error: `No datasets folder: pass --data <dir> or set CITEWISE_DATASETS (${DEFAULT_DATASETS_DIR} does not exist).`,
  };
}

/** A dataset folder inside the datasets folder, or the sentence saying it is missing. */
export function datasetDir(
  datasets: string,
  name: string,
): { readonly dir: string } | { readonly error: string } {
  const dir = resolve(datasets, name);
  return existsSync(dir) ? { dir } : { error: `The dataset ${name} is missing from ${datasets}.` };
}
