/**
 * `npm run bench:index` — the document index at company scale: a generated folder of Markdown pages built
 * from real paragraphs (SQuAD's articles, several paragraphs per page, seeded), indexed with
 * `citewise index` and served with `citewise serve`, on SQLite (default) and, with `--postgres URL` (or
 * `DATABASE_URL`), on PostgreSQL. For each corpus size and store it prints: build time and peak memory of
 * `citewise index`, index size on disk, time for `serve` to be ready, search latency p50 / p95 of the
 * search stage (`DocumentIndex.search`, in this process) and of the whole `POST /v1/search`, `serve`'s
 * memory after the searches, and the time to re-index the folder after one file changed.
 *
 *   node bench/index/run.ts [--data DIR] [--sizes 10000,100000] [--queries 60] [--stores sqlite,postgres]
 *                           [--postgres URL] [--work DIR]
 *
 * Timings depend on the machine's load: run it on a quiet machine, or compare runs made back to back.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPostgresDocumentIndex } from '../../src/documents/postgres.ts';
import { createSqliteDocumentIndex } from '../../src/documents/sqlite.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { createRandom, loadArticles, loadDevQuestions, sampleQuestions, SQUAD_DIR } from '../qa/corpus.ts';

const CLI = fileURLToPath(new URL('../../bin/citewise.js', import.meta.url));
const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    sizes: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '60' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    postgres: { type: 'string' },
    work: { type: 'string' },
  },
});
const datasetsDir = resolveDatasetsDir(values.data, [SQUAD_DIR]);
const sizes = values.sizes.split(',').map(Number);
const postgres = values.postgres ?? process.env.DATABASE_URL;
const stores = values.stores.split(',').filter((store) => store === 'sqlite' || postgres !== undefined);
const paragraphs = loadArticles({ datasetsDir }).flatMap((article) =>
  article.paragraphs.map((text) => ({ title: article.title.replace(/_/g, ' '), text })),
);
const questions = sampleQuestions(loadDevQuestions(datasetsDir), Number(values.queries), 7).map(
  (q) => q.question,
);
const work = values.work ?? mkdtempSync(join(tmpdir(), 'citewise-bench-index-'));

/** Writes `size` pages of 3–6 real paragraphs each (seeded), 1000 per subfolder; returns the folder. */
function generate(size: number): { folder: string; bytes: number } {
  const folder = join(work, `corpus-${size}`);
  rmSync(folder, { recursive: true, force: true });
  const random = createRandom(size);
  let bytes = 0;
  for (let i = 0; i < size; i++) {
    const sub = join(folder, String(Math.floor(i / 1000)).padStart(4, '0'));
    if (i % 1000 === 0) mkdirSync(sub, { recursive: true });
    const count = 3 + Math.floor(random.next() * 4);
    const first = paragraphs[Math.floor(random.next() * paragraphs.length)]!;
    const body = [first.text];
    for (let p = 1; p < count; p++)
      body.push(paragraphs[Math.floor(random.next() * paragraphs.length)]!.text);
    const text = `# ${first.title}, note ${i}\n\n${body.join('\n\n')}\n`;
    writeFileSync(join(sub, `page-${i}.md`), text);
    bytes += Buffer.byteLength(text);
  }
  return { folder, bytes };
}

/** Runs the CLI under /usr/bin/time: seconds and peak resident memory (MB). */
function timedCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { seconds: number; peakMb: number; stdout: string } {
  const run = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`citewise ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  const [seconds, kb] = run.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, peakMb: kb! / 1024, stdout: run.stdout };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function sqliteSizeMb(dataDir: string): Promise<number> {
  return (
    readdirSync(dataDir)
      .filter((name) => name.startsWith('index.sqlite'))
      .reduce((sum, name) => sum + statSync(join(dataDir, name)).size, 0) /
    1024 /
    1024
  );
}

async function postgresSizeMb(url: string, schema: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  await client.end();
  return Number(rows[0]!.bytes) / 1024 / 1024;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** Starts serve; resolves with its process, address, first key and the time until it logged `ready`. */
async function startServe(dataDir: string, env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--log-level', 'info', '--data-dir', dataDir, '--rate-limit', '100000/1s'],
    {
      env: { ...process.env, ...env },
    },
  );
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /"url":"(http:\/\/[^"]+)".*"msg":"ready"/.exec(output)?.[1];
      if (url) resolve(url);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output.slice(-2000)}`)));
  });
  const readyMs = performance.now() - started;
  const key = readFileSync(join(dataDir, 'first-key.txt'), 'utf8').trim();
  return { child, baseUrl, key, readyMs };
}

