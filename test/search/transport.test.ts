/** Timeouts, caller aborts, unreachable hosts and oversized bodies — shared by every HTTP provider. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBraveProvider } from '../../src/pipeline/search/providers/brave.ts';
import { createDuckDuckGoProvider } from '../../src/pipeline/search/providers/duckduckgo.ts';
import { createExaProvider } from '../../src/pipeline/search/providers/exa.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import { createSerperProvider } from '../../src/pipeline/search/providers/serper.ts';
import { createTavilyProvider } from '../../src/pipeline/search/providers/tavily.ts';
import { createWikipediaProvider } from '../../src/pipeline/search/providers/wikipedia.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import { call, json, rejectionOf, startServer, type TestServer } from './helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** Every provider, pointed at `baseUrl`. */
function allProviders(baseUrl: string, timeoutMs: number): SearchProvider[] {
  return [
    createSearxngProvider({ baseUrl, timeoutMs }),
    createBraveProvider({ apiKey: 'k-brave', baseUrl, timeoutMs }),
    createTavilyProvider({ apiKey: 'k-tavily', baseUrl, timeoutMs }),
    createSerperProvider({ apiKey: 'k-serper', baseUrl, timeoutMs }),
    createExaProvider({ apiKey: 'k-exa', baseUrl, timeoutMs }),
    createWikipediaProvider({ apiUrl: `${baseUrl}/w/api.php`, timeoutMs }),
    createDuckDuckGoProvider({ baseUrl, timeoutMs }),
  ];
}

/** A handler that accepts the request and never answers (the socket is destroyed when the server closes). */
const neverAnswer = () => undefined;

describe('provider transport', () => {
  it('turns a provider that never answers into a retryable timeout error', async () => {
    server.handle(neverAnswer);
    for (const provider of allProviders(server.url, 50)) {
      const error = await rejectionOf(provider.search({ query: 'q', limit: 3 }, call()));
      expect(error, provider.id).toBeInstanceOf(SearchProviderError);
      const e = error as SearchProviderError;
      expect(e.kind, provider.id).toBe('timeout');
      expect(e.code).toBe('timeout');
      expect(e.providerId).toBe(provider.id);
      expect(e.retryable).toBe(true);
    }
  });

  it('times out a body that starts but never finishes', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"results": [');
    });
    const e = (await rejectionOf(
      createSearxngProvider({ baseUrl: server.url, timeoutMs: 50 }).search({ query: 'q', limit: 3 }, call()),
    )) as SearchProviderError;
    expect(e.kind).toBe('timeout');
  });

  it("re-throws the caller's abort reason instead of a provider error", async () => {
    server.handle(neverAnswer);
    for (const provider of allProviders(server.url, 60_000)) {
      const controller = new AbortController();
      const pending = provider.search({ query: 'q', limit: 3 }, call(controller.signal));
      const reason = new DOMException('client went away', 'AbortError');
      setImmediate(() => controller.abort(reason));
      const error = await rejectionOf(pending);
      expect(error, provider.id).toBe(reason);
    }
  });

  it('does not send anything when the signal is already aborted', async () => {
    server.handle((_req, res) => json(res, 200, { results: [] }));
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(
      createSearxngProvider({ baseUrl: server.url }).search(
        { query: 'q', limit: 3 },
        call(controller.signal),
      ),
    );
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(0);
  });

  it('reports an unreachable provider as a retryable network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const e = (await rejectionOf(
      createBraveProvider({ apiKey: 'secret-key-value', baseUrl: `http://127.0.0.1:${port}` }).search(
        { query: 'q', limit: 3 },
        call(),
      ),
    )) as SearchProviderError;
    expect(e.kind).toBe('network');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.message).not.toContain('secret-key-value');
  });

  it('refuses a body larger than maxResponseBytes', async () => {
    server.handle((_req, res) =>
      json(res, 200, { results: [{ url: 'https://e.com', title: 'x'.repeat(5000) }] }),
    );
    const e = (await rejectionOf(
      createSearxngProvider({ baseUrl: server.url, maxResponseBytes: 1000 }).search(
        { query: 'q', limit: 3 },
        call(),
      ),
    )) as SearchProviderError;
    expect(e.kind).toBe('bad_response');
    expect(e.message).toContain('more than 1000 bytes');
  });

  it('uses an injected fetch', async () => {
    server.handle((_req, res) =>
      json(res, 200, { type: 'search', web: { results: [{ url: 'https://e.com/', title: 'E' }] } }),
    );
    const seen: string[] = [];
    const { fetch: undiciFetch } = await import('undici');
    const provider = createBraveProvider({
      apiKey: 'k',
      baseUrl: server.url,
      fetch: (input, init) => {
        // Providers always pass a URL object.
        seen.push((input as URL).href);
        return undiciFetch(input, init);
      },
    });
    const hits = await provider.search({ query: 'q', limit: 3 }, call());
    expect(hits.map((h) => h.url)).toEqual(['https://e.com/']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('/res/v1/web/search?q=q');
  });

  it('rejects a non-positive limit and an empty query without a request', async () => {
    server.handle((_req, res) => json(res, 200, { results: [] }));
    const provider = createSearxngProvider({ baseUrl: server.url });
    expect(await rejectionOf(provider.search({ query: 'q', limit: 0 }, call()))).toBeInstanceOf(RangeError);
    expect(await rejectionOf(provider.search({ query: '  ', limit: 5 }, call()))).toBeInstanceOf(RangeError);
    expect(server.requests).toHaveLength(0);
  });
});
