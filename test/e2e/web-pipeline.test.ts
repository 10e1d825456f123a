/**
 * The live-web pipeline end to end on loopback: a SearXNG-format search endpoint, a fixture web with
 * boilerplate-laden pages (one of which never answers), the real fetcher, the real extractor, the
 * default ranker and answerer, over real HTTP — from the library and from the CLI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine } from '../../src/engine/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/index.ts';
import { startServe } from '../support/cli.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';

const BOILERPLATE = `
  <header><nav><a href="/">Home</a> <a href="/news">News</a> <form><input name="q"></form></nav></header>
  <div class="cookie-banner">We use cookies to improve your experience. Accept all cookies?</div>
  <aside><h3>Trending</h3><ul><li><a href="/x">Celebrity chef opens a bakery in Paris</a></li>
  <li><a href="/y">Stock markets rally on Monday</a></li></ul></aside>`;

function article(title: string, paragraphs: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} - Example News</title></head>
  <body>${BOILERPLATE}<main><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></main>
  <footer>Copyright Example News. All rights reserved. Contact us.</footer></body></html>`;
}

const PAGES: Record<string, string> = {
  '/glaciers': article('How glaciers move', [
    'Glaciers move by internal deformation of the ice and by sliding over the rock beneath them.',
    'Meltwater at the base of a glacier acts as a lubricant, so glaciers slide faster in summer.',
    'The fastest glaciers, such as Jakobshavn Isbrae in Greenland, can flow more than 40 metres per day.',
  ]),
  '/ice-ages': article('Ice ages', [
    'An ice age is a long period of reduction in the temperature of the Earth.',
    'During the last glacial maximum, ice sheets covered much of North America and northern Europe.',
  ]),
};

describe('live web pipeline on loopback', () => {
  let web: ListeningServer;
  let search: ListeningServer;
  let webUrl: string;
  let searchUrl: string;
  const searchQueries: string[] = [];

  beforeAll(async () => {
    web = await listenOnLoopback(
      createServer((req, res) => {
        if (req.url === '/robots.txt')
          return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
        if (req.url === '/hang') return; // never answers
        const page = PAGES[req.url ?? ''];
        if (!page) return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      }),
    );
    webUrl = web.baseUrl;
    search = await listenOnLoopback(
      createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        searchQueries.push(url.searchParams.get('q') ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            query: url.searchParams.get('q'),
            results: [
              {
                url: `${webUrl}/hang`,
                title: 'Unreachable page',
                content: 'Cookie policy and newsletter.',
                engine: 'x',
              },
              {
                url: `${webUrl}/glaciers`,
                title: 'How glaciers move',
                content: 'Glaciers move by…',
                engine: 'x',
              },
              { url: `${webUrl}/ice-ages`, title: 'Ice ages', content: 'An ice age is…', engine: 'x' },
            ],
          }),
        );
      }),
    );
    searchUrl = search.baseUrl;
  });

  afterAll(async () => {
    await Promise.all([web.close(), search.close()]);
  });

  it('answers from fetched and extracted pages, citing them, without waiting for a page that never responds', async () => {
    const engine = createSearchEngine({
      search: createSearxngProvider({ baseUrl: searchUrl }),
      fetcher: createPageFetcher({ allowPrivateHosts: ['127.0.0.1'] }),
      pageTimeoutMs: 5_000,
    });
    const { key } = await engine.createKey();
    const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
    const base = server.baseUrl;
    try {
      const response = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Why do glaciers slide faster in summer?', response_type: 'text' }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { answer: string; sources: string[] };
      expect(body.answer).toMatch(/Meltwater/);
      expect(body.answer).not.toMatch(/cookies|Trending|Copyright/);
      expect(body.sources[0]).toBe(`${webUrl}/glaciers`);
      expect(body.sources).not.toContain(`${webUrl}/hang`);
      expect(searchQueries.at(-1)).toMatch(/glaciers/);
    } finally {
      await server.close();
      await engine.close();
    }
  });

  it('the CLI serves it with --search searxng --searxng-url --allow-private-hosts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-web-'));
    const server = await startServe([
      '--data-dir',
      dataDir,
      '--search',
      'searxng',
      '--searxng-url',
      searchUrl,
      '--allow-private-hosts',
      '127.0.0.1',
    ]);
    try {
      const base = server.baseUrl;
      const key = server.firstKey() ?? '';
      const response = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'How fast can the fastest glaciers flow?' }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { answer: string; sources: string[] };
      expect(body.answer).toMatch(/40 metres per day/);
      expect(body.sources).toContain(`${webUrl}/glaciers`);
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
