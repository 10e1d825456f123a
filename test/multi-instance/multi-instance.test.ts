/**
 * Many instances, one truth: several `citewise serve` processes share one Redis or one PostgreSQL.
 * Proves that credits are never overspent across processes, that a shared rate limit is exact, and that
 * the service fails closed (503) while its store is away and recovers by itself.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStores } from '../../src/stores/postgres/index.ts';
import { createRedisStores } from '../../src/stores/redis/index.ts';
import { balance, cli, createKeyWithCli, search, startInstances, tally, type Instance } from './instances.ts';
import {
  binariesOrSkip,
  dropSchemas,
  reachablePostgres,
  reachableRedis,
  serverOrSkip,
  startPrivatePostgres,
  startPrivateRedis,
  withSchema,
} from './servers.ts';

// Process start-up and hundreds of requests on a shared, busy machine: generous bounds, never timing asserts.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const redisUrl = await reachableRedis();
const postgresUrl = await reachablePostgres();
const withRedis = serverOrSkip('Redis', redisUrl, 'REDIS_URL');
const withPostgres = serverOrSkip('PostgreSQL', postgresUrl, 'DATABASE_URL');
const RUN = randomBytes(4).toString('hex');
const INSTANCES = 3;
// These tests are about credits across instances, not fairness: one account may use every search slot and
// queue all its searches, so each refusal is the credit store's (433), never the scheduler's (503).
const NO_LIMIT = ['--rate-limit', '1000000/1m', '--max-account-share', '1', '--max-queued-searches', '300'];

const running: Instance[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((instance) => instance.stop()));
});

async function start(args: readonly string[]): Promise<Instance[]> {
  const instances = await startInstances(INSTANCES, args);
  running.push(...instances);
  return instances;
}

async function stopAll(instances: readonly Instance[]): Promise<void> {
  await Promise.all(instances.map((instance) => instance.stop()));
}

/** 300 concurrent searches spread round-robin over the instances. */
function searchStorm(instances: readonly Instance[], key: string, count = 300): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => search(instances[i % instances.length]!.baseUrl, key)),
  );
}

describe.runIf(withRedis)(`${INSTANCES} instances on one Redis`, () => {
  it('300 concurrent searches against 50 credits: exactly 50 succeed, 250 get 433, balance 0', async () => {
    // Provisioned with the CLI, as the README shows.
    const store = `${redisUrl}?prefix=mi-${RUN}-credits:`;
    const key = await createKeyWithCli(store, 'acct', 50);
    expect((await cli(['credits', 'balance', 'acct', '--store', store])).trim()).toBe('50');
    const admin = createRedisStores({ url: redisUrl!, prefix: `mi-${RUN}-credits:` });
    const instances = await start(['--store', store, ...NO_LIMIT]);
    const statuses = await searchStorm(instances, key);
    expect(tally(statuses)).toEqual({ 200: 50, 433: 250 });
    for (const instance of instances) expect(await balance(instance.baseUrl, key)).toBe(0);
    expect(await admin.credits.balance('acct')).toBe(0);
    await stopAll(instances);
    await admin.close();
  });

  it('a shared rate limit of 10 per window admits exactly 10 across the instances', async () => {
    const prefix = `mi-${RUN}-limits:`;
    const admin = createRedisStores({ url: redisUrl!, prefix });
    await admin.credits.openAccount('acct', 1_000);
    const { key } = await admin.keys.create({ accountId: 'acct' });
    const instances = await start(['--store', `${redisUrl}?prefix=${prefix}`, '--rate-limit', '10/1h']);
    const statuses = await searchStorm(instances, key, 60);
    expect(tally(statuses)).toEqual({ 200: 10, 429: 50 });
    expect(await admin.credits.balance('acct')).toBe(990);
    await stopAll(instances);
    await admin.close();
  });
});

describe.runIf(withRedis && binariesOrSkip('Redis'))(`${INSTANCES} instances when Redis goes away`, () => {
  it('fails closed with 503 while Redis is down (balance untouched) and recovers without a restart', async () => {
    const redis = await startPrivateRedis();
    try {
      const admin = createRedisStores({ url: redis.url });
      await admin.credits.openAccount('acct', 40);
      const { key } = await admin.keys.create({ accountId: 'acct' });
      await admin.close();
      const instances = await start(['--store', redis.url, ...NO_LIMIT]);
      expect(tally(await searchStorm(instances, key, 9))).toEqual({ 200: 9 });
      await redis.snapshot();
      await redis.stop();
      const during = await searchStorm(instances, key, 30);
      expect(tally(during)).toEqual({ 503: 30 });
      await redis.start(); // same port, same snapshot: 31 credits
      await expect
        .poll(() => search(instances[0]!.baseUrl, key), { timeout: 15_000, interval: 200 })
        .toBe(200);
      // Every instance recovered: one more search on each, then the balance shows nothing leaked.
      for (const instance of instances) expect(await search(instance.baseUrl, key)).toBe(200);
      expect(await balance(instances[1]!.baseUrl, key)).toBe(40 - 9 - 1 - INSTANCES);
      await stopAll(instances);
    } finally {
      await redis.destroy();
    }
  });
});

