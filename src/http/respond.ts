/**
 * The responses of /v1: JSON, server-sent events, and the spec's error body (with `Retry-After` and
 * `WWW-Authenticate`).
 */
import { randomUUID } from 'node:crypto';
import { CitewiseError, errorBody } from '../errors.ts';
import type { ProtocolResponse, RequestInfo } from '../contract/protocol.ts';
import type { SearchStreamEvent } from '../contract/search.ts';

/** `response` with `headers` added (they win over its own). */
export function withHeaders(
  response: ProtocolResponse,
  headers: Readonly<Record<string, string>>,
): ProtocolResponse {
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** Server-sent events: one `event:` per {@link SearchStreamEvent}, its payload as JSON `data:`. */
export function eventStream(events: AsyncIterable<SearchStreamEvent>, info: RequestInfo): ProtocolResponse {
  async function* frames(): AsyncGenerator<string> {
    for await (const event of events) {
      const { type, ...payload } = event;
      const data = type === 'done' ? event.body : type === 'error' ? { error: event.error } : payload;
      yield `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    }
  }
  return sseResponse(frames(), info);
}

/** A `text/event-stream` response of already formatted frames. */
export function sseResponse(frames: AsyncIterable<string>, info: RequestInfo): ProtocolResponse {
  return {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': info.requestId,
    },
    body: frames,
  };
}

/** Error for a body past the limit, thrown by adapters' `readBody`. */
export function payloadTooLarge(limit: number): CitewiseError {
  return new CitewiseError('payload_too_large', undefined, {
    description: `Payload Too Large: the body must be at most ${limit} bytes`,
  });
}

/** The headers of every JSON response. */
function baseHeaders(requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-request-id': requestId,
  };
}

/** A JSON response. */
export function json(status: number, body: unknown, info: RequestInfo): ProtocolResponse {
  return { status, headers: baseHeaders(info.requestId), body: JSON.stringify(body) };
}

/** Builds the spec error response (body, `Retry-After`, `WWW-Authenticate`, extra headers). */
export function errorResponse(error: CitewiseError, requestId: string = randomUUID()): ProtocolResponse {
  const headers: Record<string, string> = { ...baseHeaders(requestId), ...error.headers };
  if (error.retryAfterMs !== undefined) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
  }
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  return { status: error.status, headers, body: JSON.stringify(errorBody(error)) };
}
