/**
 * Two ways around `POST /v1/extract`'s bounds, over HTTP with the real fetcher and extraction workers:
 * - a PDF bomb whose Flate stream holds the bytes `endstream` in a first, stored block: a scanner that cut
 *   the stream there measured 9 bytes and let PDF.js inflate it whole. It is refused like any bomb (the
 *   bound is lowered here so the test stays small: 24 MiB of spaces against a 4 MiB bound).
 * - a request that passes its deadline after its pages were requested from their servers: it answers 200
 *   with the pages read and the others failed (`timeout`), and is charged like any failure that did work
 *   (the pages read, and the failed-page share of the others), not a free 500.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { endstreamBomb, pdfOfStreams, textContent } from '../support/pdf.ts';

const MIB = 1024 * 1024;
const ARTICLE = `<!doctype html><html lang="en"><head><title>How glaciers move</title></head><body><main><article>
  <h1>How glaciers move</h1><p>Glaciers move by internal deformation of the ice and by sliding over the rock
  beneath them. Meltwater at the base acts as a lubricant, so glaciers slide faster in summer.</p>
  </article></main></body></html>`;

let web: Server;
let webUrl: string;
const pages = new Map<string, { type: string; body: Uint8Array | string }>();
const hanging = new Set<ServerResponse>();
const services: { server: Server; engine: SearchEngine }[] = [];

beforeAll(async () => {
  pages.set('/page', { type: 'text/html', body: ARTICLE });
  pages.set('/endstream-bomb.pdf', {
    type: 'application/pdf',
    body: pdfOfStreams([{ data: await endstreamBomb(24 * MIB), filters: ['FlateDecode'] }]),
  });
  pages.set('/small.pdf', {
    type: 'application/pdf',
    body: pdfOfStreams([{ data: textContent(['A small PDF about glaciers.']) }]),
  });
  web = createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    // Never answers: the request's deadline passes while this page is being fetched.
    if (req.url === '/hang') return void hanging.add(res);
    const page = pages.get(req.url ?? '');
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  webUrl = (await listenOnLoopback(web)).baseUrl;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  for (const { server, engine } of services) {
    server.close();
    await engine.close();
  }
  web.close();
});

async function start(options: SearchEngineOptions, extractor: Parameters<typeof createContentExtractor>[0]) {
  const engine = createSearchEngine({
    search: { id: 'none', search: async () => [] },
    fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
    extractor: createContentExtractor(extractor),
    rateLimiter: false,
    ...options,
  });
  await engine.warm();
  const server = createServer(createNodeHandler(engine));
  const url = (await listenOnLoopback(server)).baseUrl;
  services.push({ server, engine });
  const { key, record } = await engine.createKey({ credits: 100 });
  const extract = (paths: readonly string[]) =>
    fetch(`${url}/v1/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: paths.map((path) => `${webUrl}${path}`), format: 'text' }),
    });
  return { extract, balance: () => engine.stores.credits.balance(record.accountId) };
}

interface ExtractBody {
  results: { url: string; content?: string; error?: { code: string } }[];
  credits_charged: number;
}

describe('PDF streams are measured to the end of their zlib data', () => {
  it('refuses a bomb hiding `endstream` in a stored block; a normal PDF is still read', async () => {
    const { extract } = await start(
      { pageTimeoutMs: 60_000, requestTimeoutMs: 120_000 },
      { workers: 1, maxPdfDecodedBytes: 4 * MIB, timeoutMs: 60_000 },
    );
    const response = await extract(['/endstream-bomb.pdf', '/small.pdf']);
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as ExtractBody;
    expect(results.map((result) => result.error?.code ?? 'ok')).toEqual(['extract_failed', 'ok']);
    expect(results[1]!.content).toContain('A small PDF about glaciers.');
  });
});

describe('a request past its deadline after its pages were requested', () => {
  it('answers with the pages read and charges the failed-page share of the others', async () => {
    const { extract, balance } = await start(
      { pageTimeoutMs: 60_000, requestTimeoutMs: 3_000, extractCreditCost: 4, extractFailedShare: 0.25 },
      { workers: 1 },
    );
    const response = await extract(['/page', '/hang']);
    expect(response.status).toBe(200);
    const body = (await response.json()) as ExtractBody;
    expect(body.results.map((result) => result.error?.code ?? 'ok')).toEqual(['ok', 'timeout']);
    // The page read (4) and a quarter of the one requested but not read (1).
    expect(body.credits_charged).toBe(5);
    expect(await balance()).toBe(95);
  });
});
