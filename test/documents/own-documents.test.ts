/**
 * `documents: "own"` through a real `serve` (issue 44), and the built-in manual hidden when an account's
 * own documents answer (issue 45): with `"own"`, a search reads only the documents of the key's account —
 * no page of the operator's index, of the manual or of the web (a SearXNG-format endpoint and a page on
 * loopback), and never another account's documents; a bad value is a spec-shaped 400.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../agents/support.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';

const SEVERAL_PROCESSES = { timeout: 180_000 };
const OPERATOR_FOLDER = fileURLToPath(new URL('../fixtures/own-documents/', import.meta.url));
const WEB_PAGE =
  '<!doctype html><html lang="en"><head><title>Ember Mini review</title></head><body><main><article>' +
  '<h1>Ember Mini review</h1><p>In our shop the Ember Mini kettle costs EUR 99 with free delivery.</p>' +
  '<p>The Ember Mini kettle is small and quiet.</p></article></main></body></html>';

function caller(server: () => ServeProcess) {
  return async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server().baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as never };
  };
}

const lastLine = (text: string) => text.trim().split('\n').at(-1)!.trim();
const PRICE_TABLE = (model: string, price: string) => ({
  title: `${model} price list`,
  format: 'markdown',
  content: `# Kettle prices\n\n| Model | Price |\n|---|---|\n| ${model} | ${price} |\n| Ember Max | EUR 129 |\n`,
});

describe('documents: "own" (serve with an operator index and a web search on loopback)', () => {
  let dir: string;
  let server: ServeProcess;
  let web: ListeningServer | undefined;
  let search: ListeningServer | undefined;
  let webUrl = '';
  let alice = '';
  let bob = '';
  const call = caller(() => server);

  beforeAll(async () => {
    web = await listenOnLoopback(
      createServer((req, res) => {
        if (req.url === '/robots.txt') return res.writeHead(200).end('User-agent: *\nAllow: /\n');
        if (req.url !== '/ember') return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(WEB_PAGE);
      }),
    );
    webUrl = web.baseUrl;
    search = await listenOnLoopback(
      createServer((req, res) => {
        const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            query: q,
            results: [
              { url: `${webUrl}/ember`, title: 'Ember Mini review', content: 'Ember Mini', engine: 'x' },
            ],
          }),
        );
      }),
    );
    const searchUrl = search.baseUrl;
    dir = mkdtempSync(join(tmpdir(), 'citewise-own-documents-'));
    const dataDir = join(dir, 'data');
    const indexed = await runCli(['index', OPERATOR_FOLDER, '--data-dir', dataDir]);
    expect(indexed.code, indexed.stderr).toBe(0);
    server = await startServe([
      '--data-dir',
      dataDir,
      '--search',
      'local+searxng',
      '--searxng-url',
      searchUrl,
      '--allow-private-hosts',
      '127.0.0.1',
    ]);
    alice = server.firstKey()!;
    bob = lastLine((await runCli(['keys', 'create', '--data-dir', dataDir, '--name', 'bob'])).stdout);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all([web?.close(), search?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "reads only the account's documents: no operator page, no web page, no other account's document",
    SEVERAL_PROCESSES,
    async () => {
      const mine = await call(alice, 'POST', '/v1/documents', PRICE_TABLE('Ember Mini', 'EUR 89'));
      const bobs = await call(bob, 'POST', '/v1/documents', PRICE_TABLE('Ember Mini', 'EUR 111'));
      expect([mine.status, bobs.status]).toEqual([201, 201]);
      const aliceUrl = (mine.body as { url: string }).url;
      const bobUrl = (bobs.body as { url: string }).url;
      const prompt = 'How much does the Ember Mini kettle cost?';

      // Without the field every source answers: the web page, the operator's page, the account's own.
      const sourcesOf = async (key: string, prompt: string, extra: object = {}) => {
        const { status, body } = await call(key, 'POST', '/v1/search', { prompt, ...extra });
        expect(status).toBe(200);
        return (body as { sources: string[] }).sources;
      };
      const clearance = 'Which kettle is in the clearance sale of the operator catalogue?';
      const everywhere = [
        ...(await sourcesOf(alice, prompt)),
        ...(await sourcesOf(alice, clearance)),
        ...(await sourcesOf(alice, 'Ember Mini price list EUR 89')),
      ];
      expect(everywhere.some((url) => url.startsWith(`${webUrl}/`))).toBe(true);
      expect(everywhere.some((url) => url.includes('/docs/'))).toBe(true);
      expect(everywhere).toContain(aliceUrl);
      expect(everywhere).not.toContain(bobUrl);
      for (const question of [clearance, 'Ember Mini review free delivery'])
        for (const url of await sourcesOf(alice, question, { documents: 'own' })) expect(url).toBe(aliceUrl);

      for (const [key, own, other, price] of [
        [alice, aliceUrl, bobUrl, 'EUR 89'],
        [bob, bobUrl, aliceUrl, 'EUR 111'],
      ] as const) {
        const only = await call(key, 'POST', '/v1/search', { prompt, documents: 'own' });
        expect(only.status).toBe(200);
        const body = only.body as { answer: string; sources: string[] };
        expect(body.sources).toEqual([own]);
        expect(body.sources).not.toContain(other);
        expect(body.answer).toContain(price);
        expect(body.answer).not.toMatch(/EUR (75|99)\b/);
      }

      // `"all"` is the default, said out loud.
      expect(await sourcesOf(alice, clearance, { documents: 'all' })).toEqual(
        await sourcesOf(alice, clearance),
      );
    },
  );

  it("streams and research read only the account's documents too", SEVERAL_PROCESSES, async () => {
    const prompt = 'How much does the Ember Mini kettle cost?';
    const research = await call(alice, 'POST', '/v1/search', {
      prompt,
      depth: 'research',
      documents: 'own',
    });
    expect(research.status).toBe(200);
    const researched = (research.body as { sources: string[] }).sources;
    expect(researched.length).toBeGreaterThan(0);
    for (const url of researched) expect(url).toMatch(/\/v1\/documents\/doc_/);

    // A research job (POST /v1/research) keeps the field.
    const created = await call(alice, 'POST', '/v1/research', { prompt, documents: 'own' });
    expect(created.status).toBe(202);
    const jobId = (created.body as { id: string }).id;
    let job: { status: string; sources?: string[] } = { status: 'queued' };
    for (let i = 0; i < 120 && (job.status === 'queued' || job.status === 'running'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      job = (await call(alice, 'GET', `/v1/research/${jobId}`)).body;
    }
    expect(job.status).toBe('completed');
    expect(job.sources!.length).toBeGreaterThan(0);
    for (const url of job.sources!) expect(url).toMatch(/\/v1\/documents\/doc_/);
    const response = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, documents: 'own', stream: true }),
    });
    const events = await response.text();
    expect(events).toContain('EUR 89');
    expect(events).not.toContain(webUrl);
    expect(events).not.toContain('/docs/');
  });

  it('a request with nothing of its own answers with no source, free', SEVERAL_PROCESSES, async () => {
    const carol = lastLine(
      (await runCli(['keys', 'create', '--data-dir', server.dataDir, '--name', 'carol'])).stdout,
    );
    const before = (await call(carol, 'GET', '/v1/balance')).body as { available_credits: number };
    const only = await call(carol, 'POST', '/v1/search', {
      prompt: 'How much does the Ember Mini kettle cost?',
      documents: 'own',
    });
    expect(only.status).toBe(200);
    expect((only.body as { sources: string[] }).sources).toEqual([]);
    const after = (await call(carol, 'GET', '/v1/balance')).body as { available_credits: number };
    expect(after.available_credits).toBe(before.available_credits);
  });

  it("a bad value is a 400 in the spec's error shape", SEVERAL_PROCESSES, async () => {
    for (const documents of ['mine', 1, null]) {
      expect(await call(alice, 'POST', '/v1/search', { prompt: 'kettle', documents })).toEqual({
        status: 400,
        body: {
          error: {
            description: 'Invalid request: documents must be "all" or "own"',
            code: 'invalid_request',
          },
        },
      });
    }
    const research = await call(alice, 'POST', '/v1/research', { prompt: 'kettle', documents: 'mine' });
    expect(research.status).toBe(400);
    expect(research.body).toMatchObject({
      error: { description: 'Invalid request: documents must be "all" or "own"' },
    });
  });
});

describe('documents: "own" on a service without the documents API', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('is a 400 that charges nothing', async () => {
    const response = await fetch(`${service.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How do I create an API key?', documents: 'own' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 'invalid_request',
        description:
          'Invalid request: documents "own" needs the documents API, which this service does not offer',
      },
    });
  });
});

describe("the built-in manual and an account's own documents (serve, no index of the operator)", () => {
  let dir: string;
  let server: ServeProcess;
  const call = caller(() => server);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-own-manual-'));
    server = await startServe(['--data-dir', join(dir, 'data')]);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "the account's documents answer alone, without a sentence of the manual; others still get the manual",
    SEVERAL_PROCESSES,
    async () => {
      const key = server.firstKey()!;
      const added = await call(key, 'POST', '/v1/documents', PRICE_TABLE('Ember Mini', 'EUR 89'));
      expect(added.status).toBe(201);
      const url = (added.body as { url: string }).url;
      const asked = await call(key, 'POST', '/v1/search', {
        prompt: 'How much does the Ember Mini cost?',
      });
      expect(asked.status).toBe(200);
      const body = asked.body as { answer: string; sources: string[] };
      expect(body.answer).toContain('EUR 89');
      expect(body.sources).toEqual([url]);
      // A question the account's documents do not answer still reads the manual.
      const manual = await call(key, 'POST', '/v1/search', { prompt: 'How do I create an API key?' });
      expect((manual.body as { sources: string[] }).sources.some((u) => u.includes('/docs/'))).toBe(true);
    },
  );
});
