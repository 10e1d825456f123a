/**
 * Who pays for a search and when: the charge target of a request and the rule that a search without
 * sources is free. The hold → commit/refund sequence itself is the money path (money-path.ts); the ledger
 * entry of each is the credits service's (credits.ts).
 */
import type { RequestInfo } from '../http/handler.ts';
import type { KeyRecord } from '../stores/types.ts';

/** Who pays for a search: the key's account, held under the request id. */
export function chargeTarget(key: KeyRecord, info: RequestInfo) {
  // The latency budget counts from the request's arrival, queueing included.
  const arrivedAt = Date.now() - (performance.now() - info.startedAt);
  return { account: key.accountId, keyId: key.id, requestId: info.requestId, signal: info.signal, arrivedAt };
}

/** A search is charged only when its answer has sources: finding nothing costs nothing. */
export function isChargeable(sources: readonly string[]): boolean {
  return sources.length > 0;
}
