/**
 * Budgets per key across two instances (two engines, each over real HTTP) sharing Redis or PostgreSQL:
 * concurrent searches spread over both never spend more than the key's budget, and the refused ones charge
 * nothing. Skipped with a printed reason when the server is missing (required under CI).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createPostgresStores } from '../../src/stores/postgres/index.ts';
import { createRedisStores } from '../../src/stores/redis/index.ts';
import type { CreditStore, KeyStore } from '../../src/stores/types.ts';
import { fakeFetcher, fakeSearchProvider } from '../../src/testing/index.ts';
import { dropSchemas, reachablePostgres, reachableRedis, serverOrSkip } from '../multi-instance/servers.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';

const PAGES = [
  { url: 'https://a.example.com/etna', title: 'Etna', content: 'Mount Etna is 3,357 metres high.' },
];
const PAGE = '<html><body><article><p>Mount Etna is 3,357 metres high.</p></article></body></html>';
const RUN = `cwbudget${randomBytes(4).toString('hex')}`;

const redisUrl = await reachableRedis();
const postgresUrl = await reachablePostgres();
const withRedis = serverOrSkip('Redis', redisUrl, 'REDIS_URL');
const withPostgres = serverOrSkip('PostgreSQL', postgresUrl, 'DATABASE_URL');

interface Shared {
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  close(): Promise<void>;
}

const backends: Array<[string, boolean, () => Shared]> = [
  ['Redis', withRedis, () => createRedisStores({ url: redisUrl!, prefix: `${RUN}:` })],
  [
    'PostgreSQL',
    withPostgres,
    () => createPostgresStores({ connectionString: postgresUrl!, schema: RUN, maxConnections: 4 }),
  ],
];

afterAll(async () => {
  if (withPostgres) {
    await dropSchemas(postgresUrl!, [RUN]);
  }
});

describe.each(backends)('budgets per key on two instances sharing %s', (_name, available, open) => {
  const running: Array<{ engine: SearchEngine; server: RunningServer; stores: Shared }> = [];
  afterEach(async () => {
    for (const { engine, server, stores } of running.splice(0)) {
      await server.close();
      await engine.close();
      await stores.close();
    }
  });

  async function instance() {
    const stores = open();
    const engine = createSearchEngine({
      search: fakeSearchProvider(PAGES, { id: 'fixed' }),
      fetcher: fakeFetcher(() => PAGE),
      keys: stores.keys,
      credits: stores.credits,
      rateLimiter: false,
    });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server, stores });
    return { engine, baseUrl: server.baseUrl };
  }

  it.runIf(available)('concurrent searches never pass the budget', async () => {
    const one = await instance();
    const two = await instance();
    const { key, record } = await one.engine.createKey({
      credits: 100,
      budget: { credits: 4, period: 'month' },
    });
    const statuses = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        fetch(`${(i % 2 ? one : two).baseUrl}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'How high is Etna?' }),
        }).then((response) => response.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 433)).toHaveLength(10);
    expect(await two.engine.credits.balance(record.accountId)).toBe(96);
    const balance = await fetch(`${one.baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(await balance.json()).toMatchObject({ available_credits: 0, account_credits: 96 });
  });
});
