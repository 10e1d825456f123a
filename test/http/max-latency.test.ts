/**
 * The `max_latency_ms` request extension over real HTTP (node:http adapter), the server's warm-up of the
 * extraction workers, and the latency page of the manual against the code's defaults.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { MAX_LATENCY_MS_RANGE } from '../../src/contract/search.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createWorkerPool } from '../../src/scheduling/worker-pool.ts';
import { DEFAULT_MAX_LATENCY_MS, DEFAULT_STRAGGLER_GRACE_MS } from '../../src/pipeline/run.ts';
import type { PageFetcher } from '../../src/pipeline/types.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const HITS = [
  {
    url: 'https://hung.example.com/bell-rock',
    title: 'Bell Rock',
    snippet: 'The Bell Rock lighthouse was built by Robert Stevenson between 1807 and 1810.',
  },
  { url: 'https://hung.example.org/coast', title: 'Coast', snippet: 'Lighthouses stand on rocky coasts.' },
];

const provider = fakeSearchProvider(HITS, { id: 'fixed' });

/** Pages that never answer (until the caller gives up). */
function hungFetcher(stopped: string[]): PageFetcher {
  return {
    fetch: (url, call) =>
      new Promise((_, reject) => {
        call.signal.addEventListener(
          'abort',
          () => {
            stopped.push(url.href);
            reject(new Error('stopped', { cause: call.signal.reason }));
          },
          { once: true },
        );
      }),
  };
}

describe('max_latency_ms', () => {
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function setup(stopped: string[]) {
    // Every wait but the latency budget is far longer than the test's own timeout: only the budget can
    // end this search in time.
    const engine = createSearchEngine({
      search: provider,
      fetcher: hungFetcher(stopped),
      extractor: { extract: async () => null },
      pageTimeoutMs: 120_000,
      requestTimeoutMs: 300_000,
      stragglerGraceMs: 120_000,
      maxLatencyMs: 120_000,
    });
    const { key } = await engine.createKey({ credits: 10 });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    return apiClient(server.baseUrl, key);
  }

  it('answers from the snippets when no page has arrived by max_latency_ms, and stops the fetches', async () => {
    const stopped: string[] = [];
    const { post, balance } = await setup(stopped);
    const response = await post({ prompt: 'Who built the Bell Rock lighthouse?', max_latency_ms: 300 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { answer: string; sources: string[] };
    expect(body.answer).toContain('Robert Stevenson');
    expect(body.sources).toContain('https://hung.example.com/bell-rock');
    expect(stopped.sort()).toEqual(HITS.map((hit) => hit.url).sort());
    expect(await balance()).toBe(9);
  });

  it.each([
    ['below the range', MAX_LATENCY_MS_RANGE.min - 1],
    ['above the range', MAX_LATENCY_MS_RANGE.max + 1],
    ['not an integer', 250.5],
    ['a string', '500'],
  ])('refuses a value %s with 400 naming the field, without charging', async (_, value) => {
    const { post, balance } = await setup([]);
    const response = await post({ prompt: 'Who built the Bell Rock lighthouse?', max_latency_ms: value });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        description: `Invalid request: max_latency_ms must be an integer from ${MAX_LATENCY_MS_RANGE.min} to ${MAX_LATENCY_MS_RANGE.max} (milliseconds)`,
        code: 'invalid_request',
      },
    });
    expect(await balance()).toBe(10);
  });

  it('the OpenAPI document describes the field as an extension with the server default', async () => {
    const engine = createSearchEngine({ search: provider });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    const document = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as {
      components: { schemas: { SearchRequest: { properties: Record<string, { description: string }> } } };
    };
    const field = document.components.schemas.SearchRequest.properties['max_latency_ms'];
    expect(field?.description).toMatch(/^Extension \(optional\)/);
    expect(field?.description).toContain(`(${DEFAULT_MAX_LATENCY_MS} unless configured)`);
  });
});

describe('warming the extraction workers', () => {
  it('starts every worker of the pool before any task arrives', async () => {
    const pool = createWorkerPool<unknown, unknown>({
      workerUrl: new URL('../../src/pipeline/extract/worker.ts', import.meta.url),
      size: 2,
    });
    try {
      expect(pool.stats.workers).toBe(0);
      await pool.warm({
        input: '<p>warm</p>',
        options: { url: 'https://warm.test/', contentType: 'text/html' },
      });
      expect(pool.stats).toEqual({ running: 0, queued: 0, workers: 2 });
    } finally {
      await pool.close();
    }
  });

  it("the content extractor's warm() leaves it ready to extract", async () => {
    const extractor = createContentExtractor({ workers: 1 });
    try {
      await extractor.warm?.();
      const content = await extractor.extract(
        {
          url: 'https://warm.test/page',
          requestedUrl: 'https://warm.test/page',
          status: 200,
          contentType: 'text/html',
          body: new TextEncoder().encode(
            '<html><body><article><h1>Lighthouse</h1><p>The Bell Rock lighthouse was built by Robert Stevenson between 1807 and 1810, off the coast of Angus in Scotland.</p></article></body></html>',
          ),
          headers: {},
        },
        { signal: new AbortController().signal, requestId: 'warm' },
      );
      expect(content?.text).toContain('Robert Stevenson');
    } finally {
      await extractor.close?.();
    }
  });
});

describe('the latency page of the manual', () => {
  const page = readFileSync(new URL('../../docs/reference/http-api-latency.md', import.meta.url), 'utf8');

  it('states the defaults and the range the code uses', () => {
    expect(page).toContain(
      `| \`maxLatencyMs\` | \`--max-latency <duration>\` | \`CITEWISE_MAX_LATENCY\` | ${DEFAULT_MAX_LATENCY_MS} ms |`,
    );
    expect(page).toContain(
      `| \`stragglerGraceMs\` | \`--straggler-grace <duration>\` | \`CITEWISE_STRAGGLER_GRACE\` | ${DEFAULT_STRAGGLER_GRACE_MS} ms |`,
    );
    expect(page).toContain(`integer, ${MAX_LATENCY_MS_RANGE.min}–${MAX_LATENCY_MS_RANGE.max}`);
    expect(page).toContain(
      `must be an integer from ${MAX_LATENCY_MS_RANGE.min} to ${MAX_LATENCY_MS_RANGE.max} (milliseconds)`,
    );
  });
});
