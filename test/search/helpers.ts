/** Loopback HTTP servers that speak a provider's wire format, and small helpers for provider tests. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { CallOptions } from '../../src/pipeline/types.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

/** A request the fake provider received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler (one server per test file, a handler per test). */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0. Close it in afterAll; open sockets are destroyed on close. */
export async function startServer(initial: Handler = (_req, res) => json(res, 404, {})): Promise<TestServer> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.baseUrl,
    requests,
    handle(next) {
      handler = next;
      requests.length = 0;
    },
    close: () => listening.close(),
  };
}

/** Sends a JSON body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Sends an HTML body. */
export function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

/** Call options with a fresh, never-aborted signal. */
export function call(signal: AbortSignal = new AbortController().signal): CallOptions {
  return { signal, requestId: 'test' };
}

/** Awaits a promise that must reject and returns the rejection reason. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
