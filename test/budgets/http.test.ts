/**
 * Budgets per key through the real HTTP stack: a search that would pass the key's budget is a 433 naming
 * the budget (the account's credits untouched), `GET /v1/balance` shows what the key can still spend,
 * concurrent searches never overspend a budget, also across two instances sharing one database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';
import { fakeFetcher, fakeSearchProvider } from '../../src/testing/index.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';

const PAGES = [
  { url: 'https://a.example.com/etna', title: 'Etna', content: 'Mount Etna is 3,357 metres high.' },
];
const PAGE =
  '<html><body><article><p>Mount Etna is 3,357 metres high and erupts often.</p></article></body></html>';

const dir = mkdtempSync(join(tmpdir(), 'citewise-budgets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('budgets per key over HTTP', () => {
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function serve(options: SearchEngineOptions = {}) {
    const engine = createSearchEngine({
      search: fakeSearchProvider(PAGES, { id: 'fixed' }),
      fetcher: fakeFetcher(() => PAGE),
      rateLimiter: false,
      ...options,
    });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    return { engine, baseUrl: server.baseUrl };
  }

  const search = (baseUrl: string, key: string) =>
    fetch(`${baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How high is Etna?' }),
    });
  const balance = async (baseUrl: string, key: string) =>
    (
      await fetch(`${baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } })
    ).json() as Promise<unknown>;

  it('answers 433 naming the budget once it is spent, leaving the account untouched', async () => {
    const { engine, baseUrl } = await serve();
    const { key, record } = await engine.createKey({
      credits: 100,
      budget: { credits: 2, period: 'day' },
    });
    expect((await search(baseUrl, key)).status).toBe(200);
    expect(await balance(baseUrl, key)).toMatchObject({ available_credits: 1, account_credits: 99 });
    expect((await search(baseUrl, key)).status).toBe(200);
    const refused = await search(baseUrl, key);
    expect(refused.status).toBe(433);
    const body = (await refused.json()) as { error: { description: string; code: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe('key_budget_exceeded');
    expect(body.error.description).toMatch(/^Account is at \/ over message quota: /);
    expect(body.error.description).toContain(`API key ${record.id} has a budget of 2 credits a day, 0 left`);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(body.error.description).toContain(`it starts afresh at ${tomorrow.toISOString()}`);
    // Nothing was charged for the refused search: the account still has 98.
    expect(await engine.credits.balance(record.accountId)).toBe(98);
    expect(await balance(baseUrl, key)).toEqual({
      available_credits: 0,
      account_credits: 98,
      key_budget: { credits: 2, period: 'day', remaining: 0, resets_at: tomorrow.toISOString() },
    });

    // Another key of the account, without a budget, still searches, and its balance is the spec's.
    const { key: free } = await engine.createKey({ accountId: record.accountId });
    expect((await search(baseUrl, free)).status).toBe(200);
    expect(await balance(baseUrl, free)).toEqual({ available_credits: 97 });

    // A larger budget (what was spent today still counts) lets the key search again; none removes it.
    await engine.setKeyBudget(record.id, { credits: 3, period: 'day' });
    expect(await balance(baseUrl, key)).toMatchObject({ available_credits: 1 });
    expect((await search(baseUrl, key)).status).toBe(200);
    expect((await search(baseUrl, key)).status).toBe(433);
    await engine.setKeyBudget(record.id, null);
    expect(await balance(baseUrl, key)).toEqual({ available_credits: 96 });
    expect((await search(baseUrl, key)).status).toBe(200);
  });

  it('the account running out is the spec 433, even for a key with a budget left', async () => {
    const { engine, baseUrl } = await serve();
    const { key } = await engine.createKey({ credits: 1, budget: { credits: 50, period: 'month' } });
    expect(await balance(baseUrl, key)).toMatchObject({
      available_credits: 1,
      key_budget: { remaining: 50 },
    });
    expect((await search(baseUrl, key)).status).toBe(200);
    const refused = await search(baseUrl, key);
    expect(refused.status).toBe(433);
    expect(((await refused.json()) as { error: { description: string } }).error.description).toBe(
      'Account is at / over message quota',
    );
  });

  it('a refunded search gives its budget back', async () => {
    const { engine, baseUrl } = await serve({ search: fakeSearchProvider([], { id: 'empty' }) });
    const { key } = await engine.createKey({ credits: 10, budget: { credits: 1, period: 'total' } });
    // A search that finds nothing is free: its hold is refunded, to the account and to the budget.
    for (let i = 0; i < 3; i++) expect((await search(baseUrl, key)).status).toBe(200);
    expect(await balance(baseUrl, key)).toEqual({
      available_credits: 1,
      account_credits: 10,
      key_budget: { credits: 1, period: 'total', remaining: 1, resets_at: null },
    });
  });

  it('concurrent searches on two instances sharing one database never overspend the budget', async () => {
    const path = join(dir, 'shared.sqlite');
    const [a, b] = [createSqliteStores({ path }), createSqliteStores({ path })];
    const one = await serve({ keys: a.keys, credits: a.credits });
    const two = await serve({ keys: b.keys, credits: b.credits });
    const { key, record } = await one.engine.createKey({
      credits: 100,
      budget: { credits: 5, period: 'day' },
    });
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => search((i % 2 ? one : two).baseUrl, key).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 433)).toHaveLength(11);
    expect(await one.engine.credits.balance(record.accountId)).toBe(95);
    expect(await balance(two.baseUrl, key)).toMatchObject({ available_credits: 0, account_credits: 95 });
  });
});
