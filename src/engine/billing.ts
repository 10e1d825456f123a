/**
 * Who pays for a search and when: the charge target of a request, the rule that a search which found no
 * page at all is free, and the usage records of every commit and refund. The hold → commit/refund sequence itself is
 * the money path (money-path.ts).
 */
import type { RequestInfo } from '../http/handler.ts';
import type { UsageRecorder } from '../stores/accounts/types.ts';
import type { KeyRecord } from '../stores/types.ts';
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
