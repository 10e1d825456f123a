/**
 * `npm run bench`: every benchmark, one after the other, each in its own process so they do not share a
 * heap or a JIT. Each prints its own Markdown table; run one alone with `npm run bench:<name>`.
 *
 *   node bench/run-all.ts [--only extract,rank,qa,stores,jobs,floods] [--data DIR]
 *
 * `--data` (or CITEWISE_DATASETS) names the data folder, passed on to the benchmarks that read one.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DATA_OPTION } from './lib/datasets.ts';

const BENCHMARKS: ReadonlyArray<{
  name: string;
  script: string;
  args: readonly string[];
  what: string;
  readsData: boolean;
}> = [
  {
    name: 'extract',
    script: 'extract.ts',
    args: ['--variants', 'ours,baseline'],
    what: 'extraction quality and speed',
    readsData: true,
  },
  {
    name: 'rank',
    script: 'rank.ts',
    args: [],
    what: 'tokenizer, article search and passage selection on SQuAD',
    readsData: true,
  },
  {
    name: 'qa',
    script: 'qa/run.ts',
    args: ['--sample', '500', '--seed', '1'],
    what: 'the whole engine over HTTP',
    readsData: true,
  },
  {
    name: 'stores',
    script: 'stores.ts',
    args: [],
    what: 'requests/s per store against a hello-world',
    readsData: false,
  },
  {
    name: 'jobs',
    script: 'jobs.ts',
    args: [],
    what: 'research jobs: overhead over an inline search, 1,000 jobs drained on Redis',
    readsData: false,
  },
  {
    name: 'floods',
    script: 'floods.ts',
    args: [],
    what: "a sign-in flood and a PDF-bomb flood: everybody else's latency and the peak RSS",
    readsData: false,
  },
];

const { values } = parseArgs({ options: { only: { type: 'string' }, ...DATA_OPTION } });
const only = values.only === undefined ? undefined : new Set(values.only.split(','));
const dataArgs = values.data === undefined ? [] : ['--data', values.data];
let failed = 0;
for (const bench of BENCHMARKS) {
  if (only && !only.has(bench.name)) continue;
  console.log(`\n## ${bench.name}: ${bench.what}\n`);
  const script = fileURLToPath(new URL(bench.script, import.meta.url));
  const result = spawnSync(process.execPath, [script, ...bench.args, ...(bench.readsData ? dataArgs : [])], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed += 1;
    console.log(`\n(${bench.name} exited with ${String(result.status ?? result.signal)})`);
  }
}
process.exitCode = failed ? 1 : 0;
