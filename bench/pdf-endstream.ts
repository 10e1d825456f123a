/**
 * One `POST /v1/extract` of a PDF bomb that hides the bytes `endstream` in a first, stored block of its Flate
 * stream (issue 48), against an engine with the default extraction bounds (one worker): prints the page's
 * outcome and how much the process's peak RSS (worker threads included) grew. Run it in a checkout of the
 * code before the fix (e.g. 14aaa4f) and after, back to back; figures on a shared machine are noisy.
 *
 *   node bench/pdf-endstream.ts [--bomb-mib 256]
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createNodeHandler } from '../adapters/node-http.ts';
import { createSearchEngine } from '../src/engine/index.ts';
import { createContentExtractor } from '../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../src/pipeline/fetch/index.ts';
import { listenOnLoopback } from '../test/support/loopback-server.ts';
import { endstreamBomb, pdfOfStreams } from '../test/support/pdf.ts';

const { values } = parseArgs({ options: { 'bomb-mib': { type: 'string', default: '256' } } });
const pdf = pdfOfStreams([
  { data: await endstreamBomb(Number(values['bomb-mib']) * 1024 * 1024), filters: ['FlateDecode'] },
]);
const web = createServer((req, res) => {
  if (req.url === '/robots.txt') return res.writeHead(200).end('');
  res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
});
const webUrl = (await listenOnLoopback(web)).baseUrl;
const engine = createSearchEngine({
  search: { id: 'none', search: async () => [] },
  fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
  extractor: createContentExtractor({ workers: 1, timeoutMs: 60_000 }),
  rateLimiter: false,
  pageTimeoutMs: 60_000,
  requestTimeoutMs: 120_000,
});
await engine.warm();
const server = createServer(createNodeHandler(engine));
const url = (await listenOnLoopback(server)).baseUrl;
const { key } = await engine.createKey({ credits: 100 });
const before = process.resourceUsage().maxRSS;
const response = await fetch(`${url}/v1/extract`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ urls: [`${webUrl}/bomb.pdf`], format: 'text' }),
});
const body = (await response.json()) as { results: { error?: { code: string } }[] };
const after = process.resourceUsage().maxRSS;
console.log(
  JSON.stringify({
    pdfBytes: pdf.length,
    status: response.status,
    page: body.results[0]?.error?.code ?? 'read',
    peakRssGrowthMiB: Math.round((after - before) / 1024),
  }),
);
server.close();
web.close();
await engine.close();
