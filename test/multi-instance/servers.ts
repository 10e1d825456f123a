/**
 * Real Redis and PostgreSQL servers for the store tests: the shared ones from REDIS_URL / DATABASE_URL
 * (else the loopback defaults that .ci/run starts), and private ones on random ports that a test may stop
 * and restart to inject faults.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * Where the suites look when REDIS_URL / DATABASE_URL are unset. CITEWISE_TEST_DEFAULT_REDIS_URL and
 * CITEWISE_TEST_DEFAULT_DATABASE_URL move these probes (test/repo/fresh-clone.test.ts points them at closed
 * ports to collect the suites as on a machine with neither server).
 */
export const DEFAULT_REDIS_URL = process.env.CITEWISE_TEST_DEFAULT_REDIS_URL || 'redis://127.0.0.1:6379';
export const DEFAULT_DATABASE_URL =
  process.env.CITEWISE_TEST_DEFAULT_DATABASE_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** Whether a Redis server answers PING at `url` (one connection attempt, no retries). */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Whether a PostgreSQL server at `url` accepts a connection and answers `SELECT 1`. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The shared Redis URL if a server answers there, else null. */
export async function reachableRedis(): Promise<string | null> {
  const url = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  return (await redisAnswers(url)) ? url : null;
}

/** The shared PostgreSQL URL if a server answers there, else null. */
export async function reachablePostgres(): Promise<string | null> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  return (await postgresAnswers(url)) ? url : null;
}

/**
 * Decides whether a suite needing `what` runs: with a server it does; without one it is skipped with a
 * printed reason, except under CI (CI=true), where a missing server is a failure.
 */
export function serverOrSkip(what: string, url: string | null, variable: string): boolean {
  if (url) return true;
  const reason = `${what} not reachable (set ${variable}); skipping its tests`;
  if (process.env.CI && /^(1|true)$/i.test(process.env.CI))
    throw new Error(`${reason} — not allowed under CI`);
  console.warn(reason);
  return false;
}

/**
 * Whether the server binaries a test starts privately (redis-server, PostgreSQL's initdb) are installed. When
 * they are not: prints why the tests are skipped and returns false, except under `CI=true`, where it throws
 * (CI installs both; see .ci/run).
 */
export function binariesOrSkip(what: 'Redis' | 'PostgreSQL'): boolean {
  if (what === 'Redis' ? hasRedisServer() : postgresBinDir() !== null) return true;
  const reason = `${what} server binaries (${what === 'Redis' ? 'redis-server' : 'initdb'}) not found; skipping the tests that stop and start a private ${what}`;
  if (process.env.CI && /^(1|true)$/i.test(process.env.CI))
    throw new Error(`${reason} — not allowed under CI`);
  console.warn(reason);
  return false;
}

/** A free TCP port on 127.0.0.1 (the kernel picks it; a tiny race remains until the server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
}

/** A redis-server this test owns: no persistence, killable, restartable on the same port. */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** Kills the server (SIGKILL): nothing is written, so a restart comes back with the last snapshot. */
  stop(): Promise<void>;
  /** Writes a snapshot (SAVE) that the next start loads. */
  snapshot(): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/** Whether `redis-server` can be run here. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/** Starts a private redis-server on a random loopback port. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'citewise-redis-'));
  let child: ChildProcess | null = null;
  const ping = () => redisAnswers(url);
  const redis: PrivateRedis = {
    url,
    port,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      await waitFor(ping, `redis-server on ${port}`);
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
    async snapshot() {
      const client = new Redis(url, { maxRetriesPerRequest: 0 });
      try {
        await client.save();
      } finally {
        client.disconnect();
      }
    },
    async destroy() {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}

/** A PostgreSQL cluster this test owns (initdb in a temp dir), stoppable and restartable on the same port. */
export interface PrivatePostgres {
  readonly url: string;
  start(): Promise<void>;
  /** `fast` = SIGINT shutdown (like a restart by an operator); `immediate` = crash-like. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
}

/** The directory of PostgreSQL's server binaries (initdb, pg_ctl), or null. */
export function postgresBinDir(): string | null {
  for (const candidate of [
    '/usr/lib/postgresql/17/bin',
    '/usr/lib/postgresql/16/bin',
    '/usr/lib/postgresql/15/bin',
  ]) {
    if (existsSync(join(candidate, 'initdb'))) return candidate;
  }
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = found.status === 0 ? found.stdout.trim() : '';
  return dir && existsSync(join(dir, 'initdb')) ? dir : null;
}

/** `runuser` where Debian puts it (/usr/sbin is not on every root shell's PATH), else by name. */
function runuser(): string {
  return ['/usr/sbin/runuser', '/sbin/runuser'].find((file) => existsSync(file)) ?? 'runuser';
}

/**
 * Creates and starts a private cluster. PostgreSQL refuses to run as root, so as root its commands run as
 * the `postgres` system user (via runuser), which must exist (Debian's postgresql package creates it).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries (initdb) not found');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'citewise-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = join(dir, 'data');
  const run = (command: string, args: readonly string[]) => {
    const [file, argv] = asRoot ? [runuser(), ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: tmpdir() });
    if (result.status !== 0)
      throw new Error(`${command} failed: ${result.error?.message ?? (result.stderr || result.stdout)}`);
  };
  run(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ready = () => postgresAnswers(url);
  const cluster: PrivatePostgres = {
    url,
    async start() {
      run(join(bin, 'pg_ctl'), ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      await waitFor(ready, `postgres on ${port}`);
    },
    async stop(mode = 'fast') {
      run(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', mode, '-w', 'stop']);
    },
    async destroy() {
      try {
        await cluster.stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

/** Drops `schemas` and everything in them on the PostgreSQL server at `url`: a suite's cleanup. */
export async function dropSchemas(url: string, schemas: Iterable<string>): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

/** The store URL of one schema: `url` with `schema=<schema>` added to its query string. */
export function withSchema(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
}
