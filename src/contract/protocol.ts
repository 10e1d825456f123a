/**
 * The protocol of /v1 as engine, http and jobs share it: the request an adapter hands over, the response it
 * writes back, the per-request information, and the engine's port ({@link SearchService}).
 */
import type { CitewiseError, ErrorCode } from '../errors.ts';
import type { KeyRecord } from '../stores/types.ts';
import type { IdempotencyStore } from './idempotency.ts';
import type { ExtractResponse, NormalizedExtractRequest } from './extract.ts';
import type {
  BalanceResponse,
  NormalizedSearchRequest,
  SearchResponse,
  SearchStreamEvent,
} from './search.ts';

/** A request as every adapter hands it to the router (`handleProtocolRequest`, src/http/handler.ts). */
export interface ProtocolRequest {
  readonly method: string;
  /** Path relative to where the API is mounted, without the query string, e.g. `/v1/search`. */
  readonly path: string;
  /** Returns a header value (case-insensitive name); repeated headers joined by `, `. */
  header(name: string): string | undefined;
  /**
   * Reads the raw body, failing with 413 past `limit` bytes. Not called when `parsedBody` is present
   * (a framework already parsed it, e.g. `express.json()`).
   */
  readBody(limit: number): Promise<Uint8Array>;
  /** A body already parsed by the host framework; `undefined` when the raw body is still unread. */
  readonly parsedBody?: unknown;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  /** The query string without its `?` (`status=running&limit=10`); absent or `''` when there is none. */
  readonly query?: string;
  /**
   * Where the client reached the API: origin and mount path, e.g. `http://127.0.0.1:3000/api`. Adapters set
   * it from the request; an engine without `publicUrl` cites its corpus documents under it, so that a source
   * is a URL this server answers.
   */
  readonly baseUrl?: string;
}

/**
 * What an adapter writes back: a whole body (text, or bytes for a corpus file such as a PDF), or (for
 * streamed searches) chunks to write as they come.
 */
export interface ProtocolResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Adapters must stop iterating a stream when the client goes away (which refunds an unfinished search). */
  readonly body: string | Uint8Array | AsyncIterable<string>;
  /**
   * A stream that may be closed when the server runs out of connections (a research event stream: its
   * client resumes after `Last-Event-ID`, and nothing is charged for it). See `limitConnections`.
   */
  readonly yieldsConnection?: boolean;
}

/** True when the body is a stream of chunks (a streamed search) rather than a whole body. */
export function isStreamBody(body: ProtocolResponse['body']): body is AsyncIterable<string> {
  return typeof body === 'object' && Symbol.asyncIterator in body;
}

/** Per-request information shared by the protocol and the engine. */
export interface RequestInfo {
  readonly requestId: string;
  /** `performance.now()` when the request arrived; `response_time` is measured from here. */
  readonly startedAt: number;
  readonly signal: AbortSignal;
  /** The request's {@link ProtocolRequest.baseUrl}. */
  readonly baseUrl?: string;
}

/**
 * What a route or a library call asks before its work: nothing (`public`: probes, the OpenAPI document),
 * maintenance and a valid key (`key`), or also the key's rate limit (`key+rate`).
 */
export type Admission = 'public' | 'key' | 'key+rate';

/** An admitted request: its key, and the `RateLimit` headers to send (none when no rate was checked). */
export interface Admitted {
  readonly key: KeyRecord;
  readonly headers: Readonly<Record<string, string>>;
}

/** Who is calling, once known (the access log names the key, also of a request then refused 429). */
export interface Caller {
  keyId?: string;
}

/**
 * The engine operations a request of /v1 needs: admission (maintenance, key, rate limit), search, extract,
 * balance, readiness. Implemented by the engine; research jobs run their searches through it.
 */
export interface SearchService {
  readonly maxBodyBytes: number;
  /** Throws 503 when in maintenance mode. */
  assertAvailable(): void;
  /** Throws 401 for a missing, malformed, unknown, revoked or expired key. */
  authenticate(apiKey: string | undefined): Promise<KeyRecord>;
  /**
   * Throws 429 with `Retry-After` when the key is over its rate limit; otherwise returns the
   * `RateLimit`/`RateLimit-Policy` headers to send.
   */
  enforceRateLimit(key: KeyRecord): Promise<Readonly<Record<string, string>>>;
  /**
   * The one admission step: maintenance (503), then the key (401), named to `caller` once known, then, for
   * `key+rate`, the key's rate limit (429). Every route and library call goes through it.
   */
  admit(apiKey: string | undefined, admission: 'key' | 'key+rate', caller?: Caller): Promise<Admitted>;
  /** Replays searches retried with the same `Idempotency-Key`; without it the header is ignored. */
  readonly idempotency?: IdempotencySettings;
  runSearch(key: KeyRecord, request: NormalizedSearchRequest, info: RequestInfo): Promise<SearchResponse>;
  runSearchStream(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
  ): Promise<AsyncIterable<SearchStreamEvent>>;
  balance(key: KeyRecord): Promise<BalanceResponse>;
  /**
   * Where the Tavily-compatible routes are mounted (`{prefix}/search`, `{prefix}/extract`); `null`: not
   * served.
   */
  readonly tavilyPrefix: string | null;
  /** `POST /v1/extract`: reads the pages, charging per page read. */
  runExtract(key: KeyRecord, request: NormalizedExtractRequest, info: RequestInfo): Promise<ExtractResponse>;
  /** Resolves when the stores answer; throws 503 naming the unreachable ones (`GET /readyz`). */
  checkReadiness(): Promise<void>;
  /**
   * A file of the local corpus, by its path below `/docs/` (still percent-encoded); throws 404 for
   * anything that is not a servable file inside a corpus folder.
   */
  serveDocument(encodedPath: string): Promise<ProtocolResponse>;
  /** Reports a failure (500s are logged with their cause; never with the API key). */
  reportError(error: CitewiseError, info: RequestInfo): void;
  /** Optional metrics hook: called once per request, after its response (or stream start) is built. */
  observeRequest?(observation: RequestObservation): void;
}

/** How the protocol uses the {@link IdempotencyStore}. */
export interface IdempotencySettings {
  readonly store: IdempotencyStore;
  /** How long a claim holds while its search runs (past it, a crashed instance's claim lapses). */
  readonly leaseMs: number;
  /** How long a completed response is replayed. */
  readonly ttlMs: number;
  /** How long a retry waits for the first request's response before answering 409. */
  readonly waitMs: number;
}

/** A handled /v1 request, as reported to {@link SearchService.observeRequest}. */
export interface RequestObservation {
  /** The matched route (`/v1/search`, `/docs/*`, …) or `unmatched`, so labels stay few. */
  readonly route: string;
  readonly method: string;
  readonly status: number;
  /** The error code of an error response. */
  readonly errorCode?: ErrorCode;
  /** Time to build the response (for a stream: until it started), in ms. */
  readonly durationMs: number;
  /** The request id, also sent as `X-Request-Id`. */
  readonly requestId: string;
  /** Id of the API key that authenticated the request (never the key itself); absent before auth. */
  readonly keyId?: string;
}