interface Row {
  size: number;
  store: string;
  corpusMb: number;
  buildS: number;
  buildPeakMb: number;
  diskMb: number;
  readyS: number;
  firstSearchMs: number;
  stageP50: number;
  stageP95: number;
  httpP50: number;
  httpP95: number;
  serveMb: number;
  reindexS: number;
}

const rows: Row[] = [];
for (const size of sizes) {
  const { folder, bytes } = generate(size);
  for (const store of stores) {
    const dataDir = join(work, `data-${size}-${store}`);
    rmSync(dataDir, { recursive: true, force: true });
    const schema = `bench_index_${size}_${process.pid}`;
    const indexStore =
      store === 'postgres' ? `${postgres}${postgres!.includes('?') ? '&' : '?'}schema=${schema}` : 'sqlite';
    const env = { CITEWISE_INDEX_STORE: indexStore };
    const build = timedCli(['index', folder, '--data-dir', dataDir, '--no-progress'], env);
    const diskMb =
      store === 'postgres' ? await postgresSizeMb(postgres!, schema) : await sqliteSizeMb(dataDir);

    // The search stage alone, in this process, on the same index.
    const index: DocumentIndex =
      store === 'postgres'
        ? createPostgresDocumentIndex({ connectionString: postgres!, schema })
        : createSqliteDocumentIndex({ path: join(dataDir, 'index.sqlite') });
    const stage: number[] = [];
    for (const question of questions) {
      const t = performance.now();
      await index.search(question, { limit: 10 });
      stage.push(performance.now() - t);
    }
    await index.close();

    const serve = await startServe(dataDir, env);
    const http: number[] = [];
    for (const question of questions) {
      const t = performance.now();
      const response = await fetch(`${serve.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: question }),
      });
      await response.text();
      if (response.status !== 200) throw new Error(`search answered ${response.status}`);
      http.push(performance.now() - t);
    }
    const serveMb = rssMb(serve.child.pid!);
    serve.child.kill('SIGTERM');

    // One file changed: the whole folder is walked again, one file read and rewritten.
    const changed = join(folder, '0000', 'page-7.md');
    writeFileSync(changed, `${readFileSync(changed, 'utf8')}\nA line added for the re-index benchmark.\n`);
    const reindex = timedCli(['index', folder, '--data-dir', dataDir, '--no-progress'], env);
    if (!/1 updated/.test(reindex.stdout))
      throw new Error(`re-index did not update one file: ${reindex.stdout}`);
    if (store === 'postgres') await dropSchema(postgres!, schema);
    rows.push({
      size,
      store,
      corpusMb: bytes / 1024 / 1024,
      buildS: build.seconds,
      buildPeakMb: build.peakMb,
      diskMb,
      readyS: serve.readyMs / 1000,
      firstSearchMs: http[0]!,
      stageP50: percentile(stage, 0.5),
      stageP95: percentile(stage, 0.95),
      httpP50: percentile(http, 0.5),
      httpP95: percentile(http, 0.95),
      serveMb,
      reindexS: reindex.seconds,
    });
    console.error(`done: ${size} documents on ${store}: ${JSON.stringify(rows.at(-1))}`);
  }
}

const f = (n: number, digits = 0) => n.toFixed(digits);
console.log(
  `Generated Markdown pages of 3–6 SQuAD paragraphs; ${questions.length} SQuAD dev questions per run.\n`,
);
console.log(
  '| documents | store | corpus MB | index s | index peak MB | on disk MB | serve ready s | first search ms | search stage p50 / p95 ms | /v1/search p50 / p95 ms | serve RSS MB | one changed file re-indexed s |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.size} | ${r.store} | ${f(r.corpusMb)} | ${f(r.buildS, 1)} | ${f(r.buildPeakMb)} | ${f(r.diskMb)} | ${f(r.readyS, 2)} | ${f(r.firstSearchMs)} | ${f(r.stageP50)} / ${f(r.stageP95)} | ${f(r.httpP50)} / ${f(r.httpP95)} | ${f(r.serveMb)} | ${f(r.reindexS, 1)} |`,
  );
}
if (values.work === undefined) rmSync(work, { recursive: true, force: true });