interface LedgerTotals {
  available: number;
  delta_sum: number;
  charged: number;
  commits: number;
  reserves: number;
  held: number;
  settled_twice: number;
}

/** Ledger totals of one account. */
async function ledger(pool: pg.Pool, schema: string, account: string): Promise<LedgerTotals> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT (SELECT available FROM "${schema}".credit_accounts WHERE account = $1) AS available,
            COALESCE(sum(delta), 0) AS delta_sum,
            COALESCE(sum(charged), 0) AS charged,
            count(*) FILTER (WHERE kind = 'commit') AS commits,
            count(*) FILTER (WHERE kind = 'reserve') AS reserves,
            (SELECT COALESCE(sum(amount), 0) FROM "${schema}".credit_reservations
              WHERE account = $1 AND status = 'held') AS held,
            (SELECT count(*) FROM (SELECT reservation_id FROM "${schema}".credit_ledger
              WHERE kind IN ('commit', 'refund', 'lapse') GROUP BY reservation_id HAVING count(*) > 1) d)
              AS settled_twice
     FROM "${schema}".credit_ledger WHERE account = $1`,
    [account],
  );
  return Object.fromEntries(
    Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]),
  ) as unknown as LedgerTotals;
}

describe.runIf(withPostgres)(`${INSTANCES} instances on one PostgreSQL`, () => {
  const schema = `mi_${RUN}`;
  afterAll(async () => {
    await dropSchemas(postgresUrl!, [schema]);
  });

  it('300 concurrent searches against 50 credits: exactly 50 succeed, 250 get 433; the ledger adds up', async () => {
    const store = withSchema(postgresUrl!, schema);
    expect(await cli(['migrate', '--store', store])).toMatch(/applied migrations 1/);
    expect(await cli(['migrate', '--store', store])).toMatch(/schema up to date/);
    const key = await createKeyWithCli(store, 'acct', 50);
    const admin = createPostgresStores({ connectionString: postgresUrl!, schema, migrate: false });
    // Limits stay per instance in memory here (PostgreSQL keeps no rate limits).
    const instances = await start(['--store', store, '--limits-store', 'memory:', ...NO_LIMIT]);
    const statuses = await searchStorm(instances, key);
    expect(tally(statuses)).toEqual({ 200: 50, 433: 250 });
    for (const instance of instances) expect(await balance(instance.baseUrl, key)).toBe(0);
    expect(await ledger(admin.pool, schema, 'acct')).toEqual({
      available: 0,
      delta_sum: 0,
      charged: 50,
      commits: 50,
      reserves: 50,
      held: 0,
      settled_twice: 0,
    });
    await stopAll(instances);
    await admin.close();
  });
});

describe.runIf(withPostgres && binariesOrSkip('PostgreSQL'))(
  `${INSTANCES} instances across a PostgreSQL restart`,
  () => {
    it('loses no committed charge and double-charges nothing', async () => {
      const cluster = await startPrivatePostgres();
      try {
        const admin = createPostgresStores({ connectionString: cluster.url });
        await admin.migrate();
        await admin.credits.openAccount('acct', 500);
        const { key } = await admin.keys.create({ accountId: 'acct' });
        const instances = await start(['--store', cluster.url, ...NO_LIMIT]);
        const before = await searchStorm(instances, key, 30);
        // Restart the database while a wave of searches is in flight.
        const wave = searchStorm(instances, key, 90);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await cluster.stop('fast');
        await cluster.start();
        const during = await wave;
        await expect
          .poll(() => search(instances[0]!.baseUrl, key), { timeout: 15_000, interval: 200 })
          .toBe(200);
        const after = await searchStorm(instances, key, 30);
        await stopAll(instances);

        const statuses = [...before, ...during, ...after];
        const succeeded = statuses.filter((s) => s === 200).length + 1; // + the poll's final search
        for (const status of statuses) expect([200, 503]).toContain(status);
        expect(tally(before)).toEqual({ 200: 30 });
        // A search answered while its commit could not be written keeps its hold until the hold lapses
        // (then the credit returns): it is logged by the instance, and never charged twice.
        const uncommitted = instances
          .map((i) => i.output().match(/credit commit failed/g)?.length ?? 0)
          .reduce((a, b) => a + b, 0);
        const totals = await ledger(admin.pool, 'citewise', 'acct');
        console.info(
          `postgres restart: during the restart ${JSON.stringify(tally(during))}, ` +
            `${uncommitted} answered searches could not commit; ledger ${JSON.stringify(totals)}`,
        );
        expect(totals.settled_twice).toBe(0);
        expect(totals.charged).toBe(succeeded - uncommitted);
        expect(totals.commits).toBe(succeeded - uncommitted);
        expect(totals.available).toBe(totals.delta_sum);
        expect(totals.available + totals.charged + totals.held).toBe(500);
        await admin.close();
      } finally {
        await cluster.destroy();
      }
    });
  },
);
