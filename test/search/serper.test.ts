import { describe, expect, it } from 'vitest';
import { createSerperProvider } from '../../src/pipeline/search/providers/serper.ts';
import { call, json, keyedProviderOn, searchError, useServer } from './helpers.ts';

const KEY = 'serper-key-abcdef123456';

// Shape of serper.dev's POST /search answer.
const SEARCH_RESPONSE = {
  searchParameters: { q: 'apple inc', gl: 'us', hl: 'en', type: 'search', num: 10, engine: 'google' },
  knowledgeGraph: { title: 'Apple', type: 'Technology company' },
  organic: [
    {
      title: 'Apple',
      link: 'https://www.apple.com/',
      snippet: 'Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac.',
      sitelinks: [{ title: 'Support', link: 'https://support.apple.com/' }],
      position: 1,
    },
    {
      title: 'Apple Inc. - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Apple_Inc.',
      snippet: 'Apple Inc. is an American multinational technology company.',
      date: 'Mar 5, 2024',
      position: 2,
    },
    {
      title: 'Apple stock news',
      link: 'https://example.com/news/apple',
      snippet: 'Shares rose.',
      date: '3 days ago',
      position: 3,
    },
  ],
  peopleAlsoAsk: [],
  relatedSearches: [{ query: 'apple inc stock' }],
};

const server = useServer();

const provider = keyedProviderOn(server, createSerperProvider, KEY);

describe('Serper provider', () => {
  it('POSTs /search with X-API-KEY and maps organic results', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ gl: 'US' }).search(
      {
        query: 'apple inc',
        limit: 3,
        filters: { language: 'en', fromDate: '2024-01-02', toDate: '2024-03-31' },
      },
      call(),
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/search');
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({
      q: 'apple inc',
      num: 3,
      gl: 'us',
      hl: 'en',
      tbs: 'cdr:1,cd_min:1/2/2024,cd_max:3/31/2024',
    });
    expect(hits).toEqual([
      {
        url: 'https://www.apple.com/',
        title: 'Apple',
        snippet: 'Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac.',
        publishedAt: undefined,
        provider: 'serper',
      },
      {
        url: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        title: 'Apple Inc. - Wikipedia',
        snippet: 'Apple Inc. is an American multinational technology company.',
        publishedAt: new Date('Mar 5, 2024').toISOString(),
        provider: 'serper',
      },
      {
        url: 'https://example.com/news/apple',
        title: 'Apple stock news',
        snippet: 'Shares rose.',
        publishedAt: undefined, // relative dates are not guessed
        provider: 'serper',
      },
    ]);
  });

  it('returns [] when Google has no organic results', async () => {
    server.handle((_req, res) => json(res, 200, { searchParameters: { q: 'zzqx' }, relatedSearches: [] }));
    expect(await provider().search({ query: 'zzqx', limit: 5 }, call())).toEqual([]);
  });

  it('maps 403 Unauthorized to a rejected key', async () => {
    server.handle((_req, res) => json(res, 403, { message: 'Unauthorized.', statusCode: 403 }));
    const e = await searchError(provider());
    expect(e.kind).toBe('auth');
    expect(e.message).toBe('Serper rejected the API key (403): Unauthorized.');
  });

  it('maps "Not enough credits" to a quota error', async () => {
    server.handle((_req, res) => json(res, 400, { message: 'Not enough credits', statusCode: 400 }));
    const e = await searchError(provider());
    expect(e.kind).toBe('quota');
    expect(e.retryable).toBe(false);
  });

  it('maps 429 (with an HTTP-date Retry-After), 500 and malformed JSON', async () => {
    const later = new Date(Date.now() + 120_000).toUTCString();
    server.handle((_req, res) =>
      json(res, 429, { message: 'Too many requests', statusCode: 429 }, { 'retry-after': later }),
    );
    const limited = await searchError(provider());
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBeGreaterThan(60_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(120_000);

    server.handle((_req, res) => json(res, 500, { message: 'Internal error', statusCode: 500 }));
    expect((await searchError(provider())).kind).toBe('server');
    server.handle((_req, res) => json(res, 200, '<!doctype html><p>proxy error</p>'));
    expect((await searchError(provider())).kind).toBe('bad_response');
  });
});
