/**
 * Translation between the Fetch API's `Request`/`Response` and the protocol layer, shared by the fetch
 * adapter of `/v1` (adapters/fetch.ts) and the console's (console/adapters.ts), as http/node.ts is for
 * Node's request and response.
 */
import { isStreamBody, payloadTooLarge, type ProtocolRequest, type ProtocolResponse } from './handler.ts';

/** Builds a {@link ProtocolRequest} from a fetch `Request`. `path` is relative to the mount point. */
export function fromFetchRequest(request: Request, path: string, baseUrl?: string): ProtocolRequest {
  return {
    method: request.method,
    path,
    header: (name) => request.headers.get(name) ?? undefined,
    readBody: (limit) => readFetchBody(request, limit),
    signal: request.signal,
    query: new URL(request.url).search.slice(1),
    ...(baseUrl ? { baseUrl } : {}),
  };
}

/**
 * Reads a request body, rejecting with 413 as soon as more than `limit` bytes arrived (the rest is not
 * read: the stream is cancelled).
 */
export async function readFetchBody(request: Request, limit: number): Promise<Uint8Array> {
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

/** A fetch `Response` of a protocol response; a streamed body is pulled as the client reads it. */
export function toFetchResponse(response: ProtocolResponse): Response {
  // A byte body is a file read from disk (an ArrayBuffer, never shared memory).
  const body = isStreamBody(response.body)
    ? toReadableStream(response.body)
    : (response.body as string | Uint8Array<ArrayBuffer>);
  return new Response(body, { status: response.status, headers: response.headers });
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
