/**
 * The document index's search alone, as `/v1/search` asks it (40 hits), over the questions `bench:index`
 * sends, on an index built earlier by `bench:index` (`--work`): each search's latency, p50 / p95, and on
 * PostgreSQL the CPU time of the backend that served them (from `/proc`, when the server runs on this
 * machine). `--hits FILE` writes each question's hits (URL and score in full), one JSON line each, to
 * compare two versions of the code: the same file means the same hits and scores.
 *
 *   node bench/index/search-stage.ts [--data DIR] (--postgres URL [--schema bench_index_100000] | --sqlite FILE)
 *                                    [--limit 40] [--queries 60] [--hits FILE]
 *
 * Run old and new code back to back on the same index: the machine's load moves latencies much more than
 * the CPU time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPostgresDocumentIndex } from '../../src/documents/postgres.ts';
import { createSqliteDocumentIndex } from '../../src/documents/sqlite.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { loadDevQuestions, sampleQuestions, SQUAD_DIR } from '../qa/corpus.ts';

const APPLICATION = 'citewise-bench-search-stage';
const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    postgres: { type: 'string' },
    schema: { type: 'string', default: 'bench_index_100000' },
    sqlite: { type: 'string' },
    limit: { type: 'string', default: '40' },
    queries: { type: 'string', default: '60' },
    hits: { type: 'string' },
  },
});
if ((values.postgres === undefined) === (values.sqlite === undefined))
  throw new Error('give --postgres URL or --sqlite FILE');
const datasetsDir = resolveDatasetsDir(values.data, [SQUAD_DIR]);
// The same questions, in the same order, as bench/index/run.ts.
const questions = sampleQuestions(loadDevQuestions(datasetsDir), Number(values.queries), 7).map(
  (q) => q.question,
);
const postgresUrl =
  values.postgres === undefined
    ? undefined
    : `${values.postgres}${values.postgres.includes('?') ? '&' : '?'}application_name=${APPLICATION}`;
const index =
  postgresUrl === undefined
    ? createSqliteDocumentIndex({ path: values.sqlite! })
    : createPostgresDocumentIndex({ connectionString: postgresUrl, schema: values.schema });

const latencies: number[] = [];
const lines: string[] = [];
const cpuBefore = process.cpuUsage();
for (const question of questions) {
  const started = performance.now();
  const hits = await index.search(question, { limit: Number(values.limit) });
  latencies.push(performance.now() - started);
  lines.push(JSON.stringify(hits.map((hit) => [hit.url, hit.score])));
}
const sorted = [...latencies].sort((a, b) => a - b);
const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
console.log(
  `${questions.length} searches of ${values.limit} hits: p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms`,
);
const cpu = process.cpuUsage(cpuBefore);
// On SQLite the search runs in this process: its CPU time is the search's.
console.log(
  `this process's CPU per search: ${((cpu.user + cpu.system) / 1000 / questions.length).toFixed(1)} ms`,
);
if (values.hits !== undefined) writeFileSync(values.hits, `${lines.join('\n')}\n`);

if (postgresUrl !== undefined) {
  // The backends of this run's connections (still open): their CPU time is the searches' (and the schema check's).
  const admin = new pg.Client({ connectionString: values.postgres });
  await admin.connect();
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [APPLICATION],
  );
  await admin.end();
  try {
    let ticks = 0;
    for (const { pid } of rows) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    // Clock ticks are 10 ms on Linux (USER_HZ 100).
    console.log(
      `PostgreSQL CPU per search: ${((ticks * 10) / questions.length).toFixed(1)} ms (${rows.length} backends)`,
    );
  } catch {
    console.log('PostgreSQL CPU per search: not measured (the server runs on another machine)');
  }
}
await index.close();
