/**
 * Shaping what the engine answers: citations checked against the sources (grounding), the sources with
 * their passages, the error of a failed search, and the rate-limit headers.
 */
import { CitewiseError, toCitewiseError } from '../errors.ts';
import type { Citation, Grounding, SearchResult } from '../contract/search.ts';
import { checkGrounding, groundingSources, type GroundingCheck } from '../pipeline/answer/grounding.ts';
import type { ExtractedContent, Passage } from '../pipeline/types.ts';
import type { RateLimitOptions, RateLimitResult } from '../stores/types.ts';

/** What a finished search produced, as the grounding check and the response need it. */
export interface AnsweredSearch {
  readonly answer: string;
  readonly sources: readonly string[];
  readonly passages: readonly Passage[];
  readonly documents: readonly ExtractedContent[];
  /** A `response_type: "json"` answer (no `[n]` markers). */
  readonly json: boolean;
}

/** Checks the answer's citations against the text of its sources (see grounding.ts). */
export function groundingOf(search: AnsweredSearch): GroundingCheck {
  return checkGrounding(search.answer, groundingSources(search.sources, search.passages, search.documents), {
    answerFormat: search.json ? 'json' : 'cited',
  });
}

/** A grounding check as the response's `citations` and `grounding` fields. */
export function groundingFields(check: GroundingCheck): { citations: Citation[]; grounding: Grounding } {
  const { report } = check;
  return {
    citations: check.citations.map((c) => ({
      index: c.index,
      url: c.url,
      title: c.title,
      claim: c.claim.text,
      claim_start: c.claim.start,
      claim_end: c.claim.end,
      quote: c.quote,
      quote_start: c.quoteStart,
      quote_end: c.quoteEnd,
      verified: c.verified,
    })),
    grounding: {
      level: report.level,
      claims: report.claims,
      supported_claims: report.supportedClaims,
      citations: report.citations,
      verified_citations: report.verifiedCitations,
      unsupported: report.unsupported.map(({ text, start, end }) => ({ text, start, end })),
    },
  };
}

/** The refusal of an answer that no source supports, under strict grounding (the search is refunded). */
export function ungroundedError(): CitewiseError {
  return new CitewiseError('ungrounded_answer', 'no claim of the answer is supported by its sources');
}

/** Each cited source with the best passage of it that the answerer was given. */
export function searchResultsOf(sources: readonly string[], passages: readonly Passage[]): SearchResult[] {
  return sources.map((url, index) => {
    const passage = passages.find((p) => p.url === url);
    return { index: index + 1, url, title: passage?.title ?? '', snippet: passage?.text ?? '' };
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
