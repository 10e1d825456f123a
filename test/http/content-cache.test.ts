/**
 * The content cache over real HTTP: a page read again by a later search costs no extraction (the extractor
 * is spied), and the ranker gets the same extracted object (its passages and tokens are kept by object);
 * changed bytes are extracted again; `no-store` pages are shared only by searches reading them at the same
 * moment. Then the cache alone: its byte bound, and an abandoned extraction aborted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createContentExtractor, withContentCache } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import type {
  ContentExtractor,
  ExtractedContent,
  FetchedPage,
  PassageRanker,
  SearchProvider,
} from '../../src/pipeline/types.ts';
import { FIXTURE_HOST, fakeResolver } from '../fetch/fixture-web.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';

const LIGHTHOUSE =
  'The Bell Rock lighthouse stands on a reef off the coast of Angus. Robert Stevenson built the Bell Rock ' +
  'lighthouse between 1807 and 1810; it is the oldest surviving sea-washed lighthouse.';

/** A site of two articles; `version` changes the bytes of /a; `/slow-*` pages answer after 200 ms. */
async function startSite(cacheControl: string) {
  const state = { version: 1 };
  const server = await startLoopbackServer((req, res) => {
    const page = (text: string) =>
      `<html><head><title>${req.url}</title></head><body><article><h1>Bell Rock</h1><p>${text}</p></article></body></html>`;
    const send = () =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': cacheControl })
        .end(page(req.url?.endsWith('/a') ? `${LIGHTHOUSE} Version ${state.version}.` : LIGHTHOUSE));
    if (req.url?.startsWith('/slow-')) setTimeout(send, 200);
    else send();
  });
  return { server, state };
}

interface Spies {
  extracted: string[];
  ranked: ExtractedContent[][];
}

describe('the content cache, through a search engine over HTTP', () => {
  const open: { engine: SearchEngine; server: RunningServer; site: LoopbackServer }[] = [];
  afterEach(async () => {
    for (const { engine, server, site } of open.splice(0)) {
      await server.close();
      await engine.close();
      await site.close();
    }
  });

  async function setup(
    site: LoopbackServer,
    paths: string[],
    options: { pageCache?: boolean; contentCache?: false } = {},
  ) {
    const spies: Spies = { extracted: [], ranked: [] };
    const real = createContentExtractor({ workers: 0 });
    const extractor: ContentExtractor = {
      extract: (page, call) => {
        spies.extracted.push(new URL(page.url).pathname);
        return real.extract(page, call);
      },
    };
    const bm25 = createBm25Ranker();
    const ranker: PassageRanker = {
      rank: (query, docs, budget) => {
        spies.ranked.push([...docs]);
        return bm25.rank(query, docs, budget);
      },
    };
    const search: SearchProvider = {
      id: 'fixed',
      search: async () =>
        paths.map((path) => ({
          url: `http://${FIXTURE_HOST}:${site.port}${path}`,
          title: `Bell Rock ${path}`,
          snippet: 'A lighthouse.',
        })),
    };
    const engine = createSearchEngine({
      search,
      fetcher: createPageFetcher({
        resolver: fakeResolver({ [FIXTURE_HOST]: ['127.0.0.1'] }),
        allowPrivateHosts: [FIXTURE_HOST],
        robots: false,
        ...(options.pageCache === false ? { cache: false } : {}),
      }),
      extractor,
      ranker,
      ...(options.contentCache === false ? { contentCache: false } : {}),
    });
    const { key } = await engine.createKey({ credits: 100 });
    const server = await ADAPTERS['node:http']!(engine);
    open.push({ engine, server, site });
    const client = apiClient(server.baseUrl, key);
    const ask = async () => {
      const response = await client.post({ prompt: 'Who built the Bell Rock lighthouse?' });
      expect(response.status).toBe(200);
      return (await response.json()) as { answer: string };
    };
    return { spies, ask };
  }

  it('serves a second search without extraction, and hands the ranker the same objects', async () => {
    const { server: site } = await startSite('max-age=3600');
    const { spies, ask } = await setup(site, ['/a', '/b']);
    expect((await ask()).answer).toContain('Robert Stevenson');
    expect(spies.extracted.sort()).toEqual(['/a', '/b']);
    expect((await ask()).answer).toContain('Robert Stevenson');
    expect(spies.extracted).toHaveLength(2);
    // The same extracted objects: the ranker's passages and tokens of them (kept by object) are reused.
    const [first, second] = spies.ranked;
    expect(second).toHaveLength(2);
    second!.forEach((doc, i) => expect(doc).toBe(first![i]));
  });

  it('extracts a page again when its bytes changed, not when only the fetch was repeated', async () => {
    const { server: site, state } = await startSite('max-age=3600');
    // No page cache: every search fetches the pages again; the content cache decides by their bytes.
    const { spies, ask } = await setup(site, ['/a', '/b'], { pageCache: false });
    await ask();
    await ask();
    expect(spies.extracted.sort()).toEqual(['/a', '/b']);
    state.version = 2;
    await ask();
    expect(spies.extracted.sort()).toEqual(['/a', '/a', '/b']);
    expect(site.requests.filter((path) => path === '/a')).toHaveLength(3);
  });

  it('keeps no-store pages only for the searches reading them at the same moment', async () => {
    const { server: site } = await startSite('no-store');
    const { spies, ask } = await setup(site, ['/slow-a']);
    await ask();
    await ask();
    expect(spies.extracted).toEqual(['/slow-a', '/slow-a']);
    // Two searches at once: one fetch of the page, one extraction, shared.
    await Promise.all([ask(), ask()]);
    expect(spies.extracted).toEqual(['/slow-a', '/slow-a', '/slow-a']);
    expect(site.requests.filter((path) => path === '/slow-a')).toHaveLength(3);
  });

  it('contentCache: false extracts every page every time', async () => {
    const { server: site } = await startSite('max-age=3600');
    const { spies, ask } = await setup(site, ['/a'], { contentCache: false });
    await ask();
    await ask();
    expect(spies.extracted).toEqual(['/a', '/a']);
  });
});

