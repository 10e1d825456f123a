import { describe, expect, it } from 'vitest';
import { createBraveProvider } from '../../src/pipeline/search/providers/brave.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { call, json, keyedProviderOn, searchError, useServer } from './helpers.ts';

const KEY = 'BSA-test-subscription-token-123';

// Shapes from Brave's web search API reference (api-dashboard.search.brave.com, Web search GET).
const SEARCH_RESPONSE = {
  type: 'search',
  query: { original: 'node streams', more_results_available: true },
  mixed: { type: 'mixed', main: [] },
  web: {
    type: 'search',
    results: [
      {
        title: 'Stream | Node.js v24 Documentation',
        url: 'https://nodejs.org/api/stream.html',
        is_source_local: false,
        description:
          'A <strong>stream</strong> is an abstract interface for working with streaming data in <strong>Node.js</strong>.',
        page_age: '2025-01-15T08:30:00',
        age: 'January 15, 2025',
        language: 'en',
        family_friendly: true,
        extra_snippets: [
          'Streams can be readable, writable, or both.',
          'All streams are instances of EventEmitter.',
        ],
      },
      {
        title: 'Node.js Streams: Everything you need to know',
        url: 'https://www.freecodecamp.org/news/node-js-streams-everything-you-need-to-know-c9141306be93/',
        description: 'Node.js streams have a reputation for being hard to work with.',
        age: '3 days ago',
      },
    ],
  },
};

function errorBody(status: number, code: string, detail: string): unknown {
  return {
    type: 'ErrorResponse',
    error: {
      id: '5d832250-9396-4f6e-b84a-2a1fe524cd7d',
      status,
      code,
      detail,
      meta: { component: 'authentication' },
    },
    time: 1663072993,
  };
}

const server = useServer();

const provider = keyedProviderOn(server, createBraveProvider, KEY);

describe('Brave Search provider', () => {
  it('sends the documented GET request with X-Subscription-Token and maps web.results', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ safesearch: 'strict' }).search(
      {
        query: 'node streams',
        limit: 50,
        filters: { country: 'de', language: 'EN-us', fromDate: '2024-01-01', toDate: '2024-06-30' },
      },
      call(),
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/res/v1/web/search');
    expect(req.headers['x-subscription-token']).toBe(KEY);
    expect(req.headers.accept).toBe('application/json');
    expect(req.query.get('q')).toBe('node streams');
    expect(req.query.get('count')).toBe('20'); // documented maximum
    expect(req.query.get('country')).toBe('DE');
    expect(req.query.get('search_lang')).toBe('en');
    expect(req.query.get('safesearch')).toBe('strict');
    expect(req.query.get('freshness')).toBe('2024-01-01to2024-06-30');
    expect(req.query.get('extra_snippets')).toBe('true');

    expect(hits).toEqual([
      {
        url: 'https://nodejs.org/api/stream.html',
        title: 'Stream | Node.js v24 Documentation',
        snippet:
          'A stream is an abstract interface for working with streaming data in Node.js.\n' +
          'Streams can be readable, writable, or both.\nAll streams are instances of EventEmitter.',
        publishedAt: '2025-01-15T08:30:00.000Z',
        provider: 'brave',
      },
      {
        url: 'https://www.freecodecamp.org/news/node-js-streams-everything-you-need-to-know-c9141306be93/',
        title: 'Node.js Streams: Everything you need to know',
        snippet: 'Node.js streams have a reputation for being hard to work with.',
        publishedAt: undefined,
        provider: 'brave',
      },
    ]);
  });

  it('adds site: operators for domain filters and filters the answer', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider().search(
      { query: 'streams', limit: 5, filters: { excludeDomains: ['freecodecamp.org'] } },
      call(),
    );
    expect(server.requests[0]!.query.get('q')).toBe('streams -site:freecodecamp.org');
    expect(hits.map((h) => h.url)).toEqual(['https://nodejs.org/api/stream.html']);
  });

  it('returns [] when Brave has no web section for the query', async () => {
    server.handle((_req, res) => json(res, 200, { type: 'search', query: { original: 'zzqx' } }));
    expect(await provider().search({ query: 'zzqx', limit: 5 }, call())).toEqual([]);
  });

  it('maps 422 SUBSCRIPTION_TOKEN_INVALID to a rejected key without leaking it', async () => {
    server.handle((_req, res) =>
      json(
        res,
        422,
        errorBody(422, 'SUBSCRIPTION_TOKEN_INVALID', `The provided subscription token ${KEY} is invalid.`),
      ),
    );
    const e = await searchError(provider());
    expect(e).toBeInstanceOf(SearchProviderError);
    expect(e.kind).toBe('auth');
    expect(e.providerId).toBe('brave');
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(/^Brave Search rejected the API key \(422\): SUBSCRIPTION_TOKEN_INVALID/);
    expect(e.message).not.toContain(KEY);
    expect(e.description).toBe('Server Error'); // what an HTTP client of citewise sees
  });

  it('maps a 401 to "Brave Search rejected the API key (401)"', async () => {
    server.handle((_req, res) =>
      json(res, 401, { type: 'ErrorResponse', errors: [{ code: 'UNAUTHORIZED', detail: 'no' }] }),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('auth');
    expect(e.message).toMatch(/^Brave Search rejected the API key \(401\)/);
  });

  it('maps 429 RATE_LIMITED with X-RateLimit-Reset to a retryable rate limit', async () => {
    server.handle((_req, res) =>
      json(res, 429, errorBody(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.'), {
        'x-ratelimit-limit': '1, 15000',
        'x-ratelimit-remaining': '0, 14000',
        'x-ratelimit-reset': '1, 1419704',
      }),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('rate_limited');
    expect(e.retryable).toBe(true);
    expect(e.retryAfterMs).toBe(1000);
    expect(e.httpStatus).toBe(429);
  });

  it('prefers Retry-After when Brave sends it', async () => {
    server.handle((_req, res) =>
      json(res, 429, errorBody(429, 'RATE_LIMITED', 'slow down'), {
        'retry-after': '7',
        'x-ratelimit-reset': '1, 9',
      }),
    );
    const e = await searchError(provider());
    expect(e.retryAfterMs).toBe(7000);
  });

  it('maps 429 QUOTA_LIMITED to a non-retryable quota error', async () => {
    server.handle((_req, res) =>
      json(res, 429, errorBody(429, 'QUOTA_LIMITED', 'Request quota limit exceeded for plan.')),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('quota');
    expect(e.retryable).toBe(false);
  });

  it('maps 5xx and malformed JSON', async () => {
    server.handle((_req, res) => json(res, 503, '<html>upstream down</html>'));
    const down = await searchError(provider());
    expect(down.kind).toBe('server');
    expect(down.retryable).toBe(true);

    server.handle((_req, res) => json(res, 200, 'not json'));
    const bad = await searchError(provider());
    expect(bad.kind).toBe('bad_response');
  });

  it('rejects bad options', () => {
    expect(() => createBraveProvider({ apiKey: '' })).toThrow(TypeError);
    expect(() => createBraveProvider({ apiKey: KEY, safesearch: 'max' as 'off' })).toThrow(RangeError);
    expect(() => createBraveProvider({ apiKey: KEY, baseUrl: 'nope' })).toThrow(TypeError);
  });
});
