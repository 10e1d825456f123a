/**
 * The client's error: one class for every error response of the /v1 API, carrying the spec's fields.
 */
import { parseRetryAfter } from '../text/retry-after.ts';

/** Options of {@link CitewiseApiError}. */
export interface CitewiseApiErrorOptions {
  readonly status: number;
  /** The spec's `error.description`, e.g. `Invalid or expired API key`. */
  readonly description: string;
  /** The additive `error.code` (e.g. `rate_limited`); `undefined` when the server did not send one. */
  readonly code?: string | undefined;
  /** From the `Retry-After` header (429, 503), in milliseconds. */
  readonly retryAfterMs?: number | undefined;
  /** From the `X-Request-Id` header: quote it when reporting a problem. */
  readonly requestId?: string | undefined;
  readonly cause?: unknown;
}

/**
 * An error answered by an citewise service: `status` is the HTTP status (401, 429, 433, 500, 503, …),
 * `description` the spec's text, `code` the stable error code, `retryAfterMs` how long to wait before a retry.
 */
export class CitewiseApiError extends Error {
  override readonly name = 'CitewiseApiError';
  readonly status: number;
  readonly description: string;
  readonly code: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | undefined;

  constructor(options: CitewiseApiErrorOptions) {
    super(`${options.status} ${options.description}`, { cause: options.cause });
    this.status = options.status;
    this.description = options.description;
    this.code = options.code;
    this.retryAfterMs = options.retryAfterMs;
    this.requestId = options.requestId;
  }

  /** True for statuses worth retrying later: 429, 500 and 503 (as the spec advises), and 409. */
  get retryable(): boolean {
    return this.status === 409 || this.status === 429 || this.status >= 500;
  }
}

/** Options of {@link CitewiseConnectionError}. */
export interface CitewiseConnectionErrorOptions {
  readonly code: CitewiseConnectionErrorCode;
  /** The base URL the client called. */
  readonly url: string;
  readonly description: string;
  readonly cause?: unknown;
}

/** `connection_failed`: refused, unknown host, reset, TLS failure…; `timeout`: no answer within `timeoutMs`. */
export type CitewiseConnectionErrorCode = 'connection_failed' | 'timeout';

/**
 * The service did not answer at all: it could not be reached (`connection_failed`) or sent no response
 * within the client's `timeoutMs` (`timeout`). Always worth retrying later; `cause` holds the network error.
 */
export class CitewiseConnectionError extends Error {
  override readonly name = 'CitewiseConnectionError';
  readonly code: CitewiseConnectionErrorCode;
  /** The base URL the client called. */
  readonly url: string;
  /** A readable sentence, e.g. `Could not reach the citewise service at http://…: ECONNREFUSED`. */
  readonly description: string;
  readonly retryable = true;

  constructor(options: CitewiseConnectionErrorOptions) {
    super(options.description, { cause: options.cause });
    this.code = options.code;
    this.url = options.url;
    this.description = options.description;
  }
}

/** True for an {@link CitewiseApiError}. */
export function isCitewiseApiError(error: unknown): error is CitewiseApiError {
  return error instanceof CitewiseApiError;
}

/** Builds the error of a non-2xx response from its body (the spec's `{"error":{"description"}}`). */
export async function errorFromResponse(response: Response): Promise<CitewiseApiError> {
  const text = await response.text().catch(() => '');
  let description: string | undefined;
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: { description?: unknown; code?: unknown } };
    if (typeof body.error?.description === 'string') description = body.error.description;
    if (typeof body.error?.code === 'string') code = body.error.code;
  } catch {
    // Not the spec's JSON (a proxy's error page, say): fall back to the status text.
  }
  return new CitewiseApiError({
    status: response.status,
    description: description ?? (text.trim().slice(0, 200) || response.statusText || 'HTTP error'),
    code,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}
