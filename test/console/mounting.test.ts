/**
 * The console mounted by a library user next to `/v1`, under a base path, through each adapter the manual
 * names: the node:http listener as Express middleware, and the fetch handler (here behind a node:http
 * bridge, as a web-standard runtime would call it). Sign-up, the session cookie's path, a key created with
 * the CSRF token, a search with it and its usage, all under `/console`.
 */
import { createServer, type RequestListener } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { citewiseExpress } from '../../adapters/express.ts';
import { createFetchHandler } from '../../adapters/fetch.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import {
  createConsoleFetchHandler,
  createConsoleNodeHandler,
  type Console,
} from '../../src/console/index.ts';
import { memoryConsole } from './memory-console.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { fetchBridge } from '../support/servers.ts';
import { fakeSearchProvider, staticAnswerer } from '../../src/testing/index.ts';

const BASE = '/console';
const PASSWORD = 'mounted-password-1';

const search = fakeSearchProvider([
  { url: 'https://example.com/keys', title: 'Keys', content: 'Revoke a key on the API keys page.' },
]);
const answerer = staticAnswerer({
  answer: 'On the API keys page [1].',
  sources: ['https://example.com/keys'],
});

interface Mounted {
  readonly engine: SearchEngine;
  readonly app: Console;
}

function mount(): Mounted {
  return memoryConsole({ search, answerer }, { basePath: BASE });
}

const ADAPTERS: Record<string, (mounted: Mounted) => RequestListener> = {
  'Express (createConsoleNodeHandler as middleware, then citewiseExpress)': ({ engine, app }) => {
    const server = express();
    server.use(createConsoleNodeHandler(app, { basePath: BASE }));
    server.use(...citewiseExpress(engine));
    return server;
  },
  'fetch (createConsoleFetchHandler next to createFetchHandler)': ({ engine, app }) => {
    const ui = createConsoleFetchHandler(app, { basePath: BASE });
    const api = createFetchHandler(engine);
    return fetchBridge((request) => {
      const { pathname } = new URL(request.url);
      return pathname === BASE || pathname.startsWith(`${BASE}/`) ? ui(request) : api(request);
    });
  },
};

let running: { server: ListeningServer; mounted: Mounted } | undefined;
afterEach(async () => {
  await running?.server.close();
  await running?.mounted.app.close();
  await running?.mounted.engine.close();
  running = undefined;
});

describe.each(Object.entries(ADAPTERS))('console mounted under %s', (_name, listener) => {
  it(`signs up, creates a key and shows its usage under ${BASE}, next to /v1`, async () => {
    const mounted = mount();
    const server = await listenOnLoopback(createServer(listener(mounted)));
    running = { server, mounted };
    const url = (path: string) => `${server.baseUrl}${path}`;

    expect((await fetch(url('/keys'), { redirect: 'manual' })).status).not.toBe(200);
    const signUp = await fetch(url(`${BASE}/sign-up`), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'mounted@example.com', password: PASSWORD }),
    });
    expect(signUp.status).toBe(303);
    expect(signUp.headers.get('location')).toBe(`${BASE}/keys`);
    const [setCookie] = signUp.headers.getSetCookie();
    expect(setCookie).toContain(`Path=${BASE};`);
    const cookie = setCookie!.split(';')[0]!;

    const keysPage = await (await fetch(url(`${BASE}/keys`), { headers: { cookie } })).text();
    expect(keysPage).toContain('data-testid="available-credits">1,000<');
    expect(keysPage).toContain(`href="${BASE}/usage"`);
    expect(keysPage).toContain(`src="${BASE}/console-assets/console.js"`);
    const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(keysPage)![1]!;
    const asset = await fetch(url(`${BASE}/console-assets/console.js`));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');

    const created = await fetch(url(`${BASE}/keys`), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'mounted', _csrf: csrf }),
    });
    expect(created.status).toBe(201);
    const key = /data-testid="new-api-key"[^>]*>([^<]+)</.exec(await created.text())![1]!.trim();

    const answer = await fetch(url('/v1/search'), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How do I revoke a key?' }),
    });
    expect(answer.status).toBe(200);
    const usage = await (await fetch(url(`${BASE}/usage`), { headers: { cookie } })).text();
    expect(usage).toContain('data-testid="available-credits">999<');
    expect(usage).toContain('data-testid="searches-30-days">1<');
  });
});

describe('a body past the limit', () => {
  /** A request whose body is `total` bytes in 16 KiB chunks, counting the bytes the server pulled. */
  function largeRequest(url: string, total: number, headers: Record<string, string>) {
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(0x61);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const request = new Request(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    return { request, pulled: () => pulled };
  }

  it('is refused (413) by the console and /v1 fetch handlers before the rest is read', async () => {
    const mounted = mount();
    try {
      const total = 16 * 1024 * 1024;
      const form = largeRequest(`http://localhost${BASE}/sign-in`, total, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      const refused = await createConsoleFetchHandler(mounted.app, { basePath: BASE })(form.request);
      expect(refused.status).toBe(413);
      expect(form.pulled()).toBeLessThan(1024 * 1024);

      const { key } = await mounted.engine.createKey();
      const search = largeRequest('http://localhost/v1/search', total, {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      });
      expect((await createFetchHandler(mounted.engine)(search.request)).status).toBe(413);
      expect(search.pulled()).toBeLessThan(2 * 1024 * 1024);
    } finally {
      await mounted.app.close();
      await mounted.engine.close();
    }
  });
});
