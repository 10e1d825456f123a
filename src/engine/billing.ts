/**
 * Who pays for a search and when: the charge target of a request, the rule that a search which found no
 * page at all is free, and the usage records of every commit and refund. The hold → commit/refund sequence itself is
 * the money path (money-path.ts).
 */
import type { ExtractedPage, FailedPage } from '../http/extract.ts';
import type { RequestInfo } from '../http/handler.ts';
import type { UsageRecorder } from '../stores/accounts/types.ts';
import type { KeyRecord } from '../stores/types.ts';
import { isExtracted } from './extract.ts';
import type { ChargeTarget, MoneyPathOptions } from './money-path.ts';

/** Who pays for a search: the key's account, held under the request id. */
export function chargeTarget(key: KeyRecord, info: RequestInfo) {
  // The latency budget counts from the request's arrival, queueing included.
  const arrivedAt = Date.now() - (performance.now() - info.startedAt);
  return { account: key.accountId, keyId: key.id, requestId: info.requestId, signal: info.signal, arrivedAt };
}

/**
 * A search is charged for the work done: once it found pages (or documents) and wrote an answer from them,
 * whether or not the answer cites them, since what the answer cites is up to the prompt. Only a search that
 * found no page at all (the "sources do not contain an answer" reply, written without a model) is free.
 */
export function isChargeable(search: { readonly documents: readonly unknown[] }): boolean {
  return search.documents.length > 0;
}

/** Failures of `POST /v1/extract` that come before any request to the page's server: those pages are free. */
const REFUSED_BEFORE_REQUEST: ReadonlySet<string> = new Set([
  'bad_url',
  'blocked_address',
  'robots_disallowed',
  'aborted',
]);

/**
 * What a `POST /v1/extract` costs: `cost` per page read, and `failedShare` of it per page requested from
 * its server but not read (summed, rounded up), so that a fan-out of failing fetches is not free.
 */
export function extractCharge(
  results: readonly (ExtractedPage | FailedPage)[],
  cost: number,
  failedShare: number,
): number {
  const read = results.filter(isExtracted).length;
  const failed = results.filter(
    (result) => 'error' in result && !REFUSED_BEFORE_REQUEST.has(result.error.code),
  ).length;
  // Rounded to 1e-9 first, so that 4 × 0.25 is 1, not a float above it rounded up to 2.
  return read * cost + Math.ceil(Math.round(failed * cost * failedShare * 1e9) / 1e9);
}

/** The money path's `onSettled` hook that records each commit as a charge and each refund as a refund. */
export function recordUsageOf(usage: UsageRecorder): NonNullable<MoneyPathOptions['onSettled']> {
  return (target: ChargeTarget, action, amount) => {
    if (target.keyId === undefined) return;
    usage.recordSearch({
      accountId: target.account,
      keyId: target.keyId,
      kind: action === 'commit' ? 'charge' : 'refund',
      credits: amount,
    });
  };
}
