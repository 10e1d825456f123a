/**
 * Shaping what the engine answers: citations of the sources, the error of a failed search, and the
 * rate-limit headers.
 */
import { CitewiseError, toCitewiseError } from '../errors.ts';
import type { Citation } from '../http/schema.ts';
import type { Passage } from '../pipeline/types.ts';
import type { RateLimitOptions, RateLimitResult } from '../stores/types.ts';

/** Each cited source with the best passage of it that the answerer was given. */
export function citationsOf(sources: readonly string[], passages: readonly Passage[]): Citation[] {
  return sources.map((url, index) => {
    const passage = passages.find((p) => p.url === url);
    return { index: index + 1, url, title: passage?.title ?? '', quote: passage?.text ?? '' };
  });
}

/** A client that went away or a deadline that passed is not the pipeline's fault: say what happened. */
export function pipelineError(thrown: unknown, signal: AbortSignal): CitewiseError {
  if (signal.aborted && !(thrown instanceof CitewiseError)) {
    return new CitewiseError('timeout', 'search aborted or past its deadline', { cause: signal.reason });
  }
  return toCitewiseError(thrown);
}

/**
 * `RateLimit` and `RateLimit-Policy` headers (IETF draft-ietf-httpapi-ratelimit-headers): remaining quota
 * and seconds until it is replenished; the policy when the window is known.
 */
export function rateLimitHeaders(
  result: RateLimitResult,
  policy: RateLimitOptions | undefined,
): Record<string, string> {
  const resetSeconds = Math.max(0, Math.ceil((result.resetAt - Date.now()) / 1000));
  return {
    ratelimit: `"per-key";r=${Math.max(0, Math.floor(result.remaining))};t=${resetSeconds}`,
    ...(policy
      ? { 'ratelimit-policy': `"per-key";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}` }
      : {}),
  };
}
