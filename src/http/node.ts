/**
 * Translation between Node's `http` request/response and the protocol layer. Shared by the node:http,
 * Express and Koa adapters, which all sit on Node's IncomingMessage/ServerResponse.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { yieldConnectionWhileStreaming } from './connection-limits.ts';
import { isStreamBody, payloadTooLarge, type ProtocolRequest, type ProtocolResponse } from './handler.ts';

/** Builds a {@link ProtocolRequest} from Node's request. `path` is relative to the mount point. */
export function fromNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  parsedBody?: unknown,
  baseUrl?: string,
): ProtocolRequest {
  const controller = new AbortController();
  // The response closing before it finished means the client went away: abort the work (and refund).
  // An AbortError, so that nothing downstream mistakes it for an upstream's failure.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new DOMException('client disconnected', 'AbortError'));
  });
  return {
    method: req.method ?? 'GET',
    path,
    header(name) {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    readBody: (limit) => readNodeBody(req, limit),
    ...(parsedBody === undefined ? {} : { parsedBody }),
    signal: controller.signal,
    query: queryOf(req.url),
    ...(baseUrl ? { baseUrl } : {}),
  };
}

/** The query string of a request target, without its `?`. */
function queryOf(url: string | undefined): string {
  const at = url?.indexOf('?') ?? -1;
  return at === -1 ? '' : url!.slice(at + 1);
}

/** Reads a request body, rejecting with 413 as soon as more than `limit` bytes arrived. */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // Someone (a body parser) already consumed the stream: there is nothing left to read.
    if (req.readableEnded) {
      resolve(new Uint8Array(0));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        // Stop buffering; the rest of the body is drained and discarded so the 413 can still be sent.
        req.resume();
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onAborted = () => onError(new Error('request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** Writes a protocol response to Node's response (no-op if the client is gone). */
export function writeNodeResponse(res: ServerResponse, response: ProtocolResponse): void {
  if (res.destroyed || res.writableEnded) return;
  if (isStreamBody(response.body)) {
    void writeNodeStream(res, response, response.body);
    return;
  }
  res.statusCode = response.status;
  // Node has no reason phrase for the spec's 433.
  if (response.status === 433) res.statusMessage = 'Quota Exceeded';
  // After a 413 the rest of the body is unwanted: the connection is closed, not kept for another request.
  if (response.status === 413) res.setHeader('connection', 'close');
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(response.body));
  if (response.status === 413 && !res.req.complete) {
    res.write(response.body);
    lingerThenEnd(res);
    return;
  }
  res.end(response.body);
}

/**
 * A lingering close: the response is out, but the client may still be sending the body it was refused.
 * Closing now would reset the connection under it (its unread bytes make the kernel answer with a reset,
 * and the client loses the response), so the rest of the body is read and thrown away first, up to
 * {@link LINGER_LIMITS}; then the response ends and Node closes the connection (`Connection: close`).
 */
function lingerThenEnd(res: ServerResponse): void {
  const req = res.req;
  let read = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('error', finish);
    req.off('close', finish);
    res.end();
  };
  const onData = (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > LINGER_LIMITS.maxBytes) finish();
  };
  const timer = setTimeout(finish, LINGER_LIMITS.maxMs);
  req.on('data', onData);
  req.once('end', finish);
  req.once('error', finish);
  req.once('close', finish);
  req.resume();
}

/** How much of a refused body is read and discarded before the connection is closed: at most this many bytes and ms. */
export const LINGER_LIMITS = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 } as const;

/** Writes chunks as they come; stops (which cancels the producer) as soon as the client is gone. */
async function writeNodeStream(
  res: ServerResponse,
  response: ProtocolResponse,
  chunks: AsyncIterable<string>,
): Promise<void> {
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const yielded = response.yieldsConnection ? yieldConnectionWhileStreaming(res.socket) : undefined;
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) break;
      res.write(chunk);
    }
  } finally {
    yielded?.();
    res.end();
  }
}
