/**
 * Starts the /v1 API behind each adapter on 127.0.0.1 (port 0), so one contract suite can run over real
 * sockets against every adapter.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import Koa from 'koa';
import { agentSearchExpress } from '../../adapters/express.ts';
import { createFetchHandler } from '../../adapters/fetch.ts';
import { agentSearchKoa } from '../../adapters/koa.ts';
import { createNodeHandler } from '../../adapters/node-http.ts';
import type { SearchEngine } from '../../src/engine.ts';

export interface RunningServer {
  /** Base URL including the mount path; append `/v1/search`. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

async function start(server: Server, mountPath = ''): Promise<RunningServer> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${mountPath}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Bridges node:http to a fetch-style handler, as a web-standard runtime would call it. */
function fetchBridge(handler: (request: Request) => Promise<Response>) {
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
  'node:http': (engine) => start(createServer(createNodeHandler(engine))),
  'express (raw body, mounted at /api)': (engine) => {
    const app = express();
    app.use('/api', agentSearchExpress(engine));
    return start(createServer(app), '/api');
  },
  'express (after express.json())': (engine) => {
    const app = express();
    app.use(express.json());
    app.use(agentSearchExpress(engine));
    return start(createServer(app));
  },
  koa: (engine) => {
    const app = new Koa();
    app.use(agentSearchKoa(engine));
    const callback = app.callback();
    return start(createServer((req, res) => void callback(req, res)));
  },
  'fetch handler (basePath /api)': (engine) =>
    start(createServer(fetchBridge(createFetchHandler(engine, { basePath: '/api' }))), '/api'),
};
