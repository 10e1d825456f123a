/** Loopback HTTP servers that speak a provider's wire format, and small helpers for provider tests. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import type { CallOptions, SearchProvider, SearchQuery } from '../../src/pipeline/types.ts';
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

/**
 * One server for the whole test file: started in `beforeAll`, closed in `afterAll`. The returned object
 * stands for it from the first test on (its `url` is read inside tests, not at the top level).
 */
export function useServer(): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());
  const started = (): TestServer => {
    if (!server) throw new Error('the test server starts in beforeAll');
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    handle: (handler) => started().handle(handler),
    close: () => started().close(),
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

/** Searches `provider` (by default for `q`, 5 hits), which must fail, and returns its {@link SearchProviderError}. */
export async function searchError(
  provider: SearchProvider,
  query: SearchQuery = { query: 'q', limit: 5 },
): Promise<SearchProviderError> {
  const error = await rejectionOf(provider.search(query, call()));
  expect(error).toBeInstanceOf(SearchProviderError);
  return error as SearchProviderError;
}

/**
 * A maker of keyed providers pointed at `server`: `create` gets `apiKey`, the server's URL as `baseUrl`,
 * and the options a test passes.
 */
export function keyedProviderOn<Options extends { apiKey: string; baseUrl?: string }>(
  server: TestServer,
  create: (options: Options) => SearchProvider,
  apiKey: string,
): (options?: Partial<Options>) => SearchProvider {
  return (options = {}) => create({ apiKey, baseUrl: server.url, ...options } as Options);
}
