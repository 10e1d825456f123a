/**
 * Flood benchmark (`npm run bench:floods`): what two floods do to everybody else, against the real
 * `citewise serve` (a child process, SQLite stores, the console on) on loopback.
 *
 * - **Sign-in flood**: sign-ins with wrong passwords for 1,000 different emails from 20 client addresses (`X-Forwarded-For`, the service
 *   runs with `--trust-proxy`), many at once. Each takes a scrypt hash on libuv's thread pool, which also
 *   reads files: measured are the sign-ins answered per second (401 or 429) and, during the flood, the
 *   latency of `GET /docs/…` (a file read) and of a search by another tenant, against the same probes idle.
 * - **Extraction flood**: one tenant sends `POST /v1/extract` requests of PDF bombs (a 2.8 MB-class PDF whose
 *   stream inflates to `--bomb-mib` MiB) from a loopback web; another tenant extracts a normal page every
 *   250 ms. Measured: the other tenant's latency and failures, and the service process's peak RSS (VmHWM).
 *
 *   node bench/floods.ts [--attack sign-in|extraction|all] [--baseline <checkout>] [--sign-ins 1000]
 *                        [--concurrency 50] [--bomb-mib 800] [--bomb-requests 6]
 *
 * `--baseline <checkout>` runs the same floods against another checkout's `src/cli/main.ts` (with its
 * own node_modules), e.g. the code before a fix, and prints both rows. Timings on a shared machine are
 * noisy: compare rows of one run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deflatedBomb, pdfOfStreams } from '../test/support/pdf.ts';

const { values: args } = parseArgs({
  options: {
    attack: { type: 'string', default: 'all' },
    baseline: { type: 'string' },
    'sign-ins': { type: 'string', default: '1000' },
    addresses: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '50' },
    'bomb-mib': { type: 'string', default: '800' },
    'bomb-requests': { type: 'string', default: '6' },
  },
});
const SIGN_INS = Number(args['sign-ins']);
const ADDRESSES = Number(args.addresses);
const CONCURRENCY = Number(args.concurrency);
const BOMB_MIB = Number(args['bomb-mib']);
const BOMB_REQUESTS = Number(args['bomb-requests']);
const HERE = fileURLToPath(new URL('..', import.meta.url));
const PROBE_EVERY_MS = 250;

const ARTICLE = `<!doctype html><html lang="en"><head><title>How glaciers move</title></head><body><main><article>
  <h1>How glaciers move</h1><p>Glaciers move by internal deformation of the ice and by sliding over the rock
  beneath them. Meltwater at the base acts as a lubricant, so glaciers slide faster in summer.</p>
  </article></main></body></html>`;

interface Service {
  readonly url: string;
  readonly keys: readonly [string, string];
  readonly process: ChildProcess;
  /** Peak resident set size of the service process so far, in MiB (Linux VmHWM). */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `citewise serve` of the checkout at `root` with two funded accounts. */
async function startService(root: string, extra: readonly string[]): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'citewise-floods-'));
  const cli = join(root, 'src/cli/main.ts');
  const keys = [0, 1].map(() => {
    const out = spawnSync(
      process.execPath,
      [cli, 'keys', 'create', '--data-dir', dataDir, '--credits', '100000'],
      {
        encoding: 'utf8',
      },
    );
    const key = /^cw_\S+$/m.exec(out.stdout)?.[0];
    if (!key) throw new Error(`keys create failed: ${out.stderr}`);
    return key;
  }) as [string, string];
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--trust-proxy',
      '--log-level',
      'error',
      '--rate-limit',
      '100000/1m',
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    keys,
    process: child,
    peakRssMiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
    },
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `p50 / p95 / max` in ms, rounded. */
function latency(samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const ms = (value: number) => (Number.isNaN(value) ? '–' : String(Math.round(value)));
  return `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 95))} / ${ms(sorted.at(-1) ?? NaN)}`;
}

/** Runs `probe` every {@link PROBE_EVERY_MS} until `until` settles; returns each probe's ms (failures too). */
async function probeWhile(until: Promise<unknown>, probe: () => Promise<boolean>) {
  const times: number[] = [];
  let failed = 0;
  let done = false;
  void until.finally(() => (done = true));
  const pending: Promise<void>[] = [];
  while (!done) {
    pending.push(
      (async () => {
        const started = performance.now();
        const ok = await probe().catch(() => false);
        times.push(performance.now() - started);
        if (!ok) failed++;
      })(),
    );
    await Promise.race([until, new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS))]);
  }
  await Promise.all(pending);
  return { times, failed };
}

async function probeIdle(probe: () => Promise<boolean>, count = 10): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await probe();
    times.push(performance.now() - started);
  }
  return times;
}

