/**
 * A small typed client of the /v1 HTTP API: `search`, `searchStream` and `balance`, with the spec's error
 * responses thrown as {@link CitewiseApiError}, and a service that does not answer at all (unreachable, or
 * past `timeoutMs`) as {@link CitewiseConnectionError}. It uses the global `fetch` (or the one you pass).
 */
import type { ExtractRequest, ExtractResponse } from '../contract/extract.ts';
import type {
  BalanceResponse,
  SearchRequest,
  SearchResponse,
  SearchStreamEvent,
} from '../contract/search.ts';
import type { ResearchStep } from '../pipeline/research/types.ts';
import { CitewiseApiError, CitewiseConnectionError, errorFromResponse } from './errors.ts';
import { readServerSentEvents } from './sse.ts';
import { createResearchClient, type ResearchClient } from './research-jobs.ts';
import { createDocumentsClient, type DocumentsClient } from './documents.ts';

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** Where the API is mounted, without `/v1`, e.g. `http://127.0.0.1:8787` or `https://example.com/api`. */
  readonly baseUrl: string | URL;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /** The fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /**
   * Time allowed for one call, in ms; for `searchStream`, until the response headers arrive.
   * @default 60_000 (the server's own search deadline is 30 s)
   */
  readonly timeoutMs?: number;
  /** Extra headers sent with every request (e.g. a tracing header). @default {} */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of one client call. */
export interface ClientCallOptions {
  /** Abort to cancel the call (a cancelled search is refunded by the server). */
  readonly signal?: AbortSignal;
}

/** Options of {@link CitewiseClient.search}. */
export interface ClientSearchOptions extends ClientCallOptions {
  /**
   * Extension: sent as `Idempotency-Key`, so that retrying the same request (after a timeout, say) replays the
   * stored answer instead of charging twice. @default none
   */
  readonly idempotencyKey?: string;
}

/**
 * A client of one citewise service and API key. `search` and `searchStream` have the same shape as the
 * engine's, so the client and an in-process engine are interchangeable (see `CitewiseBackend`).
 */
export interface CitewiseClient {
  /**
   * `POST /v1/search`. Throws {@link CitewiseApiError} on an error response, {@link CitewiseConnectionError}
   * when the service does not answer.
   */
  search(request: SearchRequest, options?: ClientSearchOptions): Promise<SearchResponse>;
  /**
   * `POST /v1/search` with `"stream": true`: resolves once the stream starts (errors before that are thrown),
   * then yields `sources`, `delta`s, and `done` with the spec body — or an `error` event. Stop iterating to
   * cancel the search.
   */
  searchStream(
    request: SearchRequest,
    options?: ClientCallOptions,
  ): Promise<AsyncIterable<SearchStreamEvent>>;
  /** `GET /v1/balance`. */
  balance(options?: ClientCallOptions): Promise<BalanceResponse>;
  /**
   * Extension `POST /v1/extract`: the clean content of up to 20 pages (failed pages carry an `error` and are
   * not charged). Throws like {@link search}.
   */
  extract(request: ExtractRequest, options?: ClientSearchOptions): Promise<ExtractResponse>;
  /** Research jobs (`/v1/research`): create, get, list, events, cancel, and wait for the end. */
  readonly research: ResearchClient;
  /** The account's own documents (`/v1/documents`): add, list, get, remove. */
  readonly documents: DocumentsClient;
}

/** Defaults of {@link ClientOptions}. */
export const CLIENT_DEFAULTS = {
  /** A search may take this long, in ms, before the client gives up. */
  timeoutMs: 60_000,
} as const;

