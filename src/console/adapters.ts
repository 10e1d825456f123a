/**
 * The console through the same adapters as `/v1`: a `node:http` / Express listener and a fetch handler.
 * Paths the console does not own go to `next` (Express, Koa) or answer 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { fromFetchRequest, toFetchResponse } from '../http/fetch.ts';
import { stripBasePath } from '../http/handler.ts';
import { fromNodeRequest, writeNodeResponse } from '../http/node.ts';
import type { Console } from './app.ts';

/** Options of the console adapters. */
export interface ConsoleAdapterOptions {
  /** Path prefix the console is mounted under (the same as its `basePath`). @default '' */
  readonly basePath?: string;
}

/**
 * A `(req, res, next?)` listener: for `http.createServer` (give a fallback as `next`) or as Express
 * middleware (`app.use(createConsoleNodeHandler(console))`). In Koa: `ctx.respond = false` and call it
 * with `ctx.req, ctx.res` when `console.owns(path)`.
 */
export function createConsoleNodeHandler(
  console: Console,
  options: ConsoleAdapterOptions = {},
): (req: IncomingMessage, res: ServerResponse, next?: () => void) => void {
  const basePath = options.basePath ?? '';
  return (req, res, next) => {
    const path = stripBasePath(new URL(req.url ?? '/', 'http://localhost').pathname, basePath);
    if (path === null || !console.owns(path)) {
      if (next) return next();
      res.statusCode = 404;
      res.end('Not Found');
      return;
    }
    const request = {
      ...fromNodeRequest(req, res, path),
      remoteAddress: req.socket.remoteAddress ?? 'unknown',
      encrypted: (req.socket as Partial<TLSSocket>).encrypted === true,
    };
    void console.handle(request).then((response) => writeNodeResponse(res, response));
  };
}

/** A fetch-style handler (`Request` → `Response`); paths the console does not own answer 404. */
export function createConsoleFetchHandler(
  console: Console,
  options: ConsoleAdapterOptions & { readonly remoteAddress?: (request: Request) => string | undefined } = {},
): (request: Request) => Promise<Response> {
  const basePath = options.basePath ?? '';
  return async (request) => {
    const url = new URL(request.url);
    const path = stripBasePath(url.pathname, basePath);
    if (path === null || !console.owns(path)) return new Response('Not Found', { status: 404 });
    const response = await console.handle({
      ...fromFetchRequest(request, path),
      remoteAddress: options.remoteAddress?.(request) ?? 'unknown',
      encrypted: url.protocol === 'https:',
    });
    return toFetchResponse(response);
  };
}
