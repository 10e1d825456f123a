/**
 * `request()`: one HTTP request to an engine in-process, through `engine.handle` (the same protocol code
 * every adapter calls: routes, auth, limits, body checks, errors), without a server or a socket. For unit
 * tests of an application that embeds citewise; a test of the HTTP stack itself should use a real server.
 */
import { payloadTooLarge, type ProtocolRequest, type ProtocolResponse } from '../http/handler.ts';

/** Options of {@link request}. */
export interface RequestOptions {
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** A value sent as JSON (with `Content-Type: application/json`), or raw text or bytes. */
  readonly body?: unknown;
  /** More request headers (names are matched case-insensitively). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Abort it to act as a client that went away (an unfinished search is refunded). */
  readonly signal?: AbortSignal;
}

/** A response read whole (a streamed body is read to its end). */
export interface TestResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text. */
  readonly text: string;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

/** Anything with the engine's `handle` (a `SearchEngine`). */
export interface Handler {
  handle(request: ProtocolRequest): Promise<ProtocolResponse>;
}

/**
 * Sends one request to `engine.handle` and reads the whole response.
 *
 * @example
 * ```ts
 * const { key } = await engine.createKey();
 * const response = await request(engine, 'POST', '/v1/search', { apiKey: key, body: { prompt: 'Hi?' } });
 * expect(response.status).toBe(200);
 * expect(response.json<{ sources: string[] }>().sources).toHaveLength(1);
 * ```
 */
export async function request(
  engine: Handler,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse> {
  const bytes = encodeBody(options.body);
  const headers = new Map<string, string>();
  if (
    options.body !== undefined &&
    !(options.body instanceof Uint8Array) &&
    typeof options.body !== 'string'
  ) {
    headers.set('content-type', 'application/json');
  }
  if (options.apiKey !== undefined) headers.set('authorization', `Bearer ${options.apiKey}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name.toLowerCase(), value);
  if (bytes !== undefined) headers.set('content-length', String(bytes.byteLength));
  const response = await engine.handle({
    method,
    path,
    header: (name) => headers.get(name.toLowerCase()),
    async readBody(limit) {
      const body = bytes ?? new Uint8Array(0);
      if (body.byteLength > limit) throw payloadTooLarge(limit);
      return body;
    },
    signal: options.signal ?? new AbortController().signal,
  });
  const text = await readAll(response.body);
  return {
    status: response.status,
    headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v])),
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

function encodeBody(body: unknown): Uint8Array | undefined {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  return new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
}

async function readAll(body: ProtocolResponse['body']): Promise<string> {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  let text = '';
  for await (const chunk of body) text += chunk;
  return text;
}
