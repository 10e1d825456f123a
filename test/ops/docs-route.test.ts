/**
 * Local documents never expose server paths: their sources are `<publicUrl>/docs/<path>`, and the service
 * serves the corpus read-only at `GET /docs/<path>` through every adapter, refusing anything outside the
 * corpus folders (`..`, encoded `%2e%2e` and `%2f`, absolute paths, symbolic links leaving the folder).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import Koa from 'koa';
import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { citewiseExpress } from '../../adapters/express.ts';
import { citewiseKoa } from '../../adapters/koa.ts';
import { createSearchEngine } from '../../src/engine/index.ts';
import { createLocalIndexProvider } from '../../src/pipeline/search/local-index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { ADAPTERS, closedAfterEachTest } from '../support/servers.ts';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-CORPUS';
const PDF = Buffer.from('%PDF-1.4\n% binary \xff\xfe\x00\x01\n%%EOF\n', 'latin1');

const temp = mkdtempSync(path.join(tmpdir(), 'citewise-docs-'));
const first = path.join(temp, 'handbook');
const second = path.join(temp, 'faq');
const outside = path.join(temp, 'outside');
for (const folder of [first, second, outside, path.join(first, 'sub'), path.join(first, 'node_modules')]) {
  mkdirSync(folder, { recursive: true });
}
writeFileSync(path.join(first, 'guide.md'), '# Guide\n\nThe pelican mascot is called Percy.\n');
writeFileSync(path.join(first, 'sub', 'page.html'), '<h1>Page</h1><script>alert(1)</script>');
writeFileSync(path.join(first, 'sub', 'a b.txt'), 'Spaces in names are encoded.');
writeFileSync(path.join(first, 'manual.pdf'), PDF);
writeFileSync(path.join(first, '.hidden.md'), SECRET);
writeFileSync(path.join(first, 'node_modules', 'dep.md'), SECRET);
writeFileSync(path.join(first, 'data.json'), SECRET);
writeFileSync(path.join(second, 'refunds.md'), '# Refunds\n\nA search with no source is refunded.\n');
writeFileSync(path.join(outside, 'secret.md'), SECRET);
symlinkSync(path.join(outside, 'secret.md'), path.join(first, 'escape.md'));
symlinkSync(outside, path.join(first, 'linked'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const running = closedAfterEachTest();

/** A GET with the path sent exactly as written (fetch would resolve `..` itself). */
function rawGet(baseUrl: string, rawPath: string): Promise<{ status: number; body: string }> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${rawPath}` },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const ESCAPES = [
  '/docs/../outside/secret.md',
  '/docs/sub/../../outside/secret.md',
  '/docs/%2e%2e/outside/secret.md',
  '/docs/%2E%2E%2Foutside%2Fsecret.md',
  '/docs/..%5coutside%5csecret.md',
  '/docs//etc/passwd',
  `/docs/${encodeURIComponent(path.join(outside, 'secret.md'))}`,
  '/docs/escape.md',
  '/docs/linked/secret.md',
  '/docs/.hidden.md',
  '/docs/node_modules/dep.md',
  '/docs/data.json',
  '/docs/%00guide.md',
  '/docs/3/refunds.md',
];

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`GET /docs/<path> via ${adapterName}`, () => {
    async function start() {
      const engine = createSearchEngine({ corpus: [first, second], maintenance: true });
      const server = await startAdapter(engine);
      running.push({ engine, server });
      return server;
    }

    it('serves corpus files with their types, nosniff, HTML sandboxed (no key, even in maintenance)', async () => {
      const { baseUrl } = await start();
      const markdown = await fetch(`${baseUrl}/docs/guide.md`);
      expect(markdown.status).toBe(200);
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(markdown.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await markdown.text()).toContain('Percy');

      const html = await fetch(`${baseUrl}/docs/sub/page.html`);
      expect(html.headers.get('content-type')).toBe('text/html');
      expect(html.headers.get('x-content-type-options')).toBe('nosniff');
      expect(html.headers.get('content-security-policy')).toBe('sandbox');

      const pdf = await fetch(`${baseUrl}/docs/manual.pdf`);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(pdf.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await pdf.arrayBuffer()).equals(PDF)).toBe(true);

      const text = await fetch(`${baseUrl}/docs/sub/a%20b.txt`);
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');

      // The second corpus folder is served at /docs/2/.
      const second = await fetch(`${baseUrl}/docs/2/refunds.md`);
      expect(second.status).toBe(200);
      expect(await second.text()).toContain('refunded');
    });

    it.each(ESCAPES)('refuses %s', async (rawPath) => {
      const { baseUrl } = await start();
      const response = await rawGet(baseUrl, rawPath);
      expect(response.status).toBe(404);
      expect(response.body).not.toContain(SECRET);
      expect(response.body).not.toContain('root:');
    });

    it('refuses other methods than GET', async () => {
      const { baseUrl } = await start();
      const response = await fetch(`${baseUrl}/docs/guide.md`, { method: 'DELETE' });
      expect(response.status).toBe(405);
    });
  });
}

describe('sources of local documents', () => {
  it('are <publicUrl>/docs/<path> (the second folder under /docs/2/), never file paths', async () => {
    const engine = createSearchEngine({
      corpus: [first, second],
      publicUrl: 'https://search.example.com/api/',
    });
    running.push({ engine, server: { baseUrl: '', close: async () => {} } });
    const { key } = await engine.createKey();
    const guide = await engine.search({ prompt: 'What is the pelican mascot called?' }, { apiKey: key });
    expect(guide.sources).toEqual(['https://search.example.com/api/docs/guide.md']);
    const refunds = await engine.search({ prompt: 'Is a search with no source refunded?' }, { apiKey: key });
    expect(refunds.sources).toEqual(['https://search.example.com/api/docs/2/refunds.md']);
    expect(JSON.stringify([guide, refunds])).not.toContain(temp);
  });

  it('publicUrl must be an absolute http(s) URL', () => {
    for (const publicUrl of ['/relative', 'ftp://example.com', 'https://example.com/?q=1', 'not a url']) {
      expect(() => createSearchEngine({ publicUrl })).toThrow(TypeError);
    }
  });

  it('a folder of the first corpus named like a later folder (2/) is left out, not given a wrong URL', async () => {
    const shadowed = mkdtempSync(path.join(tmpdir(), 'citewise-shadow-'));
    mkdirSync(path.join(shadowed, '2'));
    writeFileSync(path.join(shadowed, '2', 'hidden-by-faq.md'), '# Shadowed\n\nwombats\n');
    writeFileSync(path.join(shadowed, 'top.md'), '# Top\n\nwombats\n');
    const provider = createLocalIndexProvider({ paths: [shadowed, second], publicUrl: 'http://127.0.0.1:1' });
    const report = await provider.load();
    expect(report.skipped).toEqual([
      { file: path.join(shadowed, '2', 'hidden-by-faq.md'), reason: 'shadowed by corpus folder 2' },
    ]);
    expect(provider.index.urls()).toContain('http://127.0.0.1:1/docs/top.md');
    rmSync(shadowed, { recursive: true, force: true });
  });

  it('file: documents of an index file get /docs URLs (their own outside the corpus) that the engine serves', async () => {
    const indexFile = path.join(temp, 'index.json');
    const document = (file: string, title: string) => ({
      url: pathToFileURL(file).href,
      title,
      content: `# ${title}\n\nquokkas`,
      format: 'markdown',
      sections: [{ heading: title, text: 'quokkas' }],
    });
    writeFileSync(
      indexFile,
      JSON.stringify({
        version: 1,
        documents: [
          document(path.join(second, 'refunds.md'), 'Inside'),
          document(path.join(outside, 'secret.md'), 'Indexed elsewhere'),
          { ...document(path.join(outside, 'x'), 'Web'), url: 'https://example.org/quokkas' },
        ],
      }),
    );
    const publicUrl = 'http://127.0.0.1:1';
    const provider = createLocalIndexProvider({ paths: [first, second], indexFiles: [indexFile], publicUrl });
    const hits = await provider.search(
      { query: 'quokkas', limit: 10 },
      { signal: AbortSignal.timeout(5_000), requestId: 't' },
    );
    const urls = hits.map((hit) => hit.url).sort();
    // Inside the corpus: the corpus URL; elsewhere: an opaque /docs/.indexed/ URL; crawled pages: their own.
    expect(urls.slice(1)).toEqual(['http://127.0.0.1:1/docs/2/refunds.md', 'https://example.org/quokkas']);
    expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:1\/docs\/\.indexed\/[0-9a-f]{16}\/secret\.md$/);
    expect(urls.join(' ')).not.toContain(temp);

    // The engine serves that file by its exact path, and nothing else below .indexed/.
    const engine = createSearchEngine({
      search: provider,
      corpus: [first, second],
      publicUrl,
      indexedFiles: provider.indexedFile,
    });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    const indexedPath = new URL(urls[0]!).pathname;
    const served = await fetch(`${server.baseUrl}${indexedPath}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(SECRET);
    const guessed = await rawGet(server.baseUrl, indexedPath.replace('secret.md', '../handbook/guide.md'));
    expect(guessed.status).toBe(404);
    expect((await rawGet(server.baseUrl, '/docs/.indexed/0000000000000000/secret.md')).status).toBe(404);
  });
});

describe('middleware adapters pass /docs/… paths that are not corpus files on to the application', () => {
  it('Express', async () => {
    const engine = createSearchEngine({ corpus: [first] });
    const app = express();
    app.use(citewiseExpress(engine));
    app.get('/docs/app-page', (_req, res) => res.send('the application page'));
    const server = await listenOnLoopback(createServer(app));
    running.push({ engine, server });
    expect(await (await fetch(`${server.baseUrl}/docs/app-page`)).text()).toBe('the application page');
    expect((await fetch(`${server.baseUrl}/docs/guide.md`)).status).toBe(200);
  });

  it('Koa', async () => {
    const engine = createSearchEngine({ corpus: [first] });
    const app = new Koa();
    app.use(citewiseKoa(engine));
    app.use((ctx) => {
      if (ctx.path === '/docs/app-page') ctx.body = 'the application page';
    });
    const callback = app.callback();
    const server = await listenOnLoopback(createServer((req, res) => void callback(req, res)));
    running.push({ engine, server });
    expect(await (await fetch(`${server.baseUrl}/docs/app-page`)).text()).toBe('the application page');
    expect((await fetch(`${server.baseUrl}/docs/guide.md`)).status).toBe(200);
  });
});
