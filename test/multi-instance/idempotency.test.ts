/**
 * Idempotency across instances: the same Idempotency-Key and body sent to 3 `citewise serve` processes on
 * one Redis, or one PostgreSQL, is charged once; every retry replays the first response (or waits for it
 * while it still runs), wherever it lands.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStores } from '../../src/stores/postgres/index.ts';
import { createRedisStores } from '../../src/stores/redis/index.ts';
import type { CreditStore, KeyStore } from '../../src/stores/types.ts';
import { cli, startInstances, type Instance } from './instances.ts';
import { dropSchemas, reachablePostgres, reachableRedis, serverOrSkip, withSchema } from './servers.ts';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const redisUrl = await reachableRedis();
const postgresUrl = await reachablePostgres();
const withRedis = serverOrSkip('Redis', redisUrl, 'REDIS_URL');
const withPostgres = serverOrSkip('PostgreSQL', postgresUrl, 'DATABASE_URL');
const RUN = randomBytes(4).toString('hex');
const INSTANCES = 3;
const NO_LIMIT = ['--rate-limit', '1000000/1m'];

const running: Instance[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((instance) => instance.stop()));
});

interface Answer {
  readonly status: number;
  readonly replayed: boolean;
  readonly body: string;
}

async function post(baseUrl: string, key: string, idempotencyKey: string, prompt: string): Promise<Answer> {
  const response = await fetch(`${baseUrl}/v1/search`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({ prompt }),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed') === 'true',
    body: await response.text(),
  };
}

/**
 * Sends one key and body to every instance at once, then once more to each (retries behind a load
 * balancer); checks one charge, one run, and the same answer everywhere.
 */
async function chargedOnce(
  instances: readonly Instance[],
  stores: { keys: KeyStore; credits: CreditStore },
): Promise<void> {
  await stores.credits.openAccount('acct', 20);
  const { key } = await stores.keys.create({ accountId: 'acct' });
  const prompt = 'How do I create an API key?';
  const concurrent = await Promise.all(instances.map((i) => post(i.baseUrl, key, 'order-1', prompt)));
  const retries = [];
  for (const instance of instances) retries.push(await post(instance.baseUrl, key, 'order-1', prompt));
  const all = [...concurrent, ...retries];
  expect(all.map((answer) => answer.status)).toEqual(all.map(() => 200));
  expect(all.filter((answer) => !answer.replayed)).toHaveLength(1);
  expect(new Set(all.map((answer) => answer.body)).size).toBe(1);
  expect(await stores.credits.balance('acct')).toBe(19);

  // Another body under the same key is refused everywhere; another key is a new search.
  for (const instance of instances) {
    expect((await post(instance.baseUrl, key, 'order-1', 'Something else')).status).toBe(422);
  }
  expect((await post(instances[1]!.baseUrl, key, 'order-2', prompt)).replayed).toBe(false);
  expect(await stores.credits.balance('acct')).toBe(18);
}

/** {@link chargedOnce} on instances that were just started; stops them and closes `stores` afterwards. */
async function chargedOnceThenStop(
  instances: readonly Instance[],
  stores: { keys: KeyStore; credits: CreditStore; close(): Promise<void> },
): Promise<void> {
  running.push(...instances);
  try {
    await chargedOnce(instances, stores);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await stores.close();
  }
}

describe.runIf(withRedis)(`Idempotency-Key across ${INSTANCES} instances on one Redis`, () => {
  it('the same key and body is charged once; every retry replays the first response', async () => {
    const prefix = `mi-${RUN}-idem:`;
    const admin = createRedisStores({ url: redisUrl!, prefix });
    const instances = await startInstances(INSTANCES, [
      '--store',
      `${redisUrl}?prefix=${prefix}`,
      ...NO_LIMIT,
    ]);
    await chargedOnceThenStop(instances, admin);
  });
});

describe.runIf(withPostgres)(`Idempotency-Key across ${INSTANCES} instances on one PostgreSQL`, () => {
  const schema = `mi_idem_${RUN}`;
  afterAll(async () => {
    await dropSchemas(postgresUrl!, [schema]);
  });

  it('the same key and body is charged once; every retry replays the first response', async () => {
    const store = withSchema(postgresUrl!, schema);
    expect(await cli(['migrate', '--store', store])).toMatch(/applied migrations/);
    const admin = createPostgresStores({ connectionString: postgresUrl!, schema, migrate: false });
    const instances = await startInstances(INSTANCES, [
      '--store',
      store,
      '--limits-store',
      'memory:',
      ...NO_LIMIT,
    ]);
    await chargedOnceThenStop(instances, admin);
  });
});
