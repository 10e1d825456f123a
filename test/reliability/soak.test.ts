/**
 * Soak: thousands of searches over real sockets (node:http adapter) against the local index, one in ten
 * also fetching and extracting a page from the local fixture web (a fresh URL each time, so the cache does
 * not hide the work). RSS after warm-up vs at the end, with a generous bound: a leak of a few KiB per
 * search would show, noise does not. Figure: searches / errors / RSS after warm-up → end.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createLocalIndexProvider } from '../../src/pipeline/search/local-index.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import { FIXTURE_HOST, fakeResolver, startFixtureWeb, type FixtureWeb } from '../fetch/fixture-web.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { heapMiB, recordFigure, rssMiB } from './figures.ts';
import { engineWithKey } from './helpers.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const SEARCHES = 3_000;
const WARM_UP = 300;
const CONCURRENCY = 8;
/** Generous: RSS may grow this much between warm-up and the end before we call it a leak. */
const GROWTH_BOUND_MIB = 256;
const PROMPTS = [
  'How hot is lava?',
  'green tea brewing temperature',
  'longest river',
  'what is a volcano',
  'oolong tea',
  'river delta',
];

let web: FixtureWeb;
beforeAll(async () => {
  web = await startFixtureWeb();
});
afterAll(async () => {
  await web.close();
});

it(`${SEARCHES} searches keep memory bounded`, async () => {
  const local = createLocalIndexProvider({ paths: [CORPUS] });
  let n = 0;
  // Every tenth search also brings a fixture page without text, which the engine fetches and extracts.
  const provider: SearchProvider = {
    id: 'soak',
    async search(query, call) {
      const hits = await local.search(query, call);
      return ++n % 10 === 0
        ? [...hits, { url: `${web.origin}/page.html?n=${n}`, title: 'Fixture', snippet: 'Hello fixture.' }]
        : hits;
    },
    close: async () => {
      await local.close?.();
    },
  };
  const { engine, key, balance } = await engineWithKey({
    search: provider,
    fetcher: createPageFetcher({
      resolver: fakeResolver({ [FIXTURE_HOST]: ['127.0.0.1'] }),
      allowPrivateHosts: [FIXTURE_HOST],
      robots: false,
    }),
    extractor: createContentExtractor({ workers: 1 }),
    // Each search holds its deadline timer (and the signals tied to it) until the deadline passes, even when
    // done; a shorter deadline keeps that in-flight garbage from swamping what the soak looks for.
    requestTimeoutMs: 5_000,
  });
  const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
  const url = `${server.baseUrl}/v1/search`;
  const startBalance = await balance();

  let next = 0;
  let errors = 0;
  // Searches whose answer has sources (every search found pages, so every one is charged, cited or not).
  let sourced = 0;
  let rssAfterWarmUp = 0;
  let heapAfterWarmUp = 0;
  let peak = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < SEARCHES) {
      const i = next++;
      if (i === WARM_UP) {
        rssAfterWarmUp = rssMiB();
        heapAfterWarmUp = heapMiB();
      }
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          prompt: `${PROMPTS[i % PROMPTS.length]} ${i}`,
          response_type: i % 2 ? 'text' : 'markdown',
        }),
      });
      const body = (await response.json()) as { answer?: unknown; sources?: unknown[] };
      if (response.status !== 200 || typeof body.answer !== 'string') errors++;
      if ((body.sources?.length ?? 0) > 0) sourced++;
      if (i % 100 === 0) peak = Math.max(peak, rssMiB());
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await server.close();
  }
  const rssAtEnd = rssMiB();
  const heapAtEnd = heapMiB();
  const seconds = (performance.now() - started) / 1000;
  const charged = startBalance - (await balance());
  await engine.close();

  recordFigure('soak', {
    area: 'Soak',
    values: {
      searches: SEARCHES,
      'page fetches': Math.floor(SEARCHES / 10),
      errors,
      'credits charged': charged,
      'RSS after warm-up (MiB)': rssAfterWarmUp,
      'RSS at end (MiB)': rssAtEnd,
      'peak RSS (MiB)': Math.max(peak, rssAtEnd),
      'JS heap after warm-up → end (MiB)': `${heapAfterWarmUp} → ${heapAtEnd}`,
      'searches/s': Math.round(SEARCHES / seconds),
    },
    mustBeZero: ['errors'],
  });
  expect(errors).toBe(0);
  expect(sourced).toBeGreaterThan(0);
  expect(charged).toBe(SEARCHES);
  expect(rssAtEnd - rssAfterWarmUp).toBeLessThan(GROWTH_BOUND_MIB);
}, 240_000);
