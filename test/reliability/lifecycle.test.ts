/**
 * Lifecycle: a client that disconnects aborts the page fetches and the model call of its search, and is
 * refunded; SIGTERM drains in-flight requests (a slow search completes with 200), refuses new ones and
 * exits 0; slow clients are cut by the server's header timeout; API keys never appear in the logs.
 * The `citewise serve` process is the real CLI (test/support/cli.ts).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { FIXTURE_HOST, fakeResolver } from '../fetch/fixture-web.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { listenOnLoopback, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { recordFigure } from './figures.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';
import { engineWithKey } from './helpers.ts';

const figure = {
  disconnects: 0,
  disconnectRefunded: 0,
  abortedUpstreams: 0,
  drained: 0,
  refusedAfterSigterm: 0,
  exitCode: -1,
  keyLeaks: 0,
  slowClientCut: 'no',
};

/** A SearXNG-compatible upstream whose answer waits `delayMs` (or fails with 500 for query "fail"). */
async function startSlowSearxng(delayMs: number): Promise<LoopbackServer & { readonly closedEarly: number }> {
  let closedEarly = 0;
  const server = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
    const query = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    if (query.includes('fail')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) closedEarly++;
    });
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          results: [
            { url: 'https://tea.test/', title: 'Tea', content: 'Green tea comes from Camellia sinensis.' },
          ],
        }),
      );
    }, delayMs);
    res.once('close', () => clearTimeout(timer));
  });
  return Object.assign(server, {
    get closedEarly() {
      return closedEarly;
    },
  });
}

function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false, signal: options.signal },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('client disconnects', () => {
  let web: LoopbackServer;
  let pagesHeld = 0;
  let pagesAbandoned = 0;
  let model: LoopbackServer;
  let modelRequestsClosed = 0;
  beforeAll(async () => {
    // Pages that never come; counts requests whose client (the fetcher) went away.
    web = await startLoopbackServer((_req, res) => {
      pagesHeld++;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>');
      res.once('close', () => {
        if (!res.writableFinished) pagesAbandoned++;
      });
    });
    // A model that never answers; counts requests whose client went away.
    model = await startLoopbackServer((req, res) => {
      req.resume();
      res.once('close', () => {
        if (!res.writableFinished) modelRequestsClosed++;
      });
    });
  });
  afterAll(async () => {
    await Promise.all([web.close(), model.close()]);
  });

  async function serveEngine(options: Parameters<typeof engineWithKey>[0]) {
    const setup = await engineWithKey(options);
    const server = await listenOnLoopback(createServer(createNodeHandler(setup.engine)));
    return {
      ...setup,
      base: server.baseUrl,
      async close() {
        await server.close();
        await setup.engine.close();
      },
    };
  }

  it('aborts the page fetches of the search and refunds', async () => {
    const hits = [1, 2, 3].map((n) => ({
      url: `http://${FIXTURE_HOST}:${web.port}/hold/${n}`,
      title: `Held ${n}`,
      snippet: 'held',
    }));
    const setup = await serveEngine({
      search: fakeSearchProvider(hits),
      fetcher: createPageFetcher({
        resolver: fakeResolver({ [FIXTURE_HOST]: ['127.0.0.1'] }),
        allowPrivateHosts: [FIXTURE_HOST],
        robots: false,
        cache: false,
      }),
      extractor: createContentExtractor({ workers: 1 }),
    });
    const before = await setup.balance();
    const controller = new AbortController();
    const pending = rawRequest(`${setup.base}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'held pages' }),
      signal: controller.signal,
    }).catch(() => undefined);
    await expect.poll(() => pagesHeld).toBe(3);
    figure.disconnects++;
    controller.abort();
    await pending;
    await expect.poll(() => pagesAbandoned, { timeout: 10_000 }).toBe(3);
    figure.abortedUpstreams += pagesAbandoned;
    await expect.poll(() => setup.balance(), { timeout: 10_000 }).toBe(before);
    figure.disconnectRefunded++;
    await setup.close();
  });

  it('aborts the model call (streamed and not) and refunds', async () => {
    const chat = createOpenAICompatible({
      name: 'hang',
      baseURL: `${model.origin}/v1`,
      apiKey: 'sk-x',
    }).chatModel('m');
    const setup = await serveEngine({
      search: fakeSearchProvider([
        { url: 'https://tea.test/', title: 'Tea', content: 'Green tea comes from Camellia sinensis.' },
      ]),
      answerer: createModelAnswerer({ model: chat, maxRetries: 0 }),
    });
    for (const stream of [false, true]) {
      const before = await setup.balance();
      const closedBefore = modelRequestsClosed;
      const requestsBefore = model.requests.length;
      const controller = new AbortController();
      const pending = rawRequest(`${setup.base}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'green tea', stream }),
        signal: controller.signal,
      }).catch(() => undefined);
      await expect.poll(() => model.requests.length).toBe(requestsBefore + 1);
      figure.disconnects++;
      controller.abort();
      await pending;
      await expect.poll(() => modelRequestsClosed, { timeout: 10_000 }).toBe(closedBefore + 1);
      figure.abortedUpstreams++;
      await expect.poll(() => setup.balance(), { timeout: 10_000 }).toBe(before);
      figure.disconnectRefunded++;
    }
    await setup.close();
  });
});

