/**
 * The Tavily-compatible routes with the real LangChain tools (`@langchain/tavily`): `TavilySearch` and
 * `TavilyExtract` pointed at a running citewise through `apiBaseUrl`, nothing else changed. Also the raw
 * routes: the legacy `api_key` body field, Tavily's error shape, credits as on /v1.
 */
import { createServer } from 'node:http';
import { TavilyExtract, TavilySearch } from '@langchain/tavily';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { startFixtureWeb } from '../support/fixture-web.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { parseTavilyExtract, parseTavilySearch } from '../../src/http/compat/tavily.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import type { SearchHit } from '../../src/pipeline/types.ts';
import { fakeSearchProvider, request } from '../../src/testing/index.ts';

const PAGE = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav>Home | News</nav>
  <main><article><h1>${title}</h1><p>${text}</p></article></main><footer>Copyright</footer></body></html>`;

const PAGES: Record<string, string> = {
  '/glaciers': PAGE(
    'How glaciers move',
    'Glaciers move by internal deformation of the ice and by sliding over the rock beneath them; meltwater at the base lets them slide faster in summer.',
  ),
  '/ice-ages': PAGE(
    'Ice ages',
    'An ice age is a long period of reduction in the temperature of the Earth and its atmosphere.',
  ),
};

describe('Tavily-compatible routes', () => {
  let web: ListeningServer;
  let api: ListeningServer;
  let webUrl: string;
  let apiUrl: string;
  let engine: SearchEngine;
  let key: string;

  beforeAll(async () => {
    web = await startFixtureWeb(PAGES);
    webUrl = web.baseUrl;
    const hits = (): SearchHit[] => [
      { url: `${webUrl}/glaciers`, title: 'How glaciers move', snippet: 'Glaciers move by deformation.' },
      { url: `${webUrl}/ice-ages`, title: 'Ice ages', snippet: 'An ice age is a long cold period.' },
    ];
    engine = createSearchEngine({
      search: fakeSearchProvider(() => hits(), { id: 'fixture' }),
      fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
      rateLimiter: false,
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

  const balance = async () => (await engine.balance(key)).available_credits;

  it('LangChain TavilySearch gets Tavily-shaped results and the answer, charged one search', async () => {
    const before = await balance();
    const tool = new TavilySearch({
      tavilyApiKey: key,
      apiBaseUrl: `${apiUrl}/compat/tavily`,
      maxResults: 5,
      includeAnswer: true,
    });
    const result = (await tool.invoke({ query: 'How do glaciers move?' })) as Record<string, unknown>;
    expect(result['error']).toBeUndefined();
    expect(result['query']).toBe('How do glaciers move?');
    expect(String(result['answer'])).toMatch(/glacier/i);
    const results = result['results'] as { title: string; url: string; content: string; score: number }[];
    expect(results[0]).toMatchObject({ url: `${webUrl}/glaciers`, title: 'How glaciers move' });
    expect(results[0]!.content).toMatch(/deformation/);
    expect(results[0]!.score).toBe(1);
    expect(result['images']).toEqual([]);
    expect(typeof result['response_time']).toBe('number');
    expect(await balance()).toBe(before - 1);
  });

  it('LangChain TavilyExtract gets raw content and failed results, charged per page read (and a share for the failed one)', async () => {
    const before = await balance();
    const tool = new TavilyExtract({ tavilyApiKey: key, apiBaseUrl: `${apiUrl}/compat/tavily` });
    const result = (await tool.invoke({ urls: [`${webUrl}/glaciers`, `${webUrl}/missing`] })) as Record<
      string,
      unknown
    >;
    expect(result['error']).toBeUndefined();
    const results = result['results'] as { url: string; raw_content: string }[];
    expect(results).toHaveLength(1);
    expect(results[0]!.url).toBe(`${webUrl}/glaciers`);
    expect(results[0]!.raw_content).toContain('Glaciers move by internal deformation');
    expect(result['failed_results']).toEqual([
      { url: `${webUrl}/missing`, error: 'the server did not answer with the page (not a 2xx status)' },
    ]);
    // 1 for the page read, 0.25 rounded up for the page requested but not read.
    expect(await balance()).toBe(before - 2);
  });

  it('LangChain reads our errors: a wrong key comes back as Tavily error text', async () => {
    const tool = new TavilySearch({ tavilyApiKey: 'cw_wrong', apiBaseUrl: `${apiUrl}/compat/tavily` });
    const result = (await tool.invoke({ query: 'glaciers' })) as { error?: string };
    expect(result.error).toBe('Error 401: Invalid or expired API key');
  });

  it('accepts the legacy api_key body field, and answers errors as {"detail": {"error": …}}', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${apiUrl}/compat/tavily${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post('/search', { api_key: key, query: 'ice age', max_results: 1 });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { answer: unknown; results: unknown[] };
    expect(body.answer).toBeNull();
    expect(body.results).toHaveLength(1);

    const noKey = await post('/search', { query: 'ice age' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ detail: { error: 'Invalid or expired API key' } });

    const bad = await post('/search', { api_key: key, query: 'x', search_depth: 'deepest' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: { error: string } }).detail.error).toContain('search_depth');

    const poor = (await engine.createKey({ credits: 0 })).key;
    const broke = await post('/search', { api_key: poor, query: 'ice age' });
    expect(broke.status).toBe(433);
    expect(await broke.json()).toEqual({ detail: { error: 'Account is at / over message quota' } });
  });

  it('rate limits as on /v1: one window per key across /v1/search, the Tavily routes and chat completions', async () => {
    const limited = createSearchEngine({
      search: fakeSearchProvider([], { id: 'none' }),
      rateLimit: { limit: 2, windowMs: 60_000 },
    });
    const server = await listenOnLoopback(createServer(createNodeHandler(limited)));
    try {
      const { key: own } = await limited.createKey({ credits: 10 });
      const post = (path: string, body: unknown) =>
        fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const chat = { model: 'citewise', messages: [{ role: 'user', content: 'ice age' }] };
      expect((await post('/v1/search', { prompt: 'ice age' })).status).toBe(200);
      expect((await post('/compat/tavily/search', { query: 'ice age' })).status).toBe(200);
      const tavily = await post('/compat/tavily/search', { query: 'ice age' });
      expect(tavily.status).toBe(429);
      expect(Number(tavily.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await tavily.json()).toEqual({ detail: { error: 'Too Many Requests' } });
      const openai = await post('/v1/chat/completions', chat);
      expect(openai.status).toBe(429);
      expect(Number(openai.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await openai.json()).toEqual({
        error: { message: 'Too Many Requests', type: 'rate_limit_error', param: null, code: 'rate_limited' },
      });
      expect((await post('/v1/search', { prompt: 'ice age' })).status).toBe(429);
    } finally {
      await server.close();
      await limited.close();
    }
  });

  it("translates every Tavily field as the migration guide's table says; the ignored ones are accepted", () => {
    const plan = parseTavilySearch({
      query: 'glaciers',
      search_depth: 'advanced',
      max_results: 3,
      include_answer: 'advanced',
      include_raw_content: 'markdown',
      include_domains: ['example.org'],
      exclude_domains: ['Bad.example.org'],
      time_range: 'w',
      topic: 'news',
      days: 3,
      include_images: true,
      chunks_per_source: 2,
      country: 'france',
    });
    expect(plan).toMatchObject({
      query: 'glaciers',
      includeAnswer: true,
      includeRawContent: true,
      maxResults: 3,
    });
    expect(plan.search).toMatchObject({
      prompt: 'glaciers',
      depth: 'deep',
      maxSources: 3,
      responseType: 'text',
      include: ['search_results'],
    });
    expect(plan.search.filters).toMatchObject({
      includeDomains: ['example.org'],
      excludeDomains: ['bad.example.org'],
      fromDate: new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10),
    });
    expect(plan.search.filters.country).toBeUndefined();
    const depth = (search_depth?: string) => parseTavilySearch({ query: 'q', search_depth }).search.depth;
    expect([depth(), depth('basic'), depth('fast'), depth('ultra-fast')]).toEqual([
      'standard',
      'standard',
      'fast',
      'fast',
    ]);
    const none = parseTavilySearch({ query: 'q', include_answer: false, max_results: 0 });
    expect(none).toMatchObject({ includeAnswer: false, includeRawContent: false, maxResults: 0 });
    expect(none.search.maxSources).toBe(1);
    expect(parseTavilySearch({ query: 'q', include_answer: 'basic' }).includeAnswer).toBe(true);
    expect(parseTavilyExtract({ urls: 'https://example.org/a', extract_depth: 'advanced' })).toEqual({
      urls: ['https://example.org/a'],
      format: 'markdown',
    });
    expect(() => parseTavilyExtract({ urls: Array(21).fill('https://example.org/') })).toThrow(/1 to 20/);
  });

  it('can be moved or turned off', async () => {
    const moved = createSearchEngine({
      search: fakeSearchProvider([], { id: 'none' }),
      tavilyPrefix: '/tavily/',
    });
    expect(moved.tavilyPrefix).toBe('/tavily');
    const off = createSearchEngine({ search: fakeSearchProvider([], { id: 'none' }), tavilyPrefix: false });
    const response = await request(off, 'POST', '/compat/tavily/search');
    expect(response.status).toBe(404);
    expect(() => createSearchEngine({ tavilyPrefix: '/v1/tavily' })).toThrow(RangeError);
    await Promise.all([moved.close(), off.close()]);
  });
});
