import { CitewiseError } from '../../../errors.ts';

/**
 * Why a search provider failed.
 * - `auth`: the API key was rejected or is missing.
 * - `quota`: the plan's credits or usage limit are exhausted (waiting will not help soon).
 * - `rate_limited`: too many requests; `retryAfterMs` says how long to wait when the provider told us.
 * - `blocked`: the provider served a bot challenge / anomaly page instead of results.
 * - `timeout`: the provider did not answer within its timeout.
 * - `network`: the provider could not be reached (DNS, refused connection, reset).
 * - `server`: the provider answered 5xx.
 * - `bad_request`: the provider refused the request as invalid (4xx other than the above).
 * - `bad_response`: the provider answered 2xx with a body we cannot read (malformed JSON, wrong shape, too big).
 * - `config`: the provider is reachable but configured so that it cannot serve us (e.g. SearXNG without JSON).
 * - `unavailable`: every provider of a combined (fallback/fusion) provider failed; `cause` is an
 *   `AggregateError` holding each failure.
 */
export type SearchProviderErrorKind =
  | 'auth'
  | 'quota'
  | 'rate_limited'
  | 'blocked'
  | 'timeout'
  | 'network'
  | 'server'
  | 'bad_request'
  | 'bad_response'
  | 'config'
  | 'unavailable';

const RETRYABLE_KINDS: ReadonlySet<SearchProviderErrorKind> = new Set([
  'rate_limited',
  'blocked',
  'timeout',
  'network',
  'server',
]);

/** Options for {@link SearchProviderError}. */
export interface SearchProviderErrorOptions {
  /** HTTP status the provider answered, if any. */
  readonly httpStatus?: number;
  /** How long to wait before retrying, when the provider said so (Retry-After or an equivalent header). */
  readonly retryAfterMs?: number;
  /** Overrides the default retryability of the kind. */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

/**
 * A search provider failed. `message` is meant for operators (logs, CLI) and never contains API keys;
 * clients of the HTTP service only see the generic `Server Error` description of the `upstream_error` code.
 */
export class SearchProviderError extends CitewiseError {
  /** Id of the provider that failed, e.g. `brave`. */
  readonly providerId: string;
  readonly kind: SearchProviderErrorKind;
  /** HTTP status the provider answered, if it answered at all. */
  readonly httpStatus: number | undefined;
  /** True when the same request may succeed later (rate limit, timeout, 5xx, network, bot challenge). */
  override readonly retryable: boolean;

  constructor(
    providerId: string,
    kind: SearchProviderErrorKind,
    message: string,
    options: SearchProviderErrorOptions = {},
  ) {
    super(kind === 'timeout' ? 'timeout' : 'upstream_error', message, {
      cause: options.cause,
      retryAfterMs: options.retryAfterMs,
    });
    this.providerId = providerId;
    this.kind = kind;
    this.httpStatus = options.httpStatus;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
  }
}

/** True for a {@link SearchProviderError}. */
export function isSearchProviderError(error: unknown): error is SearchProviderError {
  return error instanceof SearchProviderError;
}
