/**
 * `npm run bench`: every benchmark, one after the other, each in its own process so they do not share a
 * heap or a JIT. Each prints its own Markdown table; run one alone with `npm run bench:<name>`.
 *
 *   node bench/run-all.ts [--only extract,rank,qa,stores]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS: ReadonlyArray<{ name: string; script: string; args: readonly string[]; what: string }> = [
  {
    name: 'extract',
    script: 'extract.ts',
    args: ['--variants', 'ours,baseline'],
    what: 'extraction quality and speed',
  },
  {
    name: 'rank',
    script: 'rank.ts',
    args: [],
    what: 'tokenizer, article search and passage selection on SQuAD',
  },
  {
    name: 'qa',
    script: 'qa/run.ts',
    args: ['--sample', '500', '--seed', '1'],
    what: 'the whole engine over HTTP',
  },
  { name: 'stores', script: 'stores.ts', args: [], what: 'requests/s per store against a hello-world' },
];

const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex >= 0 ? new Set((process.argv[onlyIndex + 1] ?? '').split(',')) : undefined;
let failed = 0;
for (const bench of BENCHMARKS) {
  if (only && !only.has(bench.name)) continue;
  console.log(`\n## ${bench.name}: ${bench.what}\n`);
  const script = fileURLToPath(new URL(bench.script, import.meta.url));
  const result = spawnSync(process.execPath, [script, ...bench.args], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.log(`\n(${bench.name} exited with ${String(result.status ?? result.signal)})`);
  }
}
process.exitCode = failed ? 1 : 0;
