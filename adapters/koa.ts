/**
 * Koa adapter: middleware serving the /v1 API, `/healthz`, `/readyz` and the corpus files at `/docs/…`;
 * other paths (and `/docs/…` paths that are no corpus file) go to `next()`. Works under `koa-mount` or a
 * router prefix (it reads `ctx.path`), and after a body parser (it uses `ctx.request.body` when set).
 *
 * ```ts
 * app.use(citewiseKoa(engine));
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import type { SearchEngine } from '../src/engine/index.ts';
import { isApiPath, isStreamBody, passesOn } from '../src/http/handler.ts';
import { requestBaseUrl } from '../src/http/base-url.ts';
import { fromNodeRequest } from '../src/http/node.ts';

/** Returns Koa middleware for the /v1 API. */
export function citewiseKoa(engine: SearchEngine): Middleware {
  return async (ctx, next) => {
    if (!isApiPath(ctx.path, engine.tavilyPrefix)) {
      await next();
      return;
    }
    const parsed = (ctx.request as { body?: unknown }).body;
    // Mounted under a prefix (koa-mount, a router), ctx.path is below it: the rest of the original path is it.
    const original = new URL(ctx.originalUrl, 'http://x').pathname;
    const mountPath = original.endsWith(ctx.path) ? original.slice(0, original.length - ctx.path.length) : '';
    const baseUrl = requestBaseUrl(ctx.protocol, ctx.host, mountPath);
    const response = await engine.handle(fromNodeRequest(ctx.req, ctx.res, ctx.path, parsed, baseUrl));
    // A /docs/… path that is not a corpus file may be the application's own.
    if (passesOn(ctx.path, response)) {
      await next();
      return;
    }
    ctx.status = response.status;
    if (response.status === 433) ctx.message = 'Quota Exceeded';
    ctx.set(response.headers);
    // A streamed body becomes a Readable; Koa destroys it (cancelling the search) if the client leaves.
    const { body } = response;
    ctx.body = isStreamBody(body)
      ? Readable.from(body)
      : typeof body === 'string'
        ? body
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    // Koa would replace our content type for a string body (and add a charset to `ctx.type`): set the
    // header as is, after assigning the body.
    ctx.set('content-type', response.headers['content-type'] ?? 'application/json');
  };
}
