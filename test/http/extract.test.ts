/**
 * POST /v1/extract over real HTTP: pages read by the engine's SSRF-safe fetcher and extractor, one entry
 * per URL in request order, failures with their code, and credits charged per page read only.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { startFixtureWeb } from '../support/fixture-web.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>How glaciers move</title>
  <meta property="article:published_time" content="2025-03-04T10:00:00Z"></head>
  <body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
  <main><article><h1>How glaciers move</h1>
  <p>Glaciers move by internal deformation of the ice and by sliding over the rock beneath them.</p>
  <h2>Sliding</h2><p>Meltwater at the base of a glacier acts as a lubricant, so glaciers slide faster in summer.</p>
  </article></main><footer>Copyright Example News.</footer></body></html>`;

describe('POST /v1/extract', () => {
  let web: ListeningServer;
  let api: ListeningServer;
  let webUrl: string;
  let apiUrl: string;
  let engine: SearchEngine;
  let key: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ '/glaciers': ARTICLE, '/empty': '<html></html>' }, (req, res) => {
      // A chain of redirects: /hop/5 → /hop/4 → … → /hop/0, which is missing.
      const hop = /^\/hop\/(\d+)/.exec(req.url ?? '');
      if (hop && hop[1] !== '0') return res.writeHead(302, { location: `/hop/${Number(hop[1]) - 1}` }).end();
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    webUrl = web.baseUrl;
    engine = createSearchEngine({
      // Extraction needs no search; a provider that finds nothing keeps the engine from indexing a corpus.
      search: fakeSearchProvider([], { id: 'none' }),
      // Only the fixture web's port is allowed on loopback: anything else there is blocked (SSRF guard).
      fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
      rateLimiter: false,
      // The first page starts the extraction worker, which can take seconds on a busy machine.
      pageTimeoutMs: 30_000,
    });
    ({ key } = await engine.createKey({ credits: 100 }));
    api = await listenOnLoopback(createServer(createNodeHandler(engine)));
    apiUrl = api.baseUrl;
  });

  afterAll(async () => {
    await api.close();
    await web.close();
    await engine.close();
  });

  const extract = (body: unknown, apiKey = key) =>
    fetch(`${apiUrl}/v1/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const balance = async () =>
    (
      (await (
        await fetch(`${apiUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as {
        available_credits: number;
      }
    ).available_credits;

  it('reads each page in request order and charges the pages read, and a share of one for pages requested but not read', async () => {
    const before = await balance();
    const blocked = 'http://127.0.0.1:1/secret';
    const response = await extract({
      urls: [`${webUrl}/glaciers`, `${webUrl}/missing`, blocked, `${webUrl}/empty`],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      results: Record<string, unknown>[];
      credits_charged: number;
      response_time: number;
    };
    expect(body.results.map((r) => r.url)).toEqual([
      `${webUrl}/glaciers`,
      `${webUrl}/missing`,
      blocked,
      `${webUrl}/empty`,
    ]);
    const [page, missing, refused, empty] = body.results;
    expect(page).toMatchObject({ title: 'How glaciers move', page_type: 'article' });
    expect(String(page!.published_at)).toMatch(/^2025-03-04/);
    expect(page!.content).toContain('## Sliding');
    expect(page!.content).not.toContain('Copyright');
    expect(missing).toMatchObject({ error: { code: 'bad_status' } });
    expect(refused).toMatchObject({ error: { code: 'blocked_address' } });
    expect(empty).toMatchObject({ error: { code: 'no_content' } });
    // One page read (1), two pages requested but not read (2 × 0.25, rounded up: 1); the blocked one is free.
    expect(body.credits_charged).toBe(2);
    expect(typeof body.response_time).toBe('number');
    expect(await balance()).toBe(before - 2);
  });

  it('format "text" gives plain text', async () => {
    const response = await extract({ urls: [`${webUrl}/glaciers`], format: 'text' });
    const body = (await response.json()) as { results: { content: string }[] };
    expect(body.results[0]!.content).toContain('Glaciers move by internal deformation');
    expect(body.results[0]!.content).not.toContain('##');
  });

  it('refuses bad input with the spec error body, before any charge', async () => {
    const before = await balance();
    for (const [body, field] of [
      [{}, 'urls'],
      [{ urls: [] }, 'urls'],
      [{ urls: Array.from({ length: 21 }, (_, i) => `${webUrl}/p${i}`) }, 'urls'],
      [{ urls: ['ftp://example.org/file'] }, 'urls[0]'],
      [{ urls: [`${webUrl}/glaciers`], format: 'html' }, 'format'],
    ] as const) {
      const response = await extract(body);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { error: { code: string; description: string } };
      expect(error.error.code).toBe('invalid_request');
      expect(error.error.description).toContain(field);
    }
    expect(await balance()).toBe(before);
  });

  it('one URL check for both extract routes: a 900,000-character URL is a 400 on /v1/extract and on the Tavily route', async () => {
    const before = await balance();
    const huge = `${webUrl}/glaciers?${'q'.repeat(900_000)}`;
    const v1 = await extract({ urls: [huge] });
    expect(v1.status).toBe(400);
    expect(((await v1.json()) as { error: { description: string } }).error.description).toMatch(
      /at most 2048 characters/,
    );
    const tavily = await fetch(`${apiUrl}/compat/tavily/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: [huge] }),
    });
    expect(tavily.status).toBe(400);
    expect(JSON.stringify(await tavily.json())).toMatch(/urls\[0\] must be at most 2048 characters/);
    expect(await balance()).toBe(before);
  });

  it('needs a key, and credits for every URL asked for (433 before any page is read)', async () => {
    expect((await extract({ urls: [`${webUrl}/glaciers`] }, 'cw_nope')).status).toBe(401);
    const { key: poor } = await engine.createKey({ credits: 1 });
    const response = await extract({ urls: [`${webUrl}/glaciers`, `${webUrl}/glaciers?b`] }, poor);
    expect(response.status).toBe(433);
  });

  it('an Idempotency-Key retry replays the first response and is not charged again', async () => {
    const before = await balance();
    const send = () =>
      fetch(`${apiUrl}/v1/extract`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'extract-retry-1',
        },
        body: JSON.stringify({ urls: [`${webUrl}/glaciers`] }),
      });
    const first = await send();
    const second = await send();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await balance()).toBe(before - 1);
  });

  it('a fan-out of failing fetches is not free: 20 redirect chains cost 20 × 0.25 credits; refused pages are free', async () => {
    const before = await balance();
    const chains = Array.from({ length: 20 }, (_, i) => `${webUrl}/hop/5?${i}`);
    const body = (await (await extract({ urls: chains })).json()) as {
      results: { error?: { code: string } }[];
      credits_charged: number;
    };
    expect(body.results.every((r) => r.error?.code === 'bad_status')).toBe(true);
    expect(body.credits_charged).toBe(5);
    expect(await balance()).toBe(before - 5);
    // Refused before any request (a private address): nothing was fetched, nothing is charged.
    const blocked = Array.from({ length: 20 }, (_, i) => `http://127.0.0.1:1/${i}`);
    const refused = (await (await extract({ urls: blocked })).json()) as { credits_charged: number };
    expect(refused.credits_charged).toBe(0);
    expect(await balance()).toBe(before - 5);
  });

  it('the cost per page read is configurable (extractCreditCost); a failed page costs extractFailedShare of it', async () => {
    const dear = createSearchEngine({
      search: fakeSearchProvider([], { id: 'none' }),
      fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
      rateLimiter: false,
      pageTimeoutMs: 30_000,
      extractCreditCost: 3,
    });
    try {
      const { key: own } = await dear.createKey({ credits: 10 });
      const body = await dear.extract({ urls: [`${webUrl}/glaciers`, `${webUrl}/missing`] }, { apiKey: own });
      // 3 for the page read, 3 × 0.25 rounded up for the missing one.
      expect(body.credits_charged).toBe(4);
      expect((await dear.balance(own)).available_credits).toBe(6);
      // 3 credits per URL asked for must be available before any page is read (9 > 6).
      await expect(
        dear.extract(
          { urls: [`${webUrl}/glaciers`, `${webUrl}/missing`, `${webUrl}/empty`] },
          { apiKey: own },
        ),
      ).rejects.toMatchObject({ status: 433 });
      expect((await dear.balance(own)).available_credits).toBe(6);
    } finally {
      await dear.close();
    }
  });

  it('is a library call too', async () => {
    const body = await engine.extract({ urls: [`${webUrl}/glaciers`] }, { apiKey: key });
    expect(body.credits_charged).toBe(1);
    expect(body.results[0]).toMatchObject({ title: 'How glaciers move' });
  });
});