describe('withContentCache', () => {
  const page = (url: string, text: string, headers: Record<string, string> = {}): FetchedPage => ({
    url,
    requestedUrl: url,
    status: 200,
    contentType: 'text/plain',
    body: new TextEncoder().encode(text),
    headers,
  });
  const call = (signal = new AbortController().signal) => ({ signal, requestId: 'cache-test' });
  const echo = (calls: string[]): ContentExtractor => ({
    extract: async (p) => {
      const text = new TextDecoder().decode(p.body);
      calls.push(p.url);
      return { url: p.url, title: 't', text, markdown: text };
    },
  });

  it('stays within its byte budget, least recently used out first', async () => {
    const calls: string[] = [];
    // Each 1,000-character entry counts 2 × 2,000 + 9 × 1,000 + 1,024 = 14,024 bytes: two fit in 30,000.
    const cache = withContentCache(echo(calls), { maxBytes: 30_000 });
    const text = 'x'.repeat(1_000);
    for (const url of ['https://a.test/1', 'https://a.test/2', 'https://a.test/1', 'https://a.test/3']) {
      await cache.extract(page(url, text), call());
    }
    expect(cache.stats.entries).toBe(2);
    await cache.extract(page('https://a.test/1', text), call());
    await cache.extract(page('https://a.test/2', text), call());
    // /2 was the least recently used when /3 came in.
    expect(calls).toEqual(['https://a.test/1', 'https://a.test/2', 'https://a.test/3', 'https://a.test/2']);
    expect(() => withContentCache(echo([]), { maxBytes: Infinity })).toThrow(RangeError);
  });

  it('aborts a shared extraction once every caller gave up, and a later caller extracts again', async () => {
    const aborted: unknown[] = [];
    let calls = 0;
    const slow: ContentExtractor = {
      extract: (_p, c) =>
        new Promise((_, reject) => {
          calls++;
          c.signal.addEventListener('abort', () => {
            aborted.push(c.signal.reason);
            reject(c.signal.reason as Error);
          });
        }),
    };
    const cache = withContentCache(slow);
    const shared = page('https://a.test/slow', 'text');
    const callers = [new AbortController(), new AbortController()];
    const runs = callers.map((c) => cache.extract(shared, call(c.signal)).catch((e: unknown) => e));
    await Promise.resolve();
    expect(calls).toBe(1);
    callers[0]!.abort(new Error('left'));
    await runs[0];
    expect(aborted).toHaveLength(0);
    callers[1]!.abort(new Error('left too'));
    await runs[1];
    expect(aborted).toHaveLength(1);
    const again = new AbortController();
    const third = cache.extract(shared, call(again.signal)).catch((e: unknown) => e);
    await Promise.resolve();
    expect(calls).toBe(2);
    again.abort(new Error('done'));
    await third;
  });
});
