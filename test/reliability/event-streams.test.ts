/**
 * Research event streams cost nothing and stay open as long as a job runs, so they are counted: per key and
 * per account (429 `too_many_streams` with `Retry-After` past the cap), and under connection pressure a
 * stream's connection is closed before another tenant's request is refused. Real node:http server on
 * loopback with the connection caps `citewise serve` applies.
 */
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { limitConnections } from '../../src/http/connection-limits.ts';
import { JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { engineWithKey } from './helpers.ts';

const MAX_CONNECTIONS = 40;

const aborts: AbortController[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const controller of aborts.splice(0)) controller.abort();
  for (const close of closers.splice(0)) await close();
});

/** A server whose research jobs run until cancelled, capped like `serve`, and one key. */
async function start(jobs: { maxStreamsPerKey?: number; maxStreamsPerAccount?: number } = {}) {
  const setup = await engineWithKey({
    fetcher: false,
    extractor: false,
    jobs: {
      ...jobs,
      run: (_request, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
        ),
    },
  });
  const http = createServer(createNodeHandler(setup.engine));
  const limiter = limitConnections(http, {
    maxConnections: MAX_CONNECTIONS,
    maxConnectionsPerAddress: MAX_CONNECTIONS,
    idleTimeoutNearCapMs: 60_000,
  });
  const server = await listenOnLoopback(http);
  closers.push(async () => {
    await server.close();
    await setup.engine.close();
  });
  return { engine: setup.engine, baseUrl: server.baseUrl, limiter, key: setup.key, account: setup.accountId };
}

async function newKey(engine: SearchEngine, accountId?: string): Promise<string> {
  return (await engine.createKey({ credits: 1_000, ...(accountId ? { accountId } : {}) })).key;
}

async function createJob(baseUrl: string, key: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'A question that never ends' }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

/** Opens the job's event stream and leaves it open (closed after the test); resolves with the response. */
async function openStream(baseUrl: string, key: string, id: string): Promise<Response> {
  const controller = new AbortController();
  aborts.push(controller);
  return fetch(`${baseUrl}/v1/research/${id}/events`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
}

/** The status of `GET /v1/balance`, or 0 when the connection was refused. */
async function balanceStatus(baseUrl: string, key: string): Promise<number> {
  try {
    const response = await fetch(`${baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

describe('research event streams', { timeout: 60_000 }, () => {
  it('150 streams of one key: the key keeps its cap, the rest get 429 with Retry-After, another key is served', async () => {
    const { engine, baseUrl, key } = await start();
    const other = await newKey(engine);
    const id = await createJob(baseUrl, key);
    const responses = await Promise.all(Array.from({ length: 150 }, () => openStream(baseUrl, key, id)));
    const open = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    expect(open).toHaveLength(JOBS_DEFAULTS.maxStreamsPerKey);
    expect(refused).toHaveLength(150 - JOBS_DEFAULTS.maxStreamsPerKey);
    expect(refused[0]!.headers.get('retry-after')).toBe(String(JOBS_DEFAULTS.streamsFullRetryAfterMs / 1000));
    expect(await refused[0]!.json()).toEqual({
      error: {
        description: `Too Many Requests: this key already has ${JOBS_DEFAULTS.maxStreamsPerKey} event streams open`,
        code: 'too_many_streams',
      },
    });
    const statuses = await Promise.all(Array.from({ length: 5 }, () => balanceStatus(baseUrl, other)));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });

  it('counts the streams of every key of an account, and gives a slot back when a stream closes', async () => {
    const { engine, baseUrl, key, account } = await start({ maxStreamsPerKey: 3, maxStreamsPerAccount: 4 });
    const sameAccount = await newKey(engine, account);
    const id = await createJob(baseUrl, key);
    const first = await Promise.all([0, 1, 2].map(() => openStream(baseUrl, key, id)));
    expect(first.map((response) => response.status)).toEqual([200, 200, 200]);
    expect((await openStream(baseUrl, key, id)).status).toBe(429);
    expect((await openStream(baseUrl, sameAccount, id)).status).toBe(200);
    const atCap = await openStream(baseUrl, sameAccount, id);
    expect(atCap.status).toBe(429);
    expect(((await atCap.json()) as { error: { description: string } }).error.description).toBe(
      'Too Many Requests: this account already has 4 event streams open',
    );
    // A client that goes away gives its slot back.
    aborts[0]!.abort();
    await first[0]!.body?.cancel().catch(() => {});
    await expect
      .poll(async () => (await openStream(baseUrl, sameAccount, id)).status, { timeout: 5_000 })
      .toBe(200);
  });

  it('streams of many accounts filling every connection are closed before another tenant is refused', async () => {
    const { engine, baseUrl, limiter } = await start();
    const accounts = MAX_CONNECTIONS / JOBS_DEFAULTS.maxStreamsPerKey;
    for (let i = 0; i < accounts; i++) {
      const key = await newKey(engine);
      const id = await createJob(baseUrl, key);
      const responses = await Promise.all(
        Array.from({ length: JOBS_DEFAULTS.maxStreamsPerKey }, () => openStream(baseUrl, key, id)),
      );
      expect(responses.map((response) => response.status)).not.toContain(429);
    }
    expect(limiter.open).toBe(MAX_CONNECTIONS);
    const tenant = await newKey(engine);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await balanceStatus(baseUrl, tenant));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(limiter.streamsClosed).toBeGreaterThan(0);
    expect(limiter.open).toBeLessThanOrEqual(MAX_CONNECTIONS);
  });
});
