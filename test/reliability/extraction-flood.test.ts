/**
 * The extraction pool under attack (issue #36, item 4), over `POST /v1/extract` with the real fetcher and
 * extraction workers: a PDF bomb (a stream inflating to 128 MiB, also compressed twice) is refused before
 * PDF.js inflates it; extracted text is capped; a tenant flooding the workers with slow pages leaves one
 * worker to everybody else, so another tenant's page is read at once; a page's time limit starts when a
 * worker takes it, not while it waits; a worker past its memory limit (a bomb behind ASCII armour, which
 * the stream check cannot see, or a page of 400,000 elements) is terminated and replaced, and only its
 * page fails.
 * Figure: bombs refused / other tenant's pages failed / its slowest page (ms) / workers replaced.
 */
import { createServer, type Server } from 'node:http';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createContentExtractor, type ContentExtractorOptions } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { deflatedBomb, pdfOfStreams, textContent } from '../support/pdf.ts';
import { recordFigure } from './figures.ts';

const MIB = 1024 * 1024;
const ARTICLE = `<!doctype html><html lang="en"><head><title>How glaciers move</title></head><body><main><article>
  <h1>How glaciers move</h1><p>Glaciers move by internal deformation of the ice and by sliding over the rock
  beneath them. Meltwater at the base acts as a lubricant, so glaciers slide faster in summer.</p>
  </article></main></body></html>`;
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa ';
/**
 * About 4 MB of paragraphs of inline elements: about 5 s of extraction on a quiet machine (plain paragraphs of
 * the same size take 0.3 s, under the 500 ms limit of the flood test).
 */
const HEAVY = `<html><body><article>${'<p><b>alpha</b> <i>beta</i> <a href="/x">gamma</a> <em>delta</em> <span>epsilon</span> zeta eta</p>'.repeat(40_000)}</article></body></html>`;
/** About 1 MB of paragraphs: a few hundred ms of extraction. */
const MEDIUM = `<html><body><article>${`<p>${WORDS.repeat(5)}</p>`.repeat(3_500)}</article></body></html>`;
/** 3.8 MB of 400,000 elements: a heap over 64 MiB. */
const DENSE = `<html><body><article>${'<p><span>a</span><b>b</b><i>c</i></p>'.repeat(100_000)}</article></body></html>`;

const figure = { bombs: 0, refused: 0, otherFailed: 0, otherSlowestMs: 0, replaced: 0 };
let web: Server;
let webUrl: string;
const pages = new Map<string, { type: string; body: Uint8Array | string }>();
const services: { server: Server; engine: SearchEngine }[] = [];

beforeAll(async () => {
  const bomb = await deflatedBomb(128 * MIB);
  pages.set('/page', { type: 'text/html', body: ARTICLE });
  pages.set('/heavy', { type: 'text/html', body: HEAVY });
  pages.set('/medium', { type: 'text/html', body: MEDIUM });
  pages.set('/dense', { type: 'text/html', body: DENSE });
  pages.set('/bomb.pdf', {
    type: 'application/pdf',
    body: pdfOfStreams([{ data: bomb, filters: ['FlateDecode'] }]),
  });
  pages.set('/bomb-twice.pdf', {
    type: 'application/pdf',
    body: pdfOfStreams([{ data: deflateSync(bomb), filters: ['FlateDecode', 'FlateDecode'] }]),
  });
  pages.set('/bomb-hex.pdf', {
    type: 'application/pdf',
    body: pdfOfStreams([
      { data: Buffer.from(`${bomb.toString('hex')}>`), filters: ['ASCIIHexDecode', 'FlateDecode'] },
    ]),
  });
  const long = Array.from({ length: 40 }, (_, page) =>
    textContent(Array.from({ length: 40 }, (_, line) => `Page ${page + 1} line ${line + 1} ${WORDS}`)),
  );
  pages.set('/long.pdf', { type: 'application/pdf', body: pdfOfStreams(long.map((data) => ({ data }))) });
  web = createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    const page = pages.get(req.url ?? '');
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  webUrl = (await listenOnLoopback(web)).baseUrl;
});

