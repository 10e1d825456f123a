import { describe, expect, it } from 'vitest';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { call, json, rejectionOf, searchError, useServer } from './helpers.ts';

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

const server = useServer();

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
    const e = await searchError(createSearxngProvider({ baseUrl: server.url }));
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(30_000);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('retry after 30 s');
  });

  it('maps 5xx to a retryable server error', async () => {
    server.handle((_req, res) => json(res, 502, { error: 'bad gateway' }));
    const e = await searchError(createSearxngProvider({ baseUrl: server.url }));
    expect(e.kind).toBe('server');
    expect(e.httpStatus).toBe(502);
    expect(e.retryable).toBe(true);
  });

  it('reports malformed JSON and a missing result list as bad responses', async () => {
    server.handle((_req, res) => json(res, 200, '{"results": [ {"url": '));
    const provider = createSearxngProvider({ baseUrl: server.url });
    const malformed = await searchError(provider);
    expect(malformed.kind).toBe('bad_response');
    expect(malformed.message).toContain('malformed JSON');

    server.handle((_req, res) => json(res, 200, { query: 'q' }));
    const shapeless = await searchError(provider);
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
    const e = await searchError(createSearxngProvider({ baseUrl: server.url }));
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

  describe('pages', () => {
    const page = (n: number, count: number) => ({
      ...RESULTS,
      results: Array.from({ length: count }, (_, i) => ({
        url: `https://example.org/p${n}/${i}`,
        title: `Page ${n} result ${i}`,
        content: 'text',
        engine: 'brave',
      })),
    });

    it('asks for one page by default, whatever the limit', async () => {
      server.handle((_req, res) => json(res, 200, page(1, 10)));
      const hits = await createSearxngProvider({ baseUrl: server.url }).search(
        { query: 'q', limit: 40 },
        call(),
      );
      expect(server.requests.map((r) => r.query.get('pageno'))).toEqual(['1']);
      expect(hits).toHaveLength(10);
    });

    it('reads pages 2…N when the first holds fewer results than the limit, in page order', async () => {
      server.handle((req, res) => json(res, 200, page(Number(req.query.get('pageno')), 10)));
      const hits = await createSearxngProvider({ baseUrl: server.url, pages: 4 }).search(
        { query: 'q', limit: 35 },
        call(),
      );
      expect(server.requests.map((r) => r.query.get('pageno')).sort()).toEqual(['1', '2', '3', '4']);
      expect(hits).toHaveLength(35);
      expect(hits[0]?.url).toBe('https://example.org/p1/0');
      expect(hits[10]?.url).toBe('https://example.org/p2/0');
      expect(hits[34]?.url).toBe('https://example.org/p4/4');
    });

    it('does not ask for more pages when the first is enough or empty', async () => {
      server.handle((_req, res) => json(res, 200, page(1, 12)));
      await createSearxngProvider({ baseUrl: server.url, pages: 3 }).search({ query: 'q', limit: 5 }, call());
      expect(server.requests).toHaveLength(1);
      server.handle((_req, res) => json(res, 200, page(1, 0)));
      const none = await createSearxngProvider({ baseUrl: server.url, pages: 3 }).search(
        { query: 'q', limit: 5 },
        call(),
      );
      expect(none).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });

    it('keeps the first page when a later page fails, and drops repeated URLs', async () => {
      server.handle((req, res) => {
        const n = Number(req.query.get('pageno'));
        if (n === 2) return json(res, 500, { error: 'engine down' });
        // Page 3 repeats a result of page 1, as SearXNG pages sometimes do.
        return json(
          res,
          200,
          n === 3 ? { ...page(3, 2), results: [...page(1, 1).results, ...page(3, 2).results] } : page(1, 3),
        );
      });
      const hits = await createSearxngProvider({ baseUrl: server.url, pages: 3 }).search(
        { query: 'q', limit: 20 },
        call(),
      );
      expect(hits.map((h) => h.url)).toEqual([
        'https://example.org/p1/0',
        'https://example.org/p1/1',
        'https://example.org/p1/2',
        'https://example.org/p3/0',
        'https://example.org/p3/1',
      ]);
    });

    it('rejects a pages value outside 1–10', () => {
      expect(() => createSearxngProvider({ baseUrl: 'http://host', pages: 0 })).toThrow(RangeError);
      expect(() => createSearxngProvider({ baseUrl: 'http://host', pages: 11 })).toThrow(RangeError);
      expect(() => createSearxngProvider({ baseUrl: 'http://host', pages: 1.5 })).toThrow(RangeError);
    });
  });
});
