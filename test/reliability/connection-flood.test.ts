/**
 * A flood of idle (or slow) connections must not keep `/v1/balance` out: the server caps its open
 * connections in total and per client address, and makes room by closing the oldest idle ones. The flood is
 * a bounded number of loopback sockets (several 127.0.0.x source addresses), each opened and left silent
 * or sending half a request.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { limitConnections, type ConnectionLimiter } from '../../src/http/connection-limits.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { engineWithKey, postSearch } from './helpers.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const MAX_TOTAL = 40;
const MAX_PER_ADDRESS = 15;

const opened: Socket[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  for (const close of closers.splice(0)) await close();
});

/** Opens `count` TCP connections from `localAddress`; each may send `prefix` and then nothing more. */
async function flood(port: number, count: number, localAddress: string, prefix = ''): Promise<void> {
  const connecting: Array<Promise<unknown>> = [];
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => {});
    opened.push(socket);
    connecting.push(
      Promise.race([once(socket, 'connect'), once(socket, 'close')]).then(() => {
        if (prefix && !socket.destroyed) socket.write(prefix);
      }),
    );
  }
  await Promise.all(connecting);
}

async function start(provider?: SearchProvider): Promise<{
  server: ListeningServer;
  port: number;
  limiter: ConnectionLimiter;
  key: string;
}> {
  const setup = await engineWithKey({
    fetcher: false,
    extractor: false,
    ...(provider ? { search: provider } : {}),
  });
  const http = createServer(createNodeHandler(setup.engine));
  const limiter = limitConnections(http, {
    maxConnections: MAX_TOTAL,
    maxConnectionsPerAddress: MAX_PER_ADDRESS,
    idleTimeoutNearCapMs: 60_000,
  });
  const server = await listenOnLoopback(http);
  closers.push(async () => {
    await server.close();
    await setup.engine.close();
  });
  return { server, port: Number(new URL(server.baseUrl).port), limiter, key: setup.key };
}

async function balanceStatus(baseUrl: string, key: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

describe('connection caps', () => {
  it('a flood of idle connections from one address stays under its cap and /v1/balance answers', async () => {
    const { server, port, limiter, key } = await start();
    await flood(port, 150, '127.0.0.1');
    expect(limiter.open).toBeLessThanOrEqual(MAX_PER_ADDRESS);
    expect(await balanceStatus(server.baseUrl, key)).toBe(200);
    expect(limiter.evicted).toBeGreaterThan(0);
  });

  it('a flood of slow, half-sent requests from many addresses stays under the total cap', async () => {
    const { server, port, limiter, key } = await start();
    for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
      await flood(port, 30, address, 'GET /v1/balance HTTP/1.1\r\nHost: x\r\n');
    }
    expect(limiter.open).toBeLessThanOrEqual(MAX_TOTAL);
    expect(await balanceStatus(server.baseUrl, key)).toBe(200);
    // The flood keeps coming: the API still answers between waves.
    await flood(port, 60, '127.0.0.6');
    expect(await balanceStatus(server.baseUrl, key)).toBe(200);
    expect(limiter.open).toBeLessThanOrEqual(MAX_TOTAL);
  });

  it('busy connections are not cut to make room', async () => {
    let started = 0;
    const blocking = fakeSearchProvider(
      (_query, { signal }) =>
        new Promise((_resolve, reject) => {
          started++;
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        }),
      { id: 'blocking' },
    );
    const { server, port, limiter, key } = await start(blocking);
    const controller = new AbortController();
    let settled = 0;
    const searches = Array.from({ length: 3 }, () =>
      postSearch(server.baseUrl, key, { prompt: 'tea' }, controller.signal)
        .catch(() => undefined)
        .finally(() => settled++),
    );
    await vi.waitFor(() => expect(started).toBe(3), { timeout: 10_000 });
    await flood(port, MAX_PER_ADDRESS * 2, '127.0.0.1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The three searches' connections are still open: the flood evicted only idle ones.
    expect(settled).toBe(0);
    expect(limiter.open).toBeLessThanOrEqual(MAX_PER_ADDRESS);
    controller.abort();
    await Promise.all(searches);
  });

  it('near a cap, idle connections are cut after a short idle time', async () => {
    const setup = await engineWithKey({ fetcher: false, extractor: false });
    const http = createServer(createNodeHandler(setup.engine));
    const limiter = limitConnections(http, {
      maxConnections: MAX_TOTAL,
      maxConnectionsPerAddress: 10,
      nearCapShare: 0.5,
      idleTimeoutNearCapMs: 100,
    });
    const server = await listenOnLoopback(http);
    closers.push(async () => {
      await server.close();
      await setup.engine.close();
    });
    await flood(Number(new URL(server.baseUrl).port), 8, '127.0.0.7');
    // Cut until the address is no longer near its cap (5 of 10); the rest keep the usual keep-alive timeout.
    await vi.waitFor(() => expect(limiter.open).toBe(4), { timeout: 10_000 });
    expect(limiter.evicted).toBe(4);
    expect(await balanceStatus(server.baseUrl, setup.key)).toBe(200);
  });
});
