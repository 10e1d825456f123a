/**
 * Typed failures of the page fetcher. A failed page is normally dropped by the pipeline, so these errors
 * stay local to the fetch stage: they carry a stable `code` to switch on, the URL that failed, and a cause.
 */

/** Why a fetch failed. Stable: callers may switch on it. */
export type FetchErrorCode =
  /** Not an absolute http(s) URL, credentials in the URL, or an unusable redirect `Location`. */
  | 'bad_url'
  /** The host is, resolves to, or redirects to a non-public address (SSRF guard). */
  | 'blocked_address'
  /** robots.txt disallows the URL for our user agent. */
  | 'robots_disallowed'
  /** More redirects than `maxRedirects`. */
  | 'too_many_redirects'
  /** The final response was not 2xx (also a 3xx without `Location`). */
  | 'bad_status'
  /** The media type is not in the allow-list (or could not be sniffed). */
  | 'unsupported_type'
  /** Unknown content-coding, more than two codings, or a corrupt compressed body. */
  | 'bad_encoding'
  /** The decoded body exceeded `maxBodyBytes`. */
  | 'too_large'
  /** The page deadline, the caller's deadline, or a connect/headers/body timeout passed. */
  | 'timeout'
  /** The caller's signal aborted, or the fetcher was closed. */
  | 'aborted'
  /** DNS failure, refused or reset connection, TLS or protocol error. */
  | 'network_error';

const RETRYABLE: ReadonlySet<FetchErrorCode> = new Set(['timeout', 'network_error']);

/** Options for {@link FetchError}. */
export interface FetchErrorOptions {
  /** The URL being fetched when the failure happened (after redirects). */
  readonly url?: string;
  /** HTTP status for `bad_status`. */
  readonly status?: number;
  readonly cause?: unknown;
}

/** A page could not be fetched. `code` says why; `message` is for logs. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  readonly code: FetchErrorCode;
  readonly url: string | undefined;
  readonly status: number | undefined;
  /** True when trying again later could succeed (timeouts, network errors). */
  readonly retryable: boolean;

  constructor(code: FetchErrorCode, message: string, options: FetchErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.url = options.url;
    this.status = options.status;
    this.retryable = RETRYABLE.has(code);
  }
}

/** True for a {@link FetchError}, optionally of one of the given codes. */
export function isFetchError(error: unknown, ...codes: FetchErrorCode[]): error is FetchError {
  return error instanceof FetchError && (codes.length === 0 || codes.includes(error.code));
}