async function signInFlood(root: string): Promise<string[]> {
  const service = await startService(root, []);
  try {
    const docs = async () => (await fetch(`${service.url}/docs/getting-started/service.md`)).ok;
    const search = async () =>
      (
        await fetch(`${service.url}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${service.keys[1]}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'How do I create an API key?' }),
        })
      ).ok;
    const idleDocs = await probeIdle(docs);
    const idleSearch = await probeIdle(search);
    const statuses = new Map<number, number>();
    let next = 0;
    const started = performance.now();
    const flood = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SIGN_INS) {
          const i = next++;
          const status = await fetch(`${service.url}/sign-in`, {
            method: 'POST',
            redirect: 'manual',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              origin: service.url,
              'x-forwarded-for': `198.51.100.${i % ADDRESSES}`,
            },
            body: new URLSearchParams({ email: `victim${i}@example.com`, password: 'wrong-password-1' }),
          }).then(
            async (response) => {
              await response.arrayBuffer();
              return response.status;
            },
            () => 0, // the connection failed (0 in the table)
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const [docsDuring, searchDuring] = await Promise.all([
      probeWhile(flood, docs),
      probeWhile(flood, search),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${n}×${status}`);
    return [
      `${SIGN_INS} sign-ins, ${CONCURRENCY} at once, ${ADDRESSES} addresses`,
      `${seconds.toFixed(1)} s (${Math.round(SIGN_INS / seconds)}/s): ${counts.join(', ')}`,
      `${latency(idleDocs)} → ${latency(docsDuring.times)}${docsDuring.failed ? ` (${docsDuring.failed} failed)` : ''}`,
      `${latency(idleSearch)} → ${latency(searchDuring.times)}${searchDuring.failed ? ` (${searchDuring.failed} failed)` : ''}`,
    ];
  } finally {
    await service.stop();
  }
}

async function extractionFlood(root: string, web: string): Promise<string[]> {
  const host = new URL(web).host;
  const service = await startService(root, ['--allow-private-hosts', host]);
  try {
    const extract = (key: string, paths: readonly string[]) =>
      fetch(`${service.url}/v1/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: paths.map((path) => `${web}${path}`) }),
      });
    const page = async () => {
      const response = await extract(service.keys[1], ['/page']);
      const body = (await response.json()) as { results?: { error?: unknown }[] };
      return response.ok && body.results?.[0]?.error === undefined;
    };
    // Loads the extraction workers, as a service that has answered once.
    await probeIdle(page, 3);
    const idle = await probeIdle(page);
    const rssBefore = service.peakRssMiB();
    let bombsRead = 0;
    const flood = Promise.all(
      Array.from({ length: BOMB_REQUESTS }, async () => {
        const response = await extract(
          service.keys[0],
          Array.from({ length: 20 }, () => '/bomb.pdf'),
        );
        const body = (await response.json()) as { results?: { error?: unknown }[] };
        bombsRead += body.results?.filter((result) => result.error === undefined).length ?? 0;
      }),
    );
    const during = await probeWhile(flood, page);
    return [
      `${BOMB_REQUESTS} × 20 PDF bombs (${BOMB_MIB} MiB inflated each), ${BOMB_REQUESTS} requests at once`,
      `${bombsRead}`,
      `${latency(idle)} → ${latency(during.times)}`,
      `${during.failed} of ${during.times.length}`,
      `${rssBefore} → ${service.peakRssMiB()}`,
    ];
  } finally {
    await service.stop();
  }
}

async function startWeb(): Promise<{ url: string; server: Server }> {
  const bomb = pdfOfStreams([{ data: await deflatedBomb(BOMB_MIB * 1024 * 1024), filters: ['FlateDecode'] }]);
  const server = createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    if (req.url === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
    if (req.url === '/bomb.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end(bomb);
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(`PDF bomb: ${(bomb.byteLength / 1024).toFixed(0)} KiB, inflating to ${BOMB_MIB} MiB`);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const checkouts: [string, string][] = [['this checkout', HERE]];
if (args.baseline) checkouts.unshift([`baseline (${args.baseline})`, args.baseline]);
console.log(
  `Floods (node ${process.version}, load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')})\n`,
);

if (args.attack === 'all' || args.attack === 'sign-in') {
  const rows: string[][] = [];
  for (const [name, root] of checkouts) rows.push([name, ...(await signInFlood(root))]);
  console.log(
    '| code | flood | sign-ins answered | GET /docs/… ms p50 / p95 / max (idle → flood) | other tenant search ms (idle → flood) |',
  );
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log();
}
if (args.attack === 'all' || args.attack === 'extraction') {
  const web = await startWeb();
  try {
    const rows: string[][] = [];
    for (const [name, root] of checkouts) rows.push([name, ...(await extractionFlood(root, web.url))]);
    console.log(
      '| code | flood | bombs read | other tenant page ms p50 / p95 / max (idle → flood) | its pages failed | service peak RSS MiB (before → end) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    web.server.close();
  }
}
