/**
 * Research jobs survive crashes and spread over machines, with real `citewise` processes:
 * - SQLite: `kill -9` of `serve` while a job runs loses nothing; after a restart the job restarts and
 *   completes, charged once.
 * - Redis (BullMQ) and PostgreSQL (pg-boss): `kill -9` of the worker running a job, and another worker
 *   finishes it, charged once; 100 jobs over 3 instances, each run once, with exact credits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, lastLine } from '../multi-instance/instances.ts';
import { reachablePostgres, reachableRedis, serverOrSkip } from '../multi-instance/servers.ts';
import { searchFlags, startChild, startSearchServer, type Child, type SearchServer } from './processes.ts';
import { researchClient, type JobBody, type SseEvent } from './support.ts';

// Process start-ups on a shared 2-core machine: generous bounds, never timing asserts.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const redisUrl = await reachableRedis();
const postgresUrl = await reachablePostgres();
const RUN = randomBytes(4).toString('hex');

let search: SearchServer;
const children: Child[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  search = await startSearchServer();
});
afterEach(async () => {
  search.release();
  await Promise.all(children.splice(0).map((child) => child.stop()));
});
afterAll(async () => {
  await search.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'citewise-jobs-'));
  dirs.push(dir);
  return dir;
}

async function start(command: 'serve' | 'worker', args: readonly string[]): Promise<Child> {
  const child = await startChild(command, [...searchFlags(search), '--job-lease', '2s', ...args]);
  children.push(child);
  return child;
}

const statusesOf = (events: readonly SseEvent[]) =>
  events.filter((e) => e.event === 'status').map((e) => e.data as { status: string; attempt?: number });

/** Creates a job whose search is held, and resolves once a worker is running it. */
async function heldJob(api: ReturnType<typeof researchClient>): Promise<string> {
  const arrived = search.hold();
  const response = await api.create({ prompt: 'Where does the river rise?', max_credits: 1 });
  expect(response.status).toBe(202);
  const { id } = (await response.json()) as JobBody;
  await arrived;
  return id;
}

describe('one machine, SQLite in the data directory', () => {
  it('kill -9 of serve while a job runs loses nothing: after a restart it completes, charged once', async () => {
    const dataDir = tempDir();
    const key = lastLine(await cli(['keys', 'create', '--data-dir', dataDir, '--credits', '10']));
    const first = await start('serve', ['--data-dir', dataDir]);
    const id = await heldJob(researchClient(first.baseUrl, key));
    await first.kill();
    search.release();

    const second = await start('serve', ['--data-dir', dataDir]);
    const api = researchClient(second.baseUrl, key);
    const events = await api.allEvents(id);
    expect(events.at(-1)?.event).toBe('completed');
    expect(statusesOf(events)).toEqual([
      { status: 'queued' },
      { status: 'running', attempt: 1 },
      { status: 'running', attempt: 2 },
    ]);
    const job = (await (await api.get(id)).json()) as JobBody;
    expect(job).toMatchObject({ status: 'completed', credits_used: 1 });
    expect(job.sources?.length).toBeGreaterThan(0);
    expect(await api.balance()).toBe(9);
  });
});

/** The shared-store cases, on Redis and on PostgreSQL. */
function describeShared(name: string, store: () => string) {
  it(`${name}: kill -9 of the worker running a job, and another worker finishes it, charged once`, async () => {
    const key = lastLine(await cli(['keys', 'create', '--store', store(), '--credits', '10']));
    const front = await start('serve', ['--store', store(), '--job-workers', '0']);
    const api = researchClient(front.baseUrl, key);
    const doomed = await start('worker', ['--store', store()]);
    const id = await heldJob(api);
    await start('worker', ['--store', store()]);
    await doomed.kill();
    search.release();
    const events = await api.allEvents(id);
    expect(events.at(-1)?.event).toBe('completed');
    expect(statusesOf(events).map((s) => s.attempt)).toEqual([undefined, 1, 2]);
    expect(((await (await api.get(id)).json()) as JobBody).credits_used).toBe(1);
    expect(await api.balance()).toBe(9);
  });

  it(`${name}: 100 jobs over 3 instances complete, each run once, with exact credits`, async () => {
    const key = lastLine(await cli(['keys', 'create', '--store', store(), '--credits', '150']));
    const instances = await Promise.all(
      [0, 1, 2].map(() =>
        start('serve', [
          '--store',
          store(),
          '--max-account-jobs',
          '6',
          '--max-queued-jobs',
          '100',
          '--rate-limit',
          '1000/1m',
        ]),
      ),
    );
    const apis = instances.map((instance) => researchClient(instance.baseUrl, key));
    const ids = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const response = await apis[i % 3]!.create({
          prompt: `Question number ${i} about the river`,
          max_credits: 1,
        });
        expect(response.status).toBe(202);
        return ((await response.json()) as JobBody).id;
      }),
    );
    expect(new Set(ids).size).toBe(100);
    // Followed 24 at a time (8 streams per instance): one key holds at most 10 event streams per instance.
    const runs: Awaited<ReturnType<typeof statusesOf>>[] = [];
    for (let start = 0; start < ids.length; start += 24) {
      const chunk = ids.slice(start, start + 24);
      runs.push(
        ...(await Promise.all(
          chunk.map(async (id, i) => statusesOf(await apis[(start + i + 1) % 3]!.allEvents(id))),
        )),
      );
    }
    // Each job ran exactly once (one running event), and every one was charged exactly one credit.
    expect(runs.filter((statuses) => statuses.filter((s) => s.status === 'running').length !== 1)).toEqual(
      [],
    );
    const jobs = await Promise.all(ids.map(async (id) => (await (await apis[0]!.get(id)).json()) as JobBody));
    expect(jobs.filter((job) => job.status !== 'completed' || job.credits_used !== 1)).toEqual([]);
    expect(await apis[2]!.balance()).toBe(50);
  });
}

describe.runIf(serverOrSkip('Redis', redisUrl, 'REDIS_URL'))('several machines on one Redis (BullMQ)', () => {
  let n = 0;
  describeShared('Redis', () => `${redisUrl}?prefix=jobs-${RUN}-${n}:`);
  afterEach(() => void n++);
});

describe.runIf(serverOrSkip('PostgreSQL', postgresUrl, 'DATABASE_URL'))(
  'several machines on one PostgreSQL (pg-boss)',
  () => {
    const schemas: string[] = [];
    let n = 0;
    const store = () => {
      const schema = `jobs_${RUN}_${n}`;
      if (!schemas.includes(schema)) schemas.push(schema);
      return `${postgresUrl}?schema=${schema}`;
    };
    afterEach(() => void n++);
    afterAll(async () => {
      const client = new pg.Client({ connectionString: postgresUrl! });
      await client.connect();
      for (const schema of schemas) {
        await client.query(
          `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`,
        );
      }
      await client.end();
    });
    describeShared('PostgreSQL', store);
  },
);
