import { describe, expect, it } from 'vitest';
import {
  createDuckDuckGoProvider,
  parseDuckDuckGoHtml,
  unwrapDuckDuckGoHref,
} from '../../src/pipeline/search/providers/duckduckgo.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { USER_AGENT } from '../../src/package-info.ts';
import { call, html, searchError, useServer } from './helpers.ts';

const redirect = (target: string) => `//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=abc123`;

// Structure of the page html.duckduckgo.com/html/ serves: .result blocks, a.result__a redirect links, ads marked.
const RESULTS_PAGE = `<!DOCTYPE html>
<html><head><title>rust borrow checker at DuckDuckGo</title></head>
<body>
<form id="search_form" name="x" action="/html/" method="post"><input name="q" value="rust borrow checker"></form>
<div id="links" class="results">
  <div class="result results_links results_links_deep result--ad">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://ads.example/landing?campaign=1">Sponsored thing</a></h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?x=1">Buy now</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="${redirect('https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html?a=1&b=2')}">References and Borrowing - The Rust Programming Language</a>
      </h2>
      <div class="result__extras"><a class="result__url" href="${redirect('https://doc.rust-lang.org/book/')}">doc.rust-lang.org/book</a></div>
      <a class="result__snippet" href="${redirect('https://doc.rust-lang.org/book/')}">The <b>borrow</b> <b>checker</b> &amp; references: rules that the compiler enforces.</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="${redirect('https://blog.example.com/borrowck')}">Understanding the borrow checker &#8211; a guide</a></h2>
      <a class="result__snippet" href="${redirect('https://blog.example.com/borrowck')}">A friendly guide.</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://direct.example.org/page">Direct link</a></h2>
    </div>
  </div>
</div>
</body></html>`;

// The bot-challenge page DuckDuckGo serves to clients it suspects.
const ANOMALY_PAGE = `<!DOCTYPE html><html><body>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST">
  <div class="anomaly-modal__mask"><div class="anomaly-modal__modal">
    <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
    <div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
  </div></div>
</form></body></html>`;

const NO_RESULTS_PAGE = `<!DOCTYPE html><html><body>
<form id="search_form" name="x"><input name="q" value="zzqxv"></form>
<div id="links" class="results"><div class="no-results">No results found for <b>zzqxv</b>.</div></div>
</body></html>`;

const server = useServer();

describe('DuckDuckGo HTML provider', () => {
  it('POSTs the form to /html/ and unwraps result links, skipping ads', async () => {
    server.handle((_req, res) => html(res, 200, RESULTS_PAGE));
    const provider = createDuckDuckGoProvider({ baseUrl: server.url, region: 'de-de', safesearch: 'strict' });
    const hits = await provider.search({ query: 'rust borrow checker', limit: 10 }, call());
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/html/');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers['user-agent']).toBe(USER_AGENT);
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      q: 'rust borrow checker',
      kl: 'de-de',
      kp: '1',
    });

    expect(hits).toEqual([
      {
        url: 'https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html?a=1&b=2',
        title: 'References and Borrowing - The Rust Programming Language',
        snippet: 'The borrow checker & references: rules that the compiler enforces.',
        provider: 'duckduckgo',
      },
      {
        url: 'https://blog.example.com/borrowck',
        title: 'Understanding the borrow checker – a guide',
        snippet: 'A friendly guide.',
        provider: 'duckduckgo',
      },
      {
        url: 'https://direct.example.org/page',
        title: 'Direct link',
        snippet: undefined,
        provider: 'duckduckgo',
      },
    ]);
  });

  it('honours limit and domain filters (site: in the query, filter on the answer)', async () => {
    server.handle((_req, res) => html(res, 200, RESULTS_PAGE));
    const provider = createDuckDuckGoProvider({ baseUrl: server.url });
    const hits = await provider.search(
      { query: 'borrow', limit: 1, filters: { includeDomains: ['example.com', 'example.org'] } },
      call(),
    );
    expect(new URLSearchParams(server.requests[0]!.body).get('q')).toBe(
      'borrow (site:example.com OR site:example.org)',
    );
    expect(hits.map((h) => h.url)).toEqual(['https://blog.example.com/borrowck']);
  });

  it('throws "blocked" on the anomaly page, also when served with 200', async () => {
    for (const status of [202, 200]) {
      server.handle((_req, res) => html(res, status, ANOMALY_PAGE));
      const e = await searchError(createDuckDuckGoProvider({ baseUrl: server.url }));
      expect(e).toBeInstanceOf(SearchProviderError);
      expect(e.kind).toBe('blocked');
      expect(e.providerId).toBe('duckduckgo');
      expect(e.retryable).toBe(true);
    }
  });

  it('treats 403/429 as blocked rather than as a bad key', async () => {
    server.handle((_req, res) => {
      res.writeHead(429, { 'retry-after': '20' });
      res.end();
    });
    const e = await searchError(createDuckDuckGoProvider({ baseUrl: server.url }));
    expect(e.kind).toBe('blocked');
    expect(e.retryAfterMs).toBe(20_000);
  });

  it('returns [] for a no-results page and fails on a page that is not a results page', async () => {
    server.handle((_req, res) => html(res, 200, NO_RESULTS_PAGE));
    const provider = createDuckDuckGoProvider({ baseUrl: server.url });
    expect(await provider.search({ query: 'zzqxv', limit: 5 }, call())).toEqual([]);

    server.handle((_req, res) => html(res, 200, '<html><body><p>Maintenance</p></body></html>'));
    const e = await searchError(provider);
    expect(e.kind).toBe('bad_response');
  });

  it('maps 5xx to a server error', async () => {
    server.handle((_req, res) => html(res, 500, 'oops'));
    const e = await searchError(createDuckDuckGoProvider({ baseUrl: server.url }));
    expect(e.kind).toBe('server');
  });
});

describe('DuckDuckGo helpers', () => {
  it.each([
    ['//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x', 'https://example.com/a?b=1'],
    ['https://duckduckgo.com/l/?uddg=http%3A%2F%2Fexample.com%2F', 'http://example.com/'],
    ['//duckduckgo.com/l/?uddg=javascript%3Aalert(1)', undefined],
    ['https://duckduckgo.com/y.js?ad_domain=x', undefined],
    ['https://example.net/direct', 'https://example.net/direct'],
    ['mailto:someone@example.com', undefined],
  ])('unwraps %s', (href, expected) => {
    expect(unwrapDuckDuckGoHref(href)).toBe(expected);
  });

  it('parses a page without the server', () => {
    expect(parseDuckDuckGoHtml(RESULTS_PAGE)).toHaveLength(3);
    expect(() => parseDuckDuckGoHtml(ANOMALY_PAGE)).toThrow(/bot challenge/);
  });
});
