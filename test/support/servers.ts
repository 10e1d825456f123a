/**
 * Starts the /v1 API behind each adapter on 127.0.0.1 (port 0), so one contract suite can run over real
 * sockets against every adapter.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import Koa from 'koa';
import { afterEach } from 'vitest';
import { citewiseExpress } from '../../adapters/express.ts';
import { createFetchHandler } from '../../adapters/fetch.ts';
import { citewiseKoa } from '../../adapters/koa.ts';
import { createNodeHandler } from '../../adapters/node-http.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import { listenOnLoopback } from './loopback-server.ts';

export interface RunningServer {
  /** Base URL including the mount path; append `/v1/search`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * The engines (each with its server) a test file starts: push each one, and it is closed after its test
 * (vitest `afterEach`: the server first, then the engine).
 */
export function closedAfterEachTest(): { engine: SearchEngine; server: RunningServer }[] {
  const running: { engine: SearchEngine; server: RunningServer }[] = [];
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });
  return running;
}

/** Calls of the /v1 API with one key, for tests that do not assert on the request itself (safe to destructure). */
export interface ApiClient {
  /** `POST /v1/search` with `body` as JSON; `headers` are added to (or override) the defaults. */
  readonly post: (body: unknown, headers?: Readonly<Record<string, string>>) => Promise<Response>;
  /** `available_credits` from `GET /v1/balance`. */
  readonly balance: () => Promise<number>;
}

/** An {@link ApiClient} for a server's base URL (see {@link RunningServer.baseUrl}) and an API key. */
export function apiClient(baseUrl: string, key: string): ApiClient {
  return {
    post: (body, headers = {}) =>
      fetch(`${baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    balance: async () => {
      const response = await fetch(`${baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
      return ((await response.json()) as { available_credits: number }).available_credits;
    },
  };
}

/** Bridges node:http to a fetch-style handler, as a web-standard runtime would call it. */
export function fetchBridge(handler: (request: Request) => Promise<Response>) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: Readable.toWeb(req), duplex: 'half' } : {}),
    } as RequestInit);
    void handler(request).then(async (response) => {
      res.statusCode = response.status;
      response.headers.forEach((value, name) => res.setHeader(name, value));
      if (!response.body) return res.end();
      // Stream the body through, and cancel it when the client goes away, as a real runtime does.
      const reader = response.body.getReader();
      res.once('close', () => void reader.cancel().catch(() => {}));
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
      res.end();
    });
  };
}

/** Each adapter, mounted the way a user would mount it. */
export const ADAPTERS: Readonly<Record<string, (engine: SearchEngine) => Promise<RunningServer>>> = {
  'node:http': (engine) => listenOnLoopback(createServer(createNodeHandler(engine))),
  'express (raw body, mounted at /api)': (engine) => {
    const app = express();
    app.use('/api', citewiseExpress(engine));
    return listenOnLoopback(createServer(app), '/api');
  },
  'express (after express.json())': (engine) => {
    const app = express();
    // As the adapter's documentation shows: a parser that runs first is given the engine's limit.
    app.use(express.json({ limit: engine.maxBodyBytes }));
    app.use(citewiseExpress(engine));
    return listenOnLoopback(createServer(app));
  },
  koa: (engine) => {
    const app = new Koa();
    app.use(citewiseKoa(engine));
    const callback = app.callback();
    return listenOnLoopback(createServer((req, res) => void callback(req, res)));
  },
  'fetch handler (basePath /api)': (engine) =>
    listenOnLoopback(createServer(fetchBridge(createFetchHandler(engine, { basePath: '/api' }))), '/api'),
};
