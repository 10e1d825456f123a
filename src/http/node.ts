/**
 * Translation between Node's `http` request/response and the protocol layer. Shared by the node:http,
 * Express and Koa adapters, which all sit on Node's IncomingMessage/ServerResponse.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
    ...(baseUrl ? { baseUrl } : {}),
  };
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
  // After a 413 the rest of the body is unwanted: close the connection instead of draining it.
  if (response.status === 413) res.setHeader('connection', 'close');
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(response.body));
  res.end(response.body);
}

/** Writes chunks as they come; stops (which cancels the producer) as soon as the client is gone. */
async function writeNodeStream(
  res: ServerResponse,
  response: ProtocolResponse,
  chunks: AsyncIterable<string>,
): Promise<void> {
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) break;
      res.write(chunk);
    }
  } finally {
    res.end();
  }
}
