/**
 * Research job benchmark (`npm run bench:jobs`), two tables:
 *
 * 1. Overhead of a job over the same search run inline, on SQLite (the embedded default): each round runs
 *    one search inline (`engine.search`, the very request a job sends: `depth: "research"` with citations,
 *    usage and steps) and one as a job (`engine.research.create`, then its events
 *    until `completed`), interleaved, on the local corpus; the overhead of a round is the job's wall time
 *    minus the inline search's. Target: p50 ≤ 50 ms.
 * 2. 1,000 jobs queued on one Redis (BullMQ) with no worker running, then drained by 3 workers (3 engines,
 *    each with its own connections, one job at a time each). Each job body is small (it counts its run and
 *    charges 1 credit); the table says whether any job was lost or run twice, by the runs counted, by the
 *    `running` events of every job, and by the credits charged.
 *
 *   node bench/jobs.ts [--rounds 40] [--jobs 1000] [--workers 3]
 *
 * Redis comes from REDIS_URL (default the loopback server .ci/run starts); without one, table 2 is skipped.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createSearchEngine, type SearchEngine } from '../src/engine/index.ts';
import { JOBS_DEFAULTS } from '../src/jobs/options.ts';
import { parseResearchRequest, searchRequestOf } from '../src/contract/research.ts';
import type { ResearchJobQueue } from '../src/jobs/records.ts';
import { createSqliteJobQueue } from '../src/stores/sqlite/job-queue.ts';
import { createRedisJobQueue } from '../src/stores/redis/job-queue.ts';
import { createSqliteStores } from '../src/stores/sqlite/index.ts';
import { createRedisStores } from '../src/stores/redis/index.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '40' },
    jobs: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '3' },
  },
});
const ROUNDS = Number(values.rounds);
const JOBS = Number(values.jobs);
const WORKERS = Number(values.workers);
const CORPUS = fileURLToPath(new URL('../test/fixtures/corpus/', import.meta.url));
const PROMPTS = ['Where does green tea come from?', 'How do volcanoes erupt?', 'Which river is the longest?'];

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const ms = (value: number) => value.toFixed(1);

/** Runs one job to its end through the library, as a client would follow it. */
async function runJob(engine: SearchEngine, apiKey: string, prompt: string): Promise<void> {
  const job = await engine.research.create({ prompt }, { apiKey });
  const done = await engine.research.wait(job.id, { apiKey });
  if (done.status !== 'completed')
    throw new Error(`job ${job.id} ${done.status}: ${done.error?.description}`);
}

async function overheadOnSqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'citewise-bench-jobs-'));
  const stores = createSqliteStores({ path: join(dir, 'citewise.db') });
  const queue: ResearchJobQueue = createSqliteJobQueue({ database: stores.database });
  const engine = createSearchEngine({
    corpus: [CORPUS],
    keys: stores.keys,
    credits: stores.credits,
    rateLimiter: false,
    jobs: { queue, workers: 2 },
  });
  const { key } = await engine.createKey({ credits: 1_000_000 });
  const inline: number[] = [];
  const job: number[] = [];
  const overhead: number[] = [];
  const cpuBefore = process.cpuUsage();
  // Two warm-up rounds (module loading, SQLite statement caches) are not counted.
  for (let round = -2; round < ROUNDS; round++) {
    const prompt = PROMPTS[(round + 3) % PROMPTS.length]!;
    const a = performance.now();
    await engine.search(searchRequestOf(parseResearchRequest({ prompt }), JOBS_DEFAULTS.searchDepth), {
      apiKey: key,
    });
    const b = performance.now();
    await runJob(engine, key, prompt);
    const c = performance.now();
    if (round < 0) continue;
    inline.push(b - a);
    job.push(c - b);
    overhead.push(c - b - (b - a));
  }
  const cpu = process.cpuUsage(cpuBefore);
  await engine.close();
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
  const sorted = (list: number[]) => [...list].sort((x, y) => x - y);
  const [i, j, o] = [sorted(inline), sorted(job), sorted(overhead)];
  console.log(
    `\n### Job overhead over the same search inline, SQLite, ${ROUNDS} rounds (${JOBS_DEFAULTS.searchDepth} search, local corpus)\n`,
  );
  console.log('| | p50 ms | p90 ms | max ms |');
  console.log('|---|---:|---:|---:|');
  console.log(`| search inline | ${ms(percentile(i, 50))} | ${ms(percentile(i, 90))} | ${ms(i.at(-1)!)} |`);
  console.log(
    `| the same search as a job (create → completed event) | ${ms(percentile(j, 50))} | ${ms(percentile(j, 90))} | ${ms(j.at(-1)!)} |`,
  );
  console.log(
    `| **overhead of the job** (target p50 ≤ 50 ms) | **${ms(percentile(o, 50))}** | ${ms(percentile(o, 90))} | ${ms(o.at(-1)!)} |`,
  );
  console.log(
    `\nCPU time of the process over all rounds: ${((cpu.user + cpu.system) / 1000 / (ROUNDS + 2)).toFixed(1)} ms per round (inline + job).`,
  );
}

