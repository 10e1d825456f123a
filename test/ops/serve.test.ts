/**
 * The operating basics through the real `citewise serve` process: `RateLimit-Policy` is sent, sources of
 * the corpus are the service's own `/docs/` URLs (never server paths) and open, the probes answer, and
 * the access log on stdout carries one line per request without the key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

describe('citewise serve', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'citewise-serve-ops-'));
  let serve: ServeProcess;
  let key: string;

  beforeAll(async () => {
    const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    key = created.stdout.trim().split('\n').at(-1)!;
    serve = await startServe([
      '--data-dir',
      dataDir,
      '--corpus',
      CORPUS,
      '--rate-limit',
      '5/10s',
      '--log-level',
      'info',
    ]);
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends RateLimit-Policy with the --rate-limit it enforces', async () => {
    const response = await fetch(`${serve.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How tall is Mount Etna?' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toBe('"per-key";q=5;w=10');
    expect(response.headers.get('ratelimit')).toMatch(/^"per-key";r=4;t=\d+$/);

    // The source is the service's own URL of the corpus file, and it opens.
    const { sources } = (await response.json()) as { sources: string[] };
    expect(sources).toEqual([`${serve.baseUrl}/docs/volcanoes.md`]);
    const document = await fetch(sources[0]!);
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await document.text()).toMatch(/3,357/);
  });

  it('answers /healthz and /readyz without a key', async () => {
    expect(await (await fetch(`${serve.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${serve.baseUrl}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it('logs one JSON line per request on stdout, without the key', async () => {
    const response = await fetch(`${serve.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const requestId = response.headers.get('x-request-id');
    await expect
      .poll(() =>
        serve
          .output()
          .split('\n')
          .some((line) => line.includes(`"requestId":"${requestId}"`)),
      )
      .toBe(true);
    const line = serve
      .output()
      .split('\n')
      .find((candidate) => candidate.includes(`"requestId":"${requestId}"`))!;
    expect(JSON.parse(line)).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/v1/balance',
      status: 200,
    });
    expect(serve.output()).not.toContain(key);
  });

  it('logs requests of /mcp too (outside the /v1 handler)', async () => {
    const response = await fetch(`${serve.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    await expect
      .poll(() =>
        serve
          .output()
          .split('\n')
          .some((line) => line.includes('"route":"/mcp"') && line.includes('"status":401')),
      )
      .toBe(true);
  });
});
