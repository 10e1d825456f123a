/**
 * Errors with stable codes. One table maps each code to its HTTP status and the description text the
 * service contract prescribes; every error body the service sends is built from this table.
 */

/** Stable error codes. Extend only additively: clients may switch on them. */
export type ErrorCode =
  | 'invalid_api_key'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'key_budget_exceeded'
  | 'server_error'
  | 'service_unavailable'
  | 'invalid_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'upstream_error'
  | 'timeout'
  | 'idempotency_in_progress'
  | 'idempotency_mismatch'
  | 'forbidden_host'
  | 'ungrounded_answer'
  | 'too_many_jobs'
  | 'too_many_streams'
  | 'document_quota_exceeded';

interface ErrorTableRow {
  readonly status: number;
  /** Default description; the first four are exact texts from the service specification. */
  readonly description: string;
  readonly retryable: boolean;
  /** When the service answers with this code (docs/reference/errors.md is generated from it). */
  readonly when: string;
}

/** Code → HTTP status and description. The spec texts are exact; do not reword them. */
export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorTableRow>> = {
  invalid_api_key: {
    status: 401,
    description: 'Invalid or expired API key',
    retryable: false,
    when: 'The `Authorization: Bearer` header is missing, or its key is unknown, revoked or expired.',
  },
  rate_limited: {
    status: 429,
    description: 'Too Many Requests',
    retryable: true,
    when: 'The key sent more searches than the rate limit allows in its window (`--rate-limit`); `Retry-After` says when to retry.',
  },
  quota_exceeded: {
    status: 433,
    description: 'Account is at / over message quota',
    retryable: false,
    when: "The account's credits cannot cover the search (`citewise credits grant` adds credits). Nothing is charged.",
  },
  key_budget_exceeded: {
    status: 433,
    description: "Account is at / over message quota: this key's budget is spent",
    retryable: false,
    when: "The search would pass the API key's own budget (`citewise keys create --budget`, `citewise keys budget`); the description names the budget and when it starts afresh. Nothing is charged: the account's credits are untouched.",
  },
  server_error: {
    status: 500,
    description: 'Server Error',
    retryable: true,
    when: 'An unexpected failure inside the service; it is logged with the request id. The reserved credits are refunded.',
  },
  service_unavailable: {
    status: 503,
    description: 'Service Unavailable',
    retryable: true,
    when: 'Maintenance mode (`--maintenance`), too many searches waiting, a provider or model whose circuit breaker is open, or a store (Redis, PostgreSQL) that cannot be reached.',
  },
  invalid_request: {
    status: 400,
    description: 'Bad Request',
    retryable: false,
    when: 'The body is empty, not UTF-8, not JSON, or does not match the request schema; the description names the field.',
  },
  not_found: { status: 404, description: 'Not Found', retryable: false, when: 'No route has this path.' },
  method_not_allowed: {
    status: 405,
    description: 'Method Not Allowed',
    retryable: false,
    when: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  payload_too_large: {
    status: 413,
    description: 'Payload Too Large',
    retryable: false,
    when: "The request body is larger than the engine's `maxBodyBytes`.",
  },
  unsupported_media_type: {
    status: 415,
    description: 'Unsupported Media Type: send Content-Type: application/json',
    retryable: false,
    when: 'A POST without `Content-Type: application/json`.',
  },
  // Upstream failures (search provider, model) surface as the spec's 500 unless mapped otherwise.
  upstream_error: {
    status: 500,
    description: 'Server Error',
    retryable: true,
    when: "The search provider or the model failed after its retries (with the spec's `Server Error` text). Refunded.",
  },
  timeout: {
    status: 500,
    description: 'Server Error',
    retryable: true,
    when: 'The search passed its deadline (`--request-timeout`) or the client went away. Refunded.',
  },
  idempotency_in_progress: {
    status: 409,
    description: 'Conflict: a request with this Idempotency-Key is still in progress',
    retryable: true,
    when:
      'A search with the same `Idempotency-Key` was still running when this retry had waited its whole ' +
      'deadline; retry later to get its response.',
  },
  idempotency_mismatch: {
    status: 422,
    description: 'Unprocessable: this Idempotency-Key was already used with a different request body',
    retryable: false,
    when: 'The `Idempotency-Key` was already used with a different request body.',
  },
  forbidden_host: {
    status: 403,
    description: 'Forbidden: this Host is not allowed',
    retryable: false,
    when:
      'At `/mcp`: the `Host` or `Origin` header names a host that is not in `--mcp-allowed-hosts` (a guard ' +
      'against DNS rebinding).',
  },
  ungrounded_answer: {
    status: 422,
    description: 'Unprocessable: no source supports an answer to this question',
    retryable: false,
    when:
      'Strict grounding (`--strict-grounding`, or `"grounding": "strict"` in the request): no sentence of ' +
      'the answer has a citation verified against its source (an answer that cites nothing included), or ' +
      'the search found no source at all for a `response_type: "json"` answer. Refunded, except a streamed ' +
      'answer whose text was already sent (charged).',
  },
  too_many_jobs: {
    status: 429,
    description: 'Too Many Requests',
    retryable: true,
    when:
      '`POST /v1/research`: the account already has its most research jobs waiting to run ' +
      '(`--max-queued-jobs`); `Retry-After` says when to try again. Nothing is charged.',
  },
  too_many_streams: {
    status: 429,
    description: 'Too Many Requests',
    retryable: true,
    when:
      '`GET /v1/research/{id}/events`: the key (`--max-streams-per-key`) or its account ' +
      '(`--max-streams-per-account`) already has its most event streams open on this instance; ' +
      '`Retry-After` says when to try again (close a stream first).',
  },
  document_quota_exceeded: {
    status: 403,
    description: "Forbidden: the account's document quota is used up",
    retryable: false,
    when:
      '`POST /v1/documents`: the document would take the account past its quota of documents ' +
      '(`--max-account-documents`) or bytes (`--max-account-document-bytes`); the description gives both ' +
      'limits and what the account holds. Nothing is stored; delete documents to make room.',
  },
};

/** Options for {@link CitewiseError}. */
export interface CitewiseErrorOptions {
  /** Overrides the table's description (e.g. to name the invalid field of a 400). */
  readonly description?: string;
  /** For 429/503: how long the caller should wait; sent as `Retry-After` (seconds, rounded up). */
  readonly retryAfterMs?: number;
  /** Extra response headers (e.g. rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * The one error class of citewise. `code` is stable, `status` is the HTTP status, `description` is the
 * text sent in the `{"error":{"description"}}` body. Internal details belong in `message`/`cause`, which are
 * logged but never sent to clients.
 */
export class CitewiseError extends Error {
  override readonly name = 'CitewiseError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly description: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, options: CitewiseErrorOptions = {}) {
    const row = ERROR_TABLE[code];
    super(message ?? options.description ?? row.description, { cause: options.cause });
    this.code = code;
    this.status = row.status;
    this.description = options.description ?? row.description;
    this.retryable = row.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.headers = options.headers ?? {};
  }
}

/** Thrown by a {@link CreditStore} when the account cannot cover a reservation. */
export class QuotaExceededError extends CitewiseError {
  readonly available: number;
  constructor(available: number, requested: number) {
    super('quota_exceeded', `available ${available} < requested ${requested}`);
    this.available = available;
  }
}

/**
 * Thrown by a {@link CreditStore} when a reservation would pass the key budget it spends
 * (`ReserveInput.budget`). The credits service turns it into a 433 naming the key's budget.
 */
export class BudgetExceededError extends CitewiseError {
  /** Credits the key has spent in the budget's window (committed plus live holds). */
  readonly spent: number;
  /** The budget's limit. */
  readonly limit: number;
  constructor(spent: number, limit: number, requested: number) {
    super('key_budget_exceeded', `key budget: spent ${spent} + requested ${requested} > ${limit}`);
    this.spent = spent;
    this.limit = limit;
  }
}

/** True for any {@link CitewiseError}. Works across module copies by checking the shape. */
export function isCitewiseError(error: unknown): error is CitewiseError {
  return error instanceof CitewiseError;
}

/** The spec's error body: `{"error":{"description": "..."}}`, plus an additive `code`. */
export function errorBody(error: CitewiseError): { error: { description: string; code: ErrorCode } } {
  return { error: { description: error.description, code: error.code } };
}

/** Converts anything thrown into an CitewiseError; unknown failures become a 500 `Server Error`. */
export function toCitewiseError(error: unknown): CitewiseError {
  if (error instanceof CitewiseError) return error;
  return new CitewiseError('server_error', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
