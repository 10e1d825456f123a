/**
 * Who pays for a search and when: the charge target of a request, the rule that a search without sources
 * is free, and the usage records of every commit and refund. The hold → commit/refund sequence itself is
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
  // A research job's search: the job's own hold pays for it (src/jobs/), so nothing is held here.
  if (info.prepaid)
    return { account: key.accountId, requestId: info.requestId, signal: info.signal, arrivedAt, amount: 0 };
  return { account: key.accountId, keyId: key.id, requestId: info.requestId, signal: info.signal, arrivedAt };
}

/** A search is charged only when its answer has sources: finding nothing costs nothing. */
export function isChargeable(sources: readonly string[]): boolean {
  return sources.length > 0;
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
