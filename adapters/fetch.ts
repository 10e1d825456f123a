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
import type { SearchEngine } from '../src/engine.ts';
import { CitewiseError } from '../src/errors.ts';
import { requestBaseUrl } from '../src/http/base-url.ts';
import {
  errorResponse,
  isStreamBody,
  payloadTooLarge,
  stripBasePath,
  type ProtocolResponse,
} from '../src/http/handler.ts';

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
    const baseUrl = requestBaseUrl(url.protocol.slice(0, -1), url.host, basePath);
    const response: ProtocolResponse =
      path === null
        ? errorResponse(new CitewiseError('not_found'))
        : await engine.handle({
            method: request.method,
            path,
            header: (name) => request.headers.get(name) ?? undefined,
            readBody: (limit) => readLimited(request, limit),
            signal: request.signal,
            ...(baseUrl ? { baseUrl } : {}),
          });
    // A byte body is a file read from disk (an ArrayBuffer, never shared memory).
    const body = isStreamBody(response.body)
      ? toReadableStream(response.body)
      : (response.body as string | Uint8Array<ArrayBuffer>);
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** A byte stream of the chunks; cancelling it (the client left) stops the producer, refunding the search. */
function toReadableStream(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator: AsyncIterator<string, unknown> = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) {
      await request.body.cancel().catch(() => {});
      throw payloadTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
