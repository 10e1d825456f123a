import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { call, json, rejectionOf, startServer, type TestServer } from './helpers.ts';

// Response shape of SearXNG's /search?format=json (docs.searxng.org/dev/search_api.html).
const RESULTS = {
  query: 'rust async',
  number_of_results: 0,
  results: [
    {
      url: 'https://tokio.rs/tokio/tutorial',
      title: 'Tutorial | Tokio',
      content: 'Tokio is an asynchronous runtime for the Rust programming language.',
      engine: 'duckduckgo',
      engines: ['duckduckgo', 'brave'],
      parsed_url: ['https', 'tokio.rs', '/tokio/tutorial', '', '', ''],
      score: 4.5,
      category: 'general',
      publishedDate: '2024-03-01T10:00:00',
    },
    {
      url: 'https://rust-lang.github.io/async-book/',
      title: 'Asynchronous Programming in Rust &amp; more',
      content: 'The async book',
      engine: 'brave',
      score: 2,
      publishedDate: null,
    },
    { url: 'https://example.org/third', title: 'Third', content: '', engine: 'brave', score: 1 },
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: [],
  unresponsive_engines: [],
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('SearXNG provider', () => {
  it('sends GET /search?format=json with the configured parameters and maps results', async () => {
    server.handle((_req, res) => json(res, 200, RESULTS));
    const provider = createSearxngProvider({
      baseUrl: server.url,
      engines: ['duckduckgo', 'brave'],
      categories: ['general', 'it'],
      language: 'en-US',
      safesearch: 1,
      userAgent: 'test-agent/1.0',
    });
    const hits = await provider.search({ query: 'rust async', limit: 2 }, call());

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/search');
    expect(req.query.get('q')).toBe('rust async');
    expect(req.query.get('format')).toBe('json');
    expect(req.query.get('engines')).toBe('duckduckgo,brave');
    expect(req.query.get('categories')).toBe('general,it');
    expect(req.query.get('language')).toBe('en-US');
    expect(req.query.get('safesearch')).toBe('1');
    expect(req.headers['user-agent']).toBe('test-agent/1.0');

    expect(provider.id).toBe('searxng');
    expect(hits).toEqual([
      {
        url: 'https://tokio.rs/tokio/tutorial',
        title: 'Tutorial | Tokio',
        snippet: 'Tokio is an asynchronous runtime for the Rust programming language.',
        publishedAt: '2024-03-01T10:00:00.000Z',
        score: 4.5,
        provider: 'searxng',
      },
      {
        url: 'https://rust-lang.github.io/async-book/',
        title: 'Asynchronous Programming in Rust & more',
        snippet: 'The async book',
        publishedAt: undefined,
        score: 2,
        provider: 'searxng',
      },
    ]);
  });

  it('keeps a path prefix of the base URL and applies language and domain filters', async () => {
    server.handle((_req, res) => json(res, 200, RESULTS));
    const provider = createSearxngProvider({ baseUrl: `${server.url}/searx/` });
    const hits = await provider.search(
      { query: 'tokio', limit: 10, filters: { includeDomains: ['tokio.rs'], language: 'de' } },
      call(),
    );
    const req = server.requests[0]!;
    expect(req.path).toBe('/searx/search');
    expect(req.query.get('q')).toBe('tokio site:tokio.rs');
    expect(req.query.get('language')).toBe('de');
    expect(req.query.get('categories')).toBe('general');
    expect(hits.map((h) => h.url)).toEqual(['https://tokio.rs/tokio/tutorial']);
  });

  it('explains how to enable JSON when the instance answers 403', async () => {
    server.handle((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html' });
      res.end('<html><body>403 Forbidden</body></html>');
    });
    const error = await rejectionOf(
      createSearxngProvider({ baseUrl: server.url }).search({ query: 'q', limit: 5 }, call()),
    );
    expect(error).toBeInstanceOf(SearchProviderError);
    const e = error as SearchProviderError;
    expect(e.kind).toBe('config');
    expect(e.providerId).toBe('searxng');
    expect(e.httpStatus).toBe(403);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('search.formats');
    expect(e.message).toContain('settings.yml');
    expect(e.message).toContain('json');
  });

  it('maps 429 with Retry-After to a retryable rate limit', async () => {
    server.handle((_req, res) => {
      res.writeHead(429, { 'retry-after': '30', 'content-type': 'text/plain' });
      res.end('Too Many Requests');
    });
    const e = (await rejectionOf(
      createSearxngProvider({ baseUrl: server.url }).search({ query: 'q', limit: 5 }, call()),
    )) as SearchProviderError;
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(30_000);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('retry after 30 s');
  });

  it('maps 5xx to a retryable server error', async () => {
    server.handle((_req, res) => json(res, 502, { error: 'bad gateway' }));
    const e = (await rejectionOf(
      createSearxngProvider({ baseUrl: server.url }).search({ query: 'q', limit: 5 }, call()),
    )) as SearchProviderError;
    expect(e.kind).toBe('server');
    expect(e.httpStatus).toBe(502);
    expect(e.retryable).toBe(true);
  });

  it('reports malformed JSON and a missing result list as bad responses', async () => {
    server.handle((_req, res) => json(res, 200, '{"results": [ {"url": '));
    const provider = createSearxngProvider({ baseUrl: server.url });
    const malformed = (await rejectionOf(
      provider.search({ query: 'q', limit: 5 }, call()),
    )) as SearchProviderError;
    expect(malformed.kind).toBe('bad_response');
    expect(malformed.message).toContain('malformed JSON');

    server.handle((_req, res) => json(res, 200, { query: 'q' }));
    const shapeless = (await rejectionOf(
      provider.search({ query: 'q', limit: 5 }, call()),
    )) as SearchProviderError;
    expect(shapeless.kind).toBe('bad_response');
  });

  it('says which engines failed instead of returning silently empty', async () => {
    server.handle((_req, res) =>
      json(res, 200, {
        ...RESULTS,
        results: [],
        unresponsive_engines: [
          ['google', 'CAPTCHA'],
          ['bing', 'timeout'],
        ],
      }),
    );
    const e = (await rejectionOf(
      createSearxngProvider({ baseUrl: server.url }).search({ query: 'q', limit: 5 }, call()),
    )) as SearchProviderError;
    expect(e.kind).toBe('blocked');
    expect(e.message).toContain('google: CAPTCHA');
    expect(e.message).toContain('bing: timeout');
  });

  it('returns an empty list when the instance found nothing', async () => {
    server.handle((_req, res) => json(res, 200, { ...RESULTS, results: [] }));
    expect(
      await createSearxngProvider({ baseUrl: server.url }).search({ query: 'q', limit: 5 }, call()),
    ).toEqual([]);
  });

  it('rejects bad options', () => {
    expect(() => createSearxngProvider({ baseUrl: '' })).toThrow(TypeError);
    expect(() => createSearxngProvider({ baseUrl: 'ftp://host' })).toThrow(TypeError);
    expect(() => createSearxngProvider({ baseUrl: 'http://user:pw@host' })).toThrow(/credentials/);
    expect(() => createSearxngProvider({ baseUrl: 'http://host', safesearch: 3 as 1 })).toThrow(RangeError);
    expect(() => createSearxngProvider({ baseUrl: 'http://host', timeoutMs: 0 })).toThrow(RangeError);
  });
});
