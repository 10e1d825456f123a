/**
 * Store benchmark (`npm run bench:stores`): requests/s and p99 latency of `GET /v1/balance` and of a search
 * whose answer is already known (a cached-answer path: the provider and answerer return at once, so the
 * cost measured is HTTP + key check + rate limit + reserve + commit), per store: memory, SQLite, Redis,
 * PostgreSQL. Each search row is measured again "with console": the key store wrapped by `withConsoleKeys`
 * (suspension check) and every settled search handed to the console's batching usage recorder, which
 * writes to the account database in the background. A bare node:http hello-world is measured in the same run; "ratio" is a row's requests/s over
 * the hello-world's. The load comes from a second process on loopback (undici Pool, keep-alive), with a
 * fixed number of requests and a fixed concurrency.
 *
 *   node bench/stores.ts [requests=4000] [concurrency=16] [--console-only]
 *
 * `--console-only` measures only the console's search overhead and the CPU time of usage recording (the
 * last two tables), for the stores that have a console row (memory, SQLite, PostgreSQL).
 *
 * Redis and PostgreSQL come from REDIS_URL / DATABASE_URL (default: the loopback servers .ci/run starts);
 * a store whose server is unreachable is reported as skipped.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createNodeHandler } from '../adapters/node-http.ts';
import { createSearchEngine } from '../src/engine/index.ts';
import type { Answerer, SearchProvider } from '../src/pipeline/types.ts';
import {
  createMemoryCreditStore,
  createMemoryKeyStore,
  createMemoryRateLimiter,
} from '../src/stores/memory/index.ts';
import { createPostgresStores } from '../src/stores/postgres/index.ts';
import { createRedisStores } from '../src/stores/redis/index.ts';
import { createSqliteStores } from '../src/stores/sqlite/index.ts';
import type { CreditStore, KeyStore, RateLimiter } from '../src/stores/types.ts';
import {
  createMemoryAccountStore,
  createMemoryUsageStore,
  createPostgresAccountStore,
  createPostgresUsageStore,
  createSqliteAccountStore,
  createSqliteUsageStore,
  createUsageRecorder,
  type AccountStore,
  type UsageStore,
} from '../src/console/index.ts';
import { withConsoleKeys } from '../src/console/keys.ts';
import { postgresAnswers, redisAnswers } from '../test/multi-instance/servers.ts';

interface LoadSpec {
  readonly origin: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly requests: number;
  readonly concurrency: number;
}

interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly statuses: Record<number, number>;
}

// ---- load generator (runs in the child process) ----------------------------------------------------------

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  let errors = 0;
  const worker = async () => {
    while (issued < spec.requests) {
      issued++;
      const started = performance.now();
      try {
        const response = await pool.request({
          path: spec.path,
          method: spec.method,
          headers: spec.headers,
          ...(spec.body !== undefined ? { body: spec.body } : {}),
        });
        await response.body.dump();
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        latencies.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  const seconds = (performance.now() - started) / 1_000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    statuses,
  };
}

if (process.argv[2] === '--loadgen') {
  const result = await generateLoad(JSON.parse(process.argv[3]!) as LoadSpec);
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

// ---- driver -------------------------------------------------------------------------------------------------

const CONSOLE_ONLY = process.argv.includes('--console-only');
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const REQUESTS = Number(positional[0] ?? 4_000);
const CONCURRENCY = Number(positional[1] ?? 16);
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const RUN = randomBytes(4).toString('hex');

/** Runs the load generator in a second process and returns what it measured. */
function load(spec: Omit<LoadSpec, 'requests' | 'concurrency'>, requests = REQUESTS): Promise<LoadResult> {
  const full: LoadSpec = { ...spec, requests, concurrency: CONCURRENCY };
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), '--loadgen', JSON.stringify(full)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as LoadResult)
        : reject(new Error(`load generator exited ${code}`)),
    );
  });
}

