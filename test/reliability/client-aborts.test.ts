/**
 * Aborts are the caller's, never the upstream's: a client that drops its connection, or a deadline that
 * passes, must not open the circuit of a healthy (if slow) upstream. Reproduces the outage where one key
 * sent a few searches and dropped each connection after 100 ms, and every other tenant then got
 * `503 the upstream searxng is failing`.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/index.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import { withResilience, type ResilienceEvent } from '../../src/resilience/index.ts';
import { listenOnLoopback, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { engineWithKey, postSearch } from './helpers.ts';

/** How long the (healthy) search upstream takes to answer. */
const UPSTREAM_DELAY_MS = 400;
const THRESHOLD = 3;

let searxng: LoopbackServer;

beforeAll(async () => {
  searxng = await startLoopbackServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: 'tea',
          results: [{ url: 'https://tea.test/green', title: 'Green tea', content: 'Green tea is a tea.' }],
        }),
      );
    }, UPSTREAM_DELAY_MS);
  });
});
afterAll(() => searxng.close());

function resilientSearxng(events: ResilienceEvent[]) {
  return withResilience(createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 5_000 }), {
    retries: 2,
    baseDelayMs: 10,
    maxDelayMs: 20,
    circuitBreaker: { threshold: THRESHOLD, halfOpenAfterMs: 60_000 },
    onEvent: (event) => events.push(event),
  });
}

/**
 * An upstream client that, like many SDKs, reports an aborted call as a plain Error rather than an
 * AbortError: only the caller's signal tells that the abort was ours.
 */
function sdkLike(provider: SearchProvider): SearchProvider {
  return {
    id: provider.id,
    async search(query, call) {
      try {
        return await provider.search(query, call);
      } catch (cause) {
        throw new Error('request failed', { cause });
      }
    },
  };
}

describe('client aborts are not upstream failures', () => {
  it('searches dropped by their client after 100 ms leave the circuit closed for other tenants', async () => {
    const events: ResilienceEvent[] = [];
    const provider = resilientSearxng(events);
    const attacker = await engineWithKey({ search: provider, fetcher: false, extractor: false });
    const { key: otherKey } = await attacker.engine.createKey({ credits: 10 });
    const server = await listenOnLoopback(createServer(createNodeHandler(attacker.engine)));
    try {
      const before = await attacker.balance();
      for (let i = 0; i < THRESHOLD + 2; i++) {
        await expect(
          postSearch(server.baseUrl, attacker.key, { prompt: 'green tea' }, AbortSignal.timeout(100)),
        ).rejects.toThrow();
      }
      // Let the server notice each disconnect and settle its searches.
      await new Promise((resolve) => setTimeout(resolve, UPSTREAM_DELAY_MS + 200));
      expect(provider.circuitState).toBe('closed');
      expect(events.filter((event) => event.type === 'retry')).toEqual([]);
      expect(await attacker.balance()).toBe(before);

      const response = await postSearch(server.baseUrl, otherKey, { prompt: 'green tea' });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('a deadline that passes during the upstream call is not counted either', async () => {
    const events: ResilienceEvent[] = [];
    const provider = withResilience(
      sdkLike(createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 5_000 })),
      {
        retries: 2,
        baseDelayMs: 10,
        circuitBreaker: { threshold: THRESHOLD },
        onEvent: (e) => events.push(e),
      },
    );
    for (let i = 0; i < THRESHOLD + 1; i++) {
      await expect(
        provider.search({ query: 'tea', limit: 5 }, { signal: AbortSignal.timeout(50), requestId: `r${i}` }),
      ).rejects.toThrow();
    }
    expect(provider.circuitState).toBe('closed');
    expect(events).toEqual([]);
  });

  it("the upstream's own timeout still counts: its circuit opens", async () => {
    const events: ResilienceEvent[] = [];
    // The upstream answers after 400 ms; its own per-request timeout is 100 ms; the caller waits.
    const provider = withResilience(createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 100 }), {
      retries: 0,
      circuitBreaker: { threshold: THRESHOLD, halfOpenAfterMs: 60_000 },
      onEvent: (event) => events.push(event),
    });
    for (let i = 0; i < THRESHOLD; i++) {
      await expect(
        provider.search(
          { query: 'tea', limit: 5 },
          { signal: new AbortController().signal, requestId: `t${i}` },
        ),
      ).rejects.toMatchObject({ code: 'timeout' });
    }
    expect(provider.circuitState).toBe('open');
    expect(events.map((event) => event.type)).toContain('circuit_open');
  });

  it('an aborted trial call does not re-open the circuit', async () => {
    const events: ResilienceEvent[] = [];
    let failing = true;
    const flaky: SearchProvider = {
      id: 'flaky',
      async search(query, call) {
        if (failing) throw Object.assign(new Error('upstream 502'), { status: 502 });
        return sdkLike(createSearxngProvider({ baseUrl: searxng.origin, timeoutMs: 5_000 })).search(
          query,
          call,
        );
      },
    };
    const provider = withResilience(flaky, {
      retries: 0,
      circuitBreaker: { threshold: 1, halfOpenAfterMs: 50 },
      onEvent: (event) => events.push(event),
    });
    const call = () => ({ signal: new AbortController().signal, requestId: 'r' });
    await expect(provider.search({ query: 'tea', limit: 5 }, call())).rejects.toThrow('upstream 502');
    expect(provider.circuitState).toBe('open');
    failing = false;
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The trial call's client goes away while the (healthy) upstream is still answering.
    await expect(
      provider.search({ query: 'tea', limit: 5 }, { signal: AbortSignal.timeout(50), requestId: 'probe' }),
    ).rejects.toThrow();
    expect(provider.circuitState).not.toBe('open');
    await expect(provider.search({ query: 'tea', limit: 5 }, call())).resolves.toHaveLength(1);
  });
});