describe('citewise serve', () => {
  let dataDir: string;
  let key: string;
  let upstream: Awaited<ReturnType<typeof startSlowSearxng>>;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-lifecycle-'));
    upstream = await startSlowSearxng(1_500);
    // The key is made before serve starts, so serve itself never has a reason to print it.
    const created = await runCli(['keys', 'create', '--data-dir', dataDir, '--credits', '100']);
    key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^cw_/);
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const serveArgs = () => [
    '--data-dir',
    dataDir,
    '--search',
    'searxng',
    '--searxng-url',
    upstream.origin,
    '--log-level',
    'debug',
    '--rate-limit',
    '1000/1m',
  ];

  it('never logs an API key or Authorization value, across every kind of request', async () => {
    const serve = await startServe(serveArgs());
    try {
      const fakeKey = `cw_${'Z'.repeat(40)}`;
      const json = { 'content-type': 'application/json' };
      const requests: Array<[string, RequestInit]> = [
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, ...json },
            body: '{"prompt":"green tea"}',
          },
        ],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, ...json },
            body: '{"prompt":"please fail"}',
          },
        ],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, ...json },
            body: '{"prompt":"green tea","stream":true}',
          },
        ],
        ['/v1/balance', { headers: { authorization: `Bearer ${key}` } }],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${fakeKey}`, ...json },
            body: '{"prompt":"x"}',
          },
        ],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Basic ${Buffer.from(`u:${key}`).toString('base64')}`, ...json },
            body: '{}',
          },
        ],
        [
          '/v1/search',
          { method: 'POST', headers: { authorization: `Bearer ${key}`, ...json }, body: '{"prompt":' },
        ],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
            body: 'x',
          },
        ],
        [
          '/v1/search',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, ...json },
            body: JSON.stringify({ prompt: 'x'.repeat(2_000_000) }),
          },
        ],
        ['/v1/search', { method: 'GET', headers: { authorization: `Bearer ${key}` } }],
        ['/nowhere', { headers: { authorization: `Bearer ${key}` } }],
      ];
      const statuses: number[] = [];
      for (const [path, init] of requests) {
        const response = await fetch(`${serve.baseUrl}${path}`, init).catch(() => undefined);
        statuses.push(response?.status ?? 0);
        await response?.text().catch(() => undefined);
      }
      expect(statuses).toEqual(expect.arrayContaining([200, 500, 401, 400, 415, 405, 404]));
      const output = serve.output();
      // The failing search was logged (so the logs are not simply empty).
      expect(output).toMatch(/"level":50/);
      const leaks = [key, fakeKey, key.slice(3), 'Bearer ', 'authorization":"'].filter((secret) =>
        output.includes(secret),
      );
      figure.keyLeaks = leaks.length;
      expect(leaks).toEqual([]);
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('SIGTERM drains a slow in-flight search (200), refuses new connections, exits 0', async () => {
    const serve: ServeProcess = await startServe(serveArgs());
    const requestsBefore = upstream.requests.length;
    const inFlight = rawRequest(`${serve.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"prompt":"green tea"}',
    });
    await expect.poll(() => upstream.requests.length).toBe(requestsBefore + 1);
    const exited = once(serve.child, 'exit');
    serve.child.kill('SIGTERM');
    await expect.poll(() => serve.output()).toMatch(/shutting down/);
    const refused = await rawRequest(`${serve.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${key}` },
    }).then(
      (response) => `status ${response.status}`,
      (error: NodeJS.ErrnoException) => error.code ?? String(error),
    );
    expect(refused).toMatch(/ECONNREFUSED|ECONNRESET|status 503/);
    figure.refusedAfterSigterm++;
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect((JSON.parse(response.body) as { answer: string }).answer).toContain('Camellia');
    figure.drained++;
    const [code] = (await exited) as [number | null];
    figure.exitCode = code ?? -1;
    expect(code).toBe(0);
  }, 60_000);

  it('cuts a slowloris client (headers never finished) with its header timeout', async () => {
    const serve = await startServe(serveArgs());
    try {
      const { port, hostname } = new URL(serve.baseUrl);
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      socket.write(`POST /v1/search HTTP/1.1\r\nHost: x\r\n`);
      let n = 0;
      const drip = setInterval(() => socket.writable && socket.write(`x-drip-${n++}: a\r\n`), 1_000);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      const started = Date.now();
      // Node checks header timeouts every 30 s (connectionsCheckingInterval); the CLI's limit is 15 s.
      await once(socket, 'close');
      clearInterval(drip);
      figure.slowClientCut = `after ${Math.round((Date.now() - started) / 1000)} s${received.startsWith('HTTP/1.1 408') ? ' (408)' : ''}`;
      expect(Date.now() - started).toBeGreaterThanOrEqual(14_000);
    } finally {
      await serve.stop();
    }
  }, 90_000);
});

afterAll(() => {
  recordFigure('lifecycle', {
    area: 'Lifecycle',
    values: {
      disconnects: figure.disconnects,
      refunded: `${figure.disconnectRefunded}/${figure.disconnects}`,
      'upstream requests aborted': figure.abortedUpstreams,
      'drained on SIGTERM': figure.drained,
      'refused after SIGTERM': figure.refusedAfterSigterm,
      'exit code': figure.exitCode,
      'slowloris cut': figure.slowClientCut,
      'key leaks in logs': figure.keyLeaks,
    },
    mustBeZero: ['key leaks in logs', 'exit code'],
  });
});
