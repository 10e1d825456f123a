/**
 * Where the benchmarks find their data folder (the one holding `squad/`, `hotpotqa-sample/`,
 * `article-extraction-benchmark/`): `--data <dir>`, else the `CITEWISE_DATASETS` environment variable, else
 * `../shared/datasets` beside the checkout when it exists. Only benchmark entry points call this; tests pass
 * `test/fixtures/datasets` to the loaders explicitly, so that no test reads outside the repository.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The environment variable naming the data folder. */
export const DATASETS_ENV = 'CITEWISE_DATASETS';

/** The `--data` option for `parseArgs` of every benchmark. */
export const DATA_OPTION = { data: { type: 'string' } } as const;

/** `../shared/datasets` beside the checkout (the repository root's sibling). */
const BESIDE_CHECKOUT = fileURLToPath(new URL('../../../shared/datasets', import.meta.url));

/**
 * The data folder from the flag, the environment or the default, checked to hold `needs` (paths inside it).
 * When it is missing, prints one sentence on stderr and exits with status 2: a benchmark without its data has
 * nothing to report, and a stack trace would hide the fix.
 */
export function resolveDatasetsDir(flag: string | undefined, needs: readonly string[]): string {
  const given = flag ?? process.env[DATASETS_ENV];
  const dir = resolve(given ?? BESIDE_CHECKOUT);
  const missing = needs.filter((path) => !existsSync(join(dir, path)));
  if (missing.length > 0) {
    const where = given === undefined ? `no --data and no ${DATASETS_ENV} given, and ${dir}` : dir;
    process.stderr.write(
      `This benchmark needs its data folder, but ${where} has no ${missing.join(', ')}: ` +
        `pass --data <dir> or set ${DATASETS_ENV}=<dir> to the folder holding ${needs.join(', ')}.\n`,
    );
    process.exit(2);
  }
  return dir;
}
