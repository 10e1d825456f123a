import { describe, expect, it } from 'vitest';
import {
  createWikipediaProvider,
  wikipediaArticleUrl,
} from '../../src/pipeline/search/providers/wikipedia.ts';
import { call, json, searchError, useServer } from './helpers.ts';

// Shape of action=query&list=search&format=json&formatversion=2 (mediawiki.org API:Search).
const SEARCH_RESPONSE = {
  batchcomplete: true,
  continue: { sroffset: 2, continue: '-||' },
  query: {
    searchinfo: { totalhits: 5060 },
    search: [
      {
        ns: 0,
        title: 'Albert Einstein',
        pageid: 736,
        snippet:
          '<span class="searchmatch">Albert</span> <span class="searchmatch">Einstein</span> (14 March 1879 – 18 April 1955) was a German-born theoretical physicist &quot;best known&quot; for',
        timestamp: '2024-05-01T12:00:00Z',
      },
      {
        ns: 0,
        title: 'C++ (programming language)',
        pageid: 72038,
        snippet: 'C++ &amp; friends',
        timestamp: '2024-04-01T12:00:00Z',
      },
      { ns: 0, title: 'AC/DC', pageid: 2, snippet: '', timestamp: '2024-04-01T12:00:00Z' },
    ],
  },
};

const server = useServer();

function provider(options: Parameters<typeof createWikipediaProvider>[0] = {}) {
  return createWikipediaProvider({ apiUrl: `${server.url}/w/api.php`, ...options });
}

describe('Wikipedia provider', () => {
  it('sends the MediaWiki search request with a descriptive User-Agent and maps results', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const ua = 'my-agent/1.0 (https://example.com/contact; ops@example.com) citewise/0.1';
    const hits = await provider({ userAgent: ua }).search({ query: 'einstein', limit: 3 }, call());
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/w/api.php');
    expect(Object.fromEntries(req.query)).toEqual({
      action: 'query',
      list: 'search',
      srsearch: 'einstein',
      srlimit: '3',
      srprop: 'snippet|timestamp',
      format: 'json',
      formatversion: '2',
      utf8: '1',
    });
    expect(req.headers['user-agent']).toBe(ua);

    expect(hits).toEqual([
      {
        url: 'https://en.wikipedia.org/wiki/Albert_Einstein',
        title: 'Albert Einstein',
        snippet:
          'Albert Einstein (14 March 1879 – 18 April 1955) was a German-born theoretical physicist "best known" for',
        provider: 'wikipedia',
      },
      {
        url: 'https://en.wikipedia.org/wiki/C%2B%2B_(programming_language)',
        title: 'C++ (programming language)',
        snippet: 'C++ & friends',
        provider: 'wikipedia',
      },
      {
        url: 'https://en.wikipedia.org/wiki/AC/DC',
        title: 'AC/DC',
        snippet: undefined,
        provider: 'wikipedia',
      },
    ]);
  });

  it('builds article URLs for the configured language', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ language: 'de' }).search({ query: 'einstein', limit: 1 }, call());
    expect(hits[0]!.url).toBe('https://de.wikipedia.org/wiki/Albert_Einstein');
    expect(wikipediaArticleUrl('https://ja.wikipedia.org/wiki/', '東京 タワー')).toBe(
      'https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC_%E3%82%BF%E3%83%AF%E3%83%BC',
    );
  });

  it('skips the request when domain filters exclude Wikipedia', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider().search(
      { query: 'x', limit: 5, filters: { includeDomains: ['example.com'] } },
      call(),
    );
    expect(hits).toEqual([]);
    expect(server.requests).toHaveLength(0);
    const kept = await provider().search(
      { query: 'x', limit: 5, filters: { includeDomains: ['wikipedia.org'] } },
      call(),
    );
    expect(kept).toHaveLength(3);
  });

  it('maps the maxlag API error (HTTP 200) to a rate limit with Retry-After', async () => {
    server.handle((_req, res) =>
      json(
        res,
        200,
        {
          error: { code: 'maxlag', info: 'Waiting for 10.64.16.27: 7 seconds lagged.', lag: 7 },
          servedby: 'mw1',
        },
        { 'retry-after': '5', 'mediawiki-api-error': 'maxlag' },
      ),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(5000);
  });

  it('maps other API errors to bad_request', async () => {
    server.handle((_req, res) =>
      json(res, 200, { error: { code: 'badvalue', info: 'Unrecognized value for parameter "srwhat".' } }),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('bad_request');
    expect(e.message).toContain('badvalue');
  });

  it('maps edge 429 (Retry-After), 503 and malformed JSON', async () => {
    server.handle((_req, res) => {
      res.writeHead(429, { 'retry-after': '60', 'content-type': 'text/html' });
      res.end('<html>Too many requests. Please respect our robot policy https://w.wiki/4wJS</html>');
    });
    const limited = await searchError(provider());
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBe(60_000);

    server.handle((_req, res) => json(res, 503, '<html>Wikimedia Error</html>'));
    expect((await searchError(provider())).kind).toBe('server');
    server.handle((_req, res) => json(res, 200, '{"query":'));
    expect((await searchError(provider())).kind).toBe('bad_response');
  });

  it('rejects bad options', () => {
    expect(() => createWikipediaProvider({ language: 'en.evil.com/' })).toThrow(RangeError);
    expect(() => createWikipediaProvider({ apiUrl: 'not a url' })).toThrow(TypeError);
  });
});