afterAll(async () => {
  for (const { server, engine } of services) {
    server.close();
    await engine.close();
  }
  web.close();
  recordFigure('extraction-flood', {
    area: 'Extraction flood',
    values: {
      'PDF bombs': figure.bombs,
      'bombs read': figure.bombs - figure.refused,
      "other tenant's pages failed": figure.otherFailed,
      "other tenant's slowest page (ms)": figure.otherSlowestMs,
      'workers replaced (timeout or memory)': figure.replaced,
    },
    mustBeZero: ['bombs read', "other tenant's pages failed"],
  });
});

interface ExtractResult {
  url: string;
  content?: string;
  error?: { code: string };
}

async function start(extractor: ContentExtractorOptions) {
  const engine = createSearchEngine({
    search: { id: 'none', search: async () => [] },
    fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
    extractor: createContentExtractor(extractor),
    rateLimiter: false,
    pageTimeoutMs: 60_000,
    requestTimeoutMs: 120_000,
  });
  await engine.warm();
  const server = createServer(createNodeHandler(engine));
  const url = (await listenOnLoopback(server)).baseUrl;
  services.push({ server, engine });
  const tenant = async () => {
    const { key } = await engine.createKey({ credits: 1_000 });
    return async (paths: readonly string[]): Promise<ExtractResult[]> => {
      const response = await fetch(`${url}/v1/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urls: paths.map((path) => `${webUrl}${path}`), format: 'text' }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { results: ExtractResult[] }).results;
    };
  };
  return { tenant };
}

describe('the extraction pool under attack', () => {
  it('refuses a PDF bomb before inflating it (compressed once or twice); a normal PDF is read, its text capped', async () => {
    const { tenant } = await start({ workers: 2, maxTextChars: 5_000 });
    const extract = await tenant();
    const results = await extract(['/bomb.pdf', '/bomb-twice.pdf', '/long.pdf', '/page']);
    figure.bombs += 2;
    figure.refused += results.slice(0, 2).filter((r) => r.error?.code === 'extract_failed').length;
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual([
      'extract_failed',
      'extract_failed',
      'ok',
      'ok',
    ]);
    const long = results[2]!.content!;
    expect(long.length).toBeLessThanOrEqual(5_000);
    expect(long).toMatch(/^Page 1 line 1 alpha/);
  });

  it("a tenant flooding the workers with slow pages leaves a worker free: another tenant's page is read at once", async () => {
    const { tenant } = await start({ workers: 2, timeoutMs: 500 });
    const flooder = await tenant();
    const other = await tenant();
    const flood = flooder(Array.from({ length: 4 }, () => '/heavy'));
    // The flood holds a worker (its share), and its next pages wait for that one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 3; i++) {
      const startedAt = performance.now();
      const [result] = await other(['/page']);
      figure.otherSlowestMs = Math.max(figure.otherSlowestMs, Math.round(performance.now() - startedAt));
      if (result!.error) figure.otherFailed++;
      expect(result!.error).toBeUndefined();
    }
    const flooded = await flood;
    figure.replaced += flooded.filter((r) => r.error).length;
    expect(flooded.every((r) => r.error?.code === 'extract_failed')).toBe(true);
  });

  it("a page's time limit starts when a worker takes it: eight pages read one after the other all succeed", async () => {
    // Each page takes a few hundred ms, well under the limit; the last ones wait for longer than it.
    const { tenant } = await start({ workers: 1, timeoutMs: 1_500 });
    const extract = await tenant();
    const results = await extract(Array.from({ length: 8 }, () => '/medium'));
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual(Array.from({ length: 8 }, () => 'ok'));
  });

  it('a worker past its memory limit is replaced and only its page fails (a dense page; a bomb behind ASCII armour)', async () => {
    const { tenant } = await start({ workers: 2, maxWorkerMemoryMb: 64, timeoutMs: 60_000 });
    const first = await tenant();
    const second = await tenant();
    const [heavy, other] = await Promise.all([
      first(['/dense', '/page']),
      second(['/bomb-hex.pdf', '/page']),
    ]);
    figure.bombs += 1;
    figure.refused += other[0]!.error ? 1 : 0;
    figure.replaced += 2;
    expect(heavy.map((r) => r.error?.code ?? 'ok')).toEqual(['extract_failed', 'ok']);
    expect(other.map((r) => r.error?.code ?? 'ok')).toEqual(['extract_failed', 'ok']);
    // Both workers were replaced, and read pages again.
    expect((await first(['/page', '/page'])).map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok']);
  });
});
