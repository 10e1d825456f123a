import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createServeListener } from '../../src/cli/mcp-command.ts';
import { createClient } from '../../src/client/index.ts';
import { createMetrics, type Metrics } from '../../src/observability/index.ts';
import { startServe } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { startTestService, type TestService } from './support.ts';

/** The value of one sample of the Prometheus text format, e.g. `name{a="b"}`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('createMetrics with the engine hook', () => {
  let metrics: Metrics;
  let service: TestService;
  beforeAll(async () => {
    metrics = createMetrics({ processMetrics: false });
    service = await startTestService({ metrics: metrics.hook }, (engine) =>
      createServeListener(engine, { metrics, metricsPath: '/metrics' }),
    );
  });
  afterAll(() => service.close());

  it('counts requests by route and status, searches, stage latencies, credits and errors by code', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    await client.search({ prompt: 'How are credits charged?' });
    for await (const event of await client.searchStream({ prompt: 'What are rate limits?' })) void event;
    await client.balance();
    await createClient({ baseUrl: service.baseUrl, apiKey: 'cw_wrong' })
      .balance()
      .catch(() => {});
    const { key } = await service.engine.createKey({ credits: 0 });
    await createClient({ baseUrl: service.baseUrl, apiKey: key })
      .search({ prompt: 'x' })
      .catch(() => {});

    const response = await fetch(`${service.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    const requests = 'citewise_http_requests_total';
    expect(sample(text, requests, { route: '/v1/search', method: 'POST', status: '200' })).toBe(2);
    expect(sample(text, requests, { route: '/v1/search', method: 'POST', status: '433' })).toBe(1);
    expect(sample(text, requests, { route: '/v1/balance', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, requests, { route: '/v1/balance', method: 'GET', status: '401' })).toBe(1);
    expect(sample(text, 'citewise_errors_total', { code: 'invalid_api_key' })).toBe(1);
    expect(sample(text, 'citewise_errors_total', { code: 'quota_exceeded' })).toBe(1);
    expect(sample(text, 'citewise_searches_total', { outcome: 'success', mode: 'json' })).toBe(1);
    expect(sample(text, 'citewise_searches_total', { outcome: 'success', mode: 'stream' })).toBe(1);
    expect(sample(text, 'citewise_credits_charged_total')).toBe(2);
    for (const stage of ['plan', 'search', 'gather', 'rank', 'answer']) {
      expect(sample(text, 'citewise_stage_duration_seconds_count', { stage }), stage).toBe(1);
    }
    expect(sample(text, 'citewise_search_duration_seconds_count', { outcome: 'success', mode: 'json' })).toBe(
      1,
    );
    // The metrics path is not part of the API: the API's counters did not see it.
    expect(text).not.toContain('route="unmatched"');
  });

  it('counts library searches too', async () => {
    const before = sample((await metrics.render()).body, 'citewise_searches_total', {
      outcome: 'success',
      mode: 'json',
    });
    await service.engine.search({ prompt: 'What is the free allowance?' }, { apiKey: service.apiKey });
    const after = sample((await metrics.render()).body, 'citewise_searches_total', {
      outcome: 'success',
      mode: 'json',
    });
    expect(after).toBe(before + 1);
  });

  it('counts pages fetched from the network, reused from the cache, and failures by reason', async () => {
    const own = createMetrics({ processMetrics: false });
    const site = await listenOnLoopback(
      createServer((req, res) => {
        if (req.url === '/robots.txt') return res.writeHead(200).end('User-agent: *\nDisallow: /private\n');
        if (req.url === '/page')
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hello</p>');
        res.writeHead(404).end();
      }),
    );
    const fetcher = own.instrumentFetcher(() => createPageFetcher({ allowPrivateHosts: ['localhost'] }));
    try {
      const origin = site.baseUrl.replace('127.0.0.1', 'localhost');
      const call = () => ({
        signal: AbortSignal.timeout(10_000),
        requestId: 'r',
        deadline: Date.now() + 10_000,
      });
      await fetcher.fetch(new URL(`${origin}/page`), call());
      await fetcher.fetch(new URL(`${origin}/page`), call());
      await expect(fetcher.fetch(new URL(`${origin}/missing`), call())).rejects.toThrow();
      await expect(fetcher.fetch(new URL(`${origin}/private`), call())).rejects.toThrow();
      const text = (await own.render()).body;
      expect(sample(text, 'citewise_page_fetches_total', { source: 'network' })).toBe(1);
      expect(sample(text, 'citewise_page_fetches_total', { source: 'reused' })).toBe(1);
      expect(sample(text, 'citewise_fetch_failures_total', { reason: 'bad_status' })).toBe(1);
      expect(sample(text, 'citewise_fetch_failures_total', { reason: 'robots_disallowed' })).toBe(1);
    } finally {
      await fetcher.close?.();
      await site.close();
    }
  });

  it('rejects bad options', () => {
    expect(() => createMetrics({ prefix: 'bad-prefix' })).toThrow(TypeError);
    expect(() => createMetrics({ latencyBuckets: [1, 0.5] })).toThrow(RangeError);
  });
});

describe('citewise serve --metrics-path, with MCP at /mcp', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-serve-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves /v1, /mcp and the metrics path from one port', async () => {
    const serve = await startServe([
      '--data-dir',
      dataDir,
      '--corpus',
      MANUAL_CORPUS,
      '--metrics-path',
      '/metrics',
    ]);
    try {
      const key = serve.firstKey()!;
      const client = createClient({ baseUrl: serve.baseUrl, apiKey: key });
      await client.search({ prompt: 'How do I create an API key?' });
      const metrics = await (await fetch(`${serve.baseUrl}/metrics`)).text();
      expect(sample(metrics, 'citewise_credits_charged_total')).toBe(1);
      expect(metrics).toContain('citewise_process_cpu_seconds_total');
      const mcp = await fetch(`${serve.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer cw_wrong' },
        body: '{}',
      });
      expect(mcp.status).toBe(401);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it('has no metrics path unless asked', async () => {
    const serve = await startServe(['--data-dir', dataDir]);
    try {
      expect((await fetch(`${serve.baseUrl}/metrics`)).status).toBe(404);
    } finally {
      await serve.stop();
    }
  });
});
