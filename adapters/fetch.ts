/**
 * Web-standard adapter: `(Request) => Promise<Response>` for runtimes and frameworks built on the Fetch
 * API (Next.js route handlers, Hono, Bun, Deno, `node:http` via a bridge).
 *
 * ```ts
 * const handler = createFetchHandler(engine, { basePath: '/api' });
 * export const POST = handler; export const GET = handler;
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { SearchEngine } from '../src/engine/index.ts';
import { CitewiseError } from '../src/errors.ts';
import { requestBaseUrl } from '../src/http/base-url.ts';
import { fromFetchRequest, toFetchResponse } from '../src/http/fetch.ts';
import { errorResponse, stripBasePath } from '../src/http/handler.ts';

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions {
  /** Path prefix the API is served under. @default '' */
  readonly basePath?: string;
}

/**
 * Returns a fetch-style handler for `/v1/…`, `/healthz`, `/readyz` and `/docs/…` below `basePath`. Other
 * paths answer 404 in the spec shape.
 */
export function createFetchHandler(
  engine: SearchEngine,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const basePath = options.basePath ?? '';
  return async (request) => {
    const url = new URL(request.url);
    const path = stripBasePath(url.pathname, basePath);
    // Where this request reached the API: the engine cites its corpus under it when it has no publicUrl.
    const baseUrl = requestBaseUrl(url.protocol.slice(0, -1), url.host, basePath);
    return toFetchResponse(
      path === null
        ? errorResponse(new CitewiseError('not_found'))
        : await engine.handle(fromFetchRequest(request, path, baseUrl)),
    );
  };
}
