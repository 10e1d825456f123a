/**
 * `GET /healthz` and `GET /readyz` through every adapter: no key needed, served in maintenance mode, and
 * `/readyz` answers 503 (in the spec's error shape) naming the stores that do not answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import { createPostgresStores } from '../../src/stores/postgres/index.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';
import type { CreditStore } from '../../src/stores/types.ts';
import { createRedisStores } from '../../src/stores/redis/index.ts';
import {
  binariesOrSkip,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../multi-instance/servers.ts';
import { ADAPTERS, closedAfterEachTest, type RunningServer } from '../support/servers.ts';
import { request } from '../../src/testing/index.ts';

const running = closedAfterEachTest();

async function get(server: RunningServer, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.baseUrl}${path}`);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: await response.json() };
}

/** A credit store whose ping fails, as one whose database went away. */
function unreachableCredits(): CreditStore {
  return Object.assign(createMemoryCreditStore(), {
    ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
  });
}

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`health probes via ${adapterName}`, () => {
    async function start(options: SearchEngineOptions = {}) {
      const engine = createSearchEngine({ fetcher: false, extractor: false, ...options });
      const server = await startAdapter(engine);
      running.push({ engine, server });
      return server;
    }

    it('GET /healthz is 200 {"status":"ok"} without a key, even in maintenance mode', async () => {
      const server = await start({ maintenance: true });
      expect(await get(server, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      // The /v1 API is down for maintenance meanwhile.
      expect((await fetch(`${server.baseUrl}/v1/balance`)).status).toBe(503);
    });

    it('GET /readyz is 200 {"status":"ready"} when the stores answer', async () => {
      const server = await start();
      expect(await get(server, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    });

    it('GET /readyz is 503 in the error shape naming the store whose ping fails', async () => {
      const server = await start({ credits: unreachableCredits() });
      const { status, body } = await get(server, '/readyz');
      expect(status).toBe(503);
      expect(body).toEqual({
        error: { description: 'Service Unavailable: credit store unreachable', code: 'service_unavailable' },
      });
      // The process itself is alive.
      expect((await get(server, '/healthz')).status).toBe(200);
    });

    it('POST /healthz is 405 with Allow: GET', async () => {
      const server = await start();
      const response = await fetch(`${server.baseUrl}/healthz`, { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    });
  });
}

describe('readiness of real stores', () => {
  it('a closed SQLite database is not ready', async () => {
    const stores = createSqliteStores({ path: ':memory:' });
    const engine = createSearchEngine({ keys: stores.keys, credits: stores.credits, rateLimiter: false });
    const ready = () => request(engine, 'GET', '/readyz', { signal: AbortSignal.timeout(5_000) });
    expect((await ready()).status).toBe(200);
    await stores.close();
    const response = await ready();
    expect(response.status).toBe(503);
    expect(response.json()).toMatchObject({
      error: { description: 'Service Unavailable: key store, credit store unreachable' },
    });
  });

  describe.runIf(binariesOrSkip('PostgreSQL'))('PostgreSQL stopped and started again', () => {
    let cluster: PrivatePostgres | undefined;
    afterAll(async () => cluster?.destroy());

    it('/readyz follows the database: 200, 503 while stopped, 200 once it is back', async () => {
      cluster = await startPrivatePostgres();
      const stores = createPostgresStores({ connectionString: cluster.url, statementTimeoutMs: 1_000 });
      const engine = createSearchEngine({ keys: stores.keys, credits: stores.credits, rateLimiter: false });
      const server = await ADAPTERS['node:http']!(engine);
      running.push({ engine, server });
      try {
        expect(await get(server, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
        await cluster.stop('fast');
        const down = await get(server, '/readyz');
        expect(down.status).toBe(503);
        expect(down.body).toMatchObject({
          error: { description: 'Service Unavailable: key store, credit store unreachable' },
        });
        expect((await get(server, '/healthz')).status).toBe(200);
        await cluster.start();
        await expect.poll(async () => (await get(server, '/readyz')).status, { timeout: 10_000 }).toBe(200);
      } finally {
        await stores.close();
      }
    }, 60_000);
  });

  // redis-server is not installed on every development machine; CI runs this.
  describe.runIf(binariesOrSkip('Redis'))('Redis stopped and started again', () => {
    let redis: PrivateRedis | undefined;
    afterAll(async () => redis?.destroy());

    it('/readyz follows Redis: 200, 503 naming every Redis store while it is down, 200 once it is back', async () => {
      redis = await startPrivateRedis();
      const stores = createRedisStores({ url: redis.url });
      const engine = createSearchEngine({
        keys: stores.keys,
        credits: stores.credits,
        rateLimiter: stores.rateLimiter({ limit: 60, windowMs: 60_000 }),
      });
      const server = await ADAPTERS['node:http']!(engine);
      running.push({ engine, server });
      try {
        expect(await get(server, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
        await redis.stop();
        const down = await get(server, '/readyz');
        expect(down.status).toBe(503);
        expect(down.body).toMatchObject({
          error: { description: 'Service Unavailable: key store, credit store, rate limiter unreachable' },
        });
        await redis.start();
        await expect.poll(async () => (await get(server, '/readyz')).status, { timeout: 10_000 }).toBe(200);
      } finally {
        await stores.close();
      }
    }, 60_000);
  });
});
