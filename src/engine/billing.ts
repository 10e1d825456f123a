/**
 * Who pays for a search and when: the charge target of a request and the rule that a search which found
 * no page at all is free (one that found pages is charged, whether or not its answer cites them). The hold → commit/refund sequence itself is the money path (money-path.ts); the ledger
 * entry of each is the credits service's (credits.ts).
 */
import { CitewiseError } from '../errors.ts';
import type { RequestInfo } from '../http/handler.ts';
import type { NormalizedSearchRequest } from '../contract/search.ts';
import type { ResearchSettings } from '../pipeline/research/types.ts';
import type { KeyRecord } from '../stores/types.ts';

/** Who pays for a search: the key's account, holding `amount` under the request id. */
export function chargeTarget(key: KeyRecord, info: RequestInfo, amount: number) {
  // The latency budget counts from the request's arrival, queueing included.
  const arrivedAt = Date.now() - (performance.now() - info.startedAt);
  const target = { account: key.accountId, requestId: info.requestId, signal: info.signal, arrivedAt };
  return { ...target, keyId: key.id, budget: key.budget ?? null, amount };
}

/**
 * The price of one search: what is held when it is admitted, and what is charged for its result.
 * A plain search holds and charges `creditCost`. A research search holds `creditsPerQuery` for each query
 * it may send (`maxQueries`, fewer when the request's `max_credits` is lower) and is charged for the
 * queries it sent. Either way, a search that found no page at all is free ({@link isChargeable}).
 */
export interface SearchPrice {
  /** Credits held when the search is admitted. */
  readonly hold: number;
  /** Most search queries the research may send (the hold divided by the price of one). */
  readonly maxQueries?: number;
  /** Credits charged for a finished search (or a streamed one at its first answer text). */
  charge(result: { readonly documents: readonly unknown[]; readonly searches?: number }): number;
}

/** Prices a search (see {@link SearchPrice}); a `max_credits` below the least it can cost is a 400. */
export function priceOf(
  request: Pick<NormalizedSearchRequest, 'depth' | 'maxCredits'>,
  prices: {
    readonly creditCost: number;
    readonly researchCreditsPerQuery: number;
    readonly research?: ResearchSettings;
  },
): SearchPrice {
  const cap = request.maxCredits ?? Infinity;
  if (request.depth !== 'research') {
    if (cap < prices.creditCost) throw belowPrice(prices.creditCost);
    return {
      hold: prices.creditCost,
      charge: (result) => (isChargeable(result) ? prices.creditCost : 0),
    };
  }
  const perQuery = prices.researchCreditsPerQuery;
  if (cap < perQuery) throw belowPrice(perQuery);
  const maxQueries = Math.min(
    prices.research?.maxQueries ?? Infinity,
    perQuery === 0 ? Infinity : Math.floor(cap / perQuery),
  );
  return {
    hold: perQuery === 0 ? 0 : perQuery * maxQueries,
    ...(Number.isFinite(maxQueries) ? { maxQueries } : {}),
    charge: (result) =>
      isChargeable(result) ? perQuery * Math.min(maxQueries, Math.max(1, result.searches ?? 1)) : 0,
  };
}

function belowPrice(least: number): CitewiseError {
  const description = `Invalid request: max_credits must be at least ${least}, the least this search costs`;
  return new CitewiseError('invalid_request', description, { description });
}

/**
 * A search is charged for the work done: once it found pages (or documents) and wrote an answer from them,
 * whether or not the answer cites them, since what the answer cites is up to the prompt. Only a search that
 * found no page at all (the "sources do not contain an answer" reply, written without a model) is free.
 */
export function isChargeable(search: { readonly documents: readonly unknown[] }): boolean {
  return search.documents.length > 0;
}