async function drainOnRedis(): Promise<void> {
  const url = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch {
    console.log(`\n(Redis not reachable at ${url}: the drain table is skipped.)`);
    return;
  } finally {
    probe.disconnect();
  }
  const prefix = `bench-jobs-${randomBytes(4).toString('hex')}:`;
  const runs = new Map<string, number>();
  const open = (workers: number) => {
    const stores = createRedisStores({ url, prefix });
    const queue: ResearchJobQueue = createRedisJobQueue({ url, prefix, stalledCheckMs: 5_000 });
    const engine = createSearchEngine({
      corpus: [CORPUS],
      keys: stores.keys,
      credits: stores.credits,
      rateLimiter: false,
      jobs: {
        queue,
        workers,
        maxQueuedPerAccount: JOBS,
        maxRunningPerAccount: WORKERS,
        pollMs: 50,
        run: async (_request, context) => {
          const id = context.requestId.split(':')[0]!;
          runs.set(id, (runs.get(id) ?? 0) + 1);
          return { result: { answer: 'ok', sources: [] }, creditsUsed: 1 };
        },
      },
    });
    return { engine, close: async () => (await engine.close(), await stores.close()) };
  };
  const front = open(0);
  const { key, record } = await front.engine.createKey({ credits: JOBS + 500 });
  const before = await front.engine.stores.credits.balance(record.accountId);
  const enqueueStart = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, JOBS - i) }, (_, n) =>
        front.engine.research.create({ prompt: `job ${i + n}`, max_credits: 1 }, { apiKey: key }),
      ),
    );
    ids.push(...batch.map((job) => job.id));
  }
  const enqueueMs = performance.now() - enqueueStart;
  const drainStart = performance.now();
  const workers = Array.from({ length: WORKERS }, () => open(1));
  for (;;) {
    const queued = (await front.engine.research.list({ status: 'queued', limit: 1 }, { apiKey: key })).data
      .length;
    const running = (await front.engine.research.list({ status: 'running', limit: 1 }, { apiKey: key })).data
      .length;
    if (queued === 0 && running === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const drainMs = performance.now() - drainStart;
  let runningEvents = 0;
  let notCompleted = 0;
  for (const id of ids) {
    const job = await front.engine.research.get(id, { apiKey: key });
    if (job.status !== 'completed' || job.credits_used !== 1) notCompleted++;
    for await (const event of await front.engine.research.events(id, { apiKey: key })) {
      if (event.event === 'status' && (event.data as { status: string }).status === 'running')
        runningEvents++;
    }
  }
  const charged = before - (await front.engine.stores.credits.balance(record.accountId));
  const twice = [...runs.values()].filter((n) => n > 1).length;
  const lost = ids.filter((id) => !runs.has(id)).length;
  await Promise.all(workers.map((worker) => worker.close()));
  await front.close();
  console.log(
    `\n### ${JOBS} jobs queued on one Redis (BullMQ), drained by ${WORKERS} workers (one job at a time each)\n`,
  );
  console.log(
    '| jobs | enqueue s | drain s | jobs/s | not completed | lost (never run) | run twice (counted) | running events | credits charged |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| ${JOBS} | ${(enqueueMs / 1000).toFixed(1)} | ${(drainMs / 1000).toFixed(1)} | ${(JOBS / (drainMs / 1000)).toFixed(0)} | ` +
      `${notCompleted} | ${lost} | ${twice} | ${runningEvents} | ${charged} (expected ${JOBS}) |`,
  );
}

console.log(
  `# bench:jobs — ${new Date().toISOString()} — ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
);
await overheadOnSqlite();
await drainOnRedis();