/** Creates a client. Throws TypeError for a missing key or a base URL that is not http(s). */
export function createClient(options: ClientOptions): CitewiseClient {
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('apiKey is required');
  }
  const base = new URL(String(options.baseUrl));
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${String(options.baseUrl)}`);
  }
  const timeoutMs = options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`timeoutMs must be a positive number, got ${String(options.timeoutMs)}`);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const root = base.href.replace(/\/+$/, '');
  const headers = { ...options.headers, authorization: `Bearer ${options.apiKey}` };

  /** Sends one request; `keepTimerUntil` decides whether the timeout also covers the body. */
  async function send(
    path: string,
    init: RequestInit,
    call: ClientCallOptions | undefined,
    consume: (response: Response) => Promise<unknown>,
  ): Promise<unknown> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    const signal = call?.signal ? AbortSignal.any([call.signal, controller.signal]) : controller.signal;
    try {
      const response = await fetchImpl(`${root}${path}`, { ...init, signal });
      if (!response.ok) throw await errorFromResponse(response);
      return await consume(response);
    } catch (error) {
      throw connectionError(error, controller.signal, call?.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A network failure or our timeout as a {@link CitewiseConnectionError}; anything else unchanged. */
  function connectionError(error: unknown, timeout: AbortSignal, caller: AbortSignal | undefined): unknown {
    // An error response, or the caller's own cancellation, is not a connection problem.
    if (error instanceof CitewiseApiError || caller?.aborted) return error;
    if (timeout.aborted) {
      const description = `No response from the citewise service at ${root} within ${timeoutMs} ms`;
      return new CitewiseConnectionError({ code: 'timeout', url: root, description, cause: error });
    }
    // fetch rejects with a TypeError ("fetch failed") whose cause is the network error (ECONNREFUSED, …).
    if (error instanceof TypeError) {
      const reason = (error.cause as { code?: unknown } | undefined)?.code;
      const description = `Could not reach the citewise service at ${root}${typeof reason === 'string' ? `: ${reason}` : ''}`;
      return new CitewiseConnectionError({ code: 'connection_failed', url: root, description, cause: error });
    }
    return error;
  }

  /** A JSON POST answered with JSON, with the optional Idempotency-Key. */
  async function postJson(
    path: string,
    body: unknown,
    call: ClientSearchOptions | undefined,
  ): Promise<unknown> {
    return send(
      path,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json',
          ...(call?.idempotencyKey ? { 'idempotency-key': call.idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      },
      call,
      (response) => response.json(),
    );
  }

  return {
    async search(request, call) {
      // A plain search sends the spec body only (no `stream` field).
      return (await postJson('/v1/search', withoutStream(request), call)) as SearchResponse;
    },
    async extract(request, call) {
      return (await postJson('/v1/extract', request, call)) as ExtractResponse;
    },
    async searchStream(request, call) {
      const response = (await send(
        '/v1/search',
        {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ ...request, stream: true }),
        },
        call,
        async (response) => response,
      )) as Response;
      return streamEvents(response);
    },
    async balance(call) {
      return (await send(
        '/v1/balance',
        { method: 'GET', headers: { ...headers, accept: 'application/json' } },
        call,
        (response) => response.json(),
      )) as BalanceResponse;
    },
    research: createResearchClient(send, headers),
    documents: createDocumentsClient(send, headers),
  };
}

function withoutStream(request: SearchRequest): SearchRequest {
  const { stream: _stream, ...spec } = request;
  return spec;
}

/** Parses the event stream of a streamed search; cancels the body when the consumer stops early. */
async function* streamEvents(response: Response): AsyncGenerator<SearchStreamEvent> {
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    // A server without the stream extension answers with the plain JSON body: present it as one `done`.
    const body = (await response.json()) as SearchResponse;
    yield { type: 'sources', sources: body.sources };
    yield { type: 'done', body };
    return;
  }
  if (!response.body) return;
  const body = response.body;
  try {
    for await (const { event, data } of readServerSentEvents(body)) {
      yield toStreamEvent(event, data);
    }
  } finally {
    await body.cancel().catch(() => {});
  }
}

function toStreamEvent(event: string, data: string): SearchStreamEvent {
  const payload = JSON.parse(data) as Record<string, unknown>;
  switch (event) {
    case 'step':
      return { type: 'step', step: payload['step'] as ResearchStep };
    case 'sources':
      return { type: 'sources', sources: payload['sources'] as string[] };
    case 'delta':
      return { type: 'delta', text: payload['text'] as string };
    case 'done':
      return { type: 'done', body: payload as unknown as SearchResponse };
    case 'error': {
      const error = payload['error'] as { description: string; code: string };
      return { type: 'error', error };
    }
    default:
      throw new CitewiseApiError({ status: 200, description: `unexpected stream event "${event}"` });
  }
}