function listen(listener: RequestListener): Promise<{ server: Server; origin: string }> {
  return new Promise((resolve) => {
    const server = createServer(listener);
    server.keepAliveTimeout = 10_000;
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    });
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

// The cached-answer path: the same hit and answer at once, so stores and HTTP dominate the cost.
const cachedSearch: SearchProvider = {
  id: 'cached',
  search: async () => [
    {
      url: 'https://example.org/keys',
      title: 'API keys',
      content: 'Create an API key with citewise keys create. Keys are shown once.',
    },
  ],
};
const cachedAnswer: Answerer = {
  answer: async () => ({
    answer: 'Run `citewise keys create` [1].',
    sources: ['https://example.org/keys'],
  }),
};

interface StoreSetup {
  readonly name: string;
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  readonly rateLimiter: RateLimiter;
  /** The console's account and usage stores on the same database, for the "with console" row. */
  readonly console?: () => { accounts: AccountStore; usage: UsageStore };
  cleanup(): Promise<void>;
}

const NO_LIMIT = { limit: 1_000_000_000, windowMs: 60_000 };

async function setups(): Promise<(StoreSetup | { name: string; skipped: string })[]> {
  const out: (StoreSetup | { name: string; skipped: string })[] = [];
  out.push({
    name: 'memory',
    keys: createMemoryKeyStore(),
    credits: createMemoryCreditStore(),
    rateLimiter: createMemoryRateLimiter(NO_LIMIT),
    console: () => ({ accounts: createMemoryAccountStore(), usage: createMemoryUsageStore() }),
    cleanup: async () => {},
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-stores-'));
  const sqlite = createSqliteStores({ path: join(dir, 'bench.db') });
  out.push({
    name: 'SQLite (file, WAL)',
    keys: sqlite.keys,
    credits: sqlite.credits,
    rateLimiter: sqlite.rateLimiter(NO_LIMIT),
    console: () => ({
      accounts: createSqliteAccountStore({ database: sqlite.database }),
      usage: createSqliteUsageStore({ database: sqlite.database }),
    }),
    cleanup: async () => {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  if (await redisAnswers(REDIS_URL)) {
    const prefix = `bench-${RUN}:`;
    const redis = createRedisStores({ url: REDIS_URL, prefix });
    out.push({
      name: 'Redis',
      keys: redis.keys,
      credits: redis.credits,
      rateLimiter: redis.rateLimiter(NO_LIMIT),
      cleanup: async () => {
        let cursor = '0';
        do {
          const [next, found] = await redis.client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
          cursor = next;
          if (found.length) await redis.client.del(...found);
        } while (cursor !== '0');
        await redis.close();
      },
    });
  } else out.push({ name: 'Redis', skipped: `unreachable at ${REDIS_URL}` });
  if (await postgresAnswers(DATABASE_URL)) {
    const schema = `bench_${RUN}`;
    const postgres = createPostgresStores({ connectionString: DATABASE_URL, schema });
    await postgres.migrate();
    out.push({
      name: 'PostgreSQL (limits: memory)',
      keys: postgres.keys,
      credits: postgres.credits,
      rateLimiter: createMemoryRateLimiter(NO_LIMIT),
      console: () => ({
        accounts: createPostgresAccountStore({ pool: postgres.pool, schema }),
        usage: createPostgresUsageStore({ pool: postgres.pool, schema }),
      }),
      cleanup: async () => {
        await postgres.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        await postgres.close();
      },
    });
  } else out.push({ name: 'PostgreSQL', skipped: 'unreachable at DATABASE_URL' });
  return out;
}

interface Row {
  readonly name: string;
  readonly result: LoadResult;
  /** The hello-world measured right before this row (the machine's load drifts). */
  readonly hello: LoadResult;
}

const rows: Row[] = [];
/** Paired rounds of the search row without and with the console. */
const consoleRows: { name: string; without: number[]; with: number[]; recorded: number }[] = [];
const CONSOLE_ROUNDS = 6;
const CONSOLE_REQUESTS = Math.max(500, Math.round(REQUESTS / 2));
const RECORDER_SEARCHES = 20_000;
const recorderCosts: { name: string; syncMicros: number; writeMicros: number }[] = [];
const notes: string[] = [];

const hello = await listen((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
});
const helloSpec = { origin: hello.origin, method: 'GET', path: '/', headers: {} } as const;
await load(helloSpec, 500);
const helloResults: LoadResult[] = [];

for (const setup of await setups()) {
  if ('skipped' in setup) {
    notes.push(`${setup.name}: skipped (${setup.skipped})`);
    continue;
  }
  if (CONSOLE_ONLY && !setup.console) {
    await setup.cleanup();
    continue;
  }
  const engine = createSearchEngine({
    keys: setup.keys,
    credits: setup.credits,
    rateLimiter: setup.rateLimiter,
    search: cachedSearch,
    answerer: cachedAnswer,
    maxConcurrentSearches: 64,
    maxQueuedSearches: 1_024,
  });
  const { key } = await engine.createKey({ credits: 1_000_000_000 });
  const { server, origin } = await listen(createNodeHandler(engine));
  const auth = { authorization: `Bearer ${key}` };
  const balanceSpec = { origin, method: 'GET', path: '/v1/balance', headers: auth } as const;
  const searchSpec = {
    origin,
    method: 'POST',
    path: '/v1/search',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'How do I create an API key?' }),
  } as const;
  if (!CONSOLE_ONLY) await load(balanceSpec, 300);
  await load(searchSpec, 300);
  // Each row right after its own hello-world run: the shared machine's load drifts within seconds.
  for (const [label, spec] of CONSOLE_ONLY
    ? []
    : ([
        ['GET /v1/balance', balanceSpec],
        ['POST /v1/search (cached answer)', searchSpec],
      ] as const)) {
    const helloNow = await load(helloSpec);
    helloResults.push(helloNow);
    rows.push({ name: `${setup.name}: ${label}`, result: await load(spec), hello: helloNow });
  }
  if (setup.console) {
    // The same search path with the console mounted (suspension check on every key, every settled search
    // handed to the batching usage recorder), measured in alternation with the plain engine: on a shared
    // machine only paired rounds tell a small overhead from the load's drift.
    const { accounts, usage } = setup.console();
    const recorder = createUsageRecorder(usage);
    const withConsole = createSearchEngine({
      keys: withConsoleKeys(setup.keys, accounts),
      credits: setup.credits,
      rateLimiter: setup.rateLimiter,
      usage: recorder,
      search: cachedSearch,
      answerer: cachedAnswer,
      maxConcurrentSearches: 64,
      maxQueuedSearches: 1_024,
    });
    const consoleServer = await listen(createNodeHandler(withConsole));
    const consoleSpec = { ...searchSpec, origin: consoleServer.origin };
    await load(consoleSpec, 300);
    const without: number[] = [];
    const withIt: number[] = [];
    for (let round = 0; round < CONSOLE_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const which of order) {
        const result = await load(which === 'with' ? consoleSpec : searchSpec, CONSOLE_REQUESTS);
        (which === 'with' ? withIt : without).push(result.requestsPerSecond);
      }
    }
    await close(consoleServer.server);
    await recorder.flush();
    const account = (await setup.keys.list())[0]!.accountId;
    const recorded = (await usage.perKey(account, 0)).reduce((sum, key) => sum + key.searches, 0);
    // CPU of the recording itself, in this process: what a search pays synchronously (an array push),
    // and that plus the batched writes (for PostgreSQL the server's own CPU is not included).
    const batch = createUsageRecorder(usage, { flushIntervalMs: 60_000, maxBatch: 500 });
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < RECORDER_SEARCHES; i++) {
      batch.recordSearch({ accountId: account, keyId: 'key_bench', kind: 'charge', credits: 1 });
    }
    const syncCpu = process.cpuUsage(cpuStart);
    await batch.close();
    const allCpu = process.cpuUsage(cpuStart);
    const micros = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / RECORDER_SEARCHES;
    recorderCosts.push({ name: setup.name, syncMicros: micros(syncCpu), writeMicros: micros(allCpu) });
    await recorder.close();
    consoleRows.push({
      name: setup.name,
      without,
      with: withIt,
      recorded,
    });
  }
  await close(server);
  await setup.cleanup();
}
await close(hello.server);

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(
  `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()}); ${REQUESTS} requests per row, ` +
    `${CONCURRENCY} concurrent, load generator in a second process (undici Pool, keep-alive) on loopback; ` +
    `load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' / ')}\n`,
);
const printRows = () => {
  console.log(
    '| endpoint and store | requests/s | p50 ms | p99 ms | ratio to hello-world | non-2xx/errors |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  const line = (name: string, r: LoadResult, helloResult: LoadResult) => {
    const failed =
      Object.entries(r.statuses).reduce((sum, [status, n]) => sum + (Number(status) >= 300 ? n : 0), 0) +
      r.errors;
    console.log(
      `| ${name} | ${fmt(r.requestsPerSecond)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ` +
        `${fmt(r.requestsPerSecond / helloResult.requestsPerSecond, 2)} | ${failed} |`,
    );
  };
  const byRate = [...helloResults].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const medianHello = byRate[Math.floor(byRate.length / 2)]!;
  line(`bare node:http hello-world (median of ${helloResults.length} runs)`, medianHello, medianHello);
  for (const row of rows) line(row.name, row.result, row.hello);
  console.log(
    '\nratio = requests/s of the row ÷ requests/s of the hello-world measured just before that row.',
  );
};
if (!CONSOLE_ONLY) printRows();
for (const note of notes) console.log(`\n${note}`);

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  `\nSearch overhead of the console (usage recording + suspension check): POST /v1/search (cached answer), ` +
    `${CONSOLE_ROUNDS} alternating rounds of ${CONSOLE_REQUESTS} requests without and with it\n`,
);
console.log(
  '| store | requests/s without (median) | requests/s with (median) | change | paired ratios with/without | searches recorded |',
);
console.log('|---|---:|---:|---:|---|---:|');
for (const row of consoleRows) {
  const ratios = row.with.map((value, i) => value / row.without[i]!);
  const change = (median(row.with) / median(row.without) - 1) * 100;
  console.log(
    `| ${row.name} | ${fmt(median(row.without))} | ${fmt(median(row.with))} | ${change >= 0 ? '+' : ''}${fmt(change, 1)} % | ` +
      `${ratios.map((r) => fmt(r, 2)).join(', ')} | ${row.recorded} |`,
  );
}
console.log(
  `\nCPU time of usage recording in the service process, per search (${RECORDER_SEARCHES} searches recorded, ` +
    'written in batches of 500)\n',
);
console.log('| store | recordSearch (what a search waits for) | recordSearch + batched write |');
console.log('|---|---:|---:|');
for (const cost of recorderCosts) {
  console.log(`| ${cost.name} | ${fmt(cost.syncMicros, 2)} µs | ${fmt(cost.writeMicros, 1)} µs |`);
}
