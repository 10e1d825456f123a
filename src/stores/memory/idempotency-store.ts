import { LRUCache } from 'lru-cache';
import { positiveInteger } from '../../options.ts';
import type { IdempotencyStore, StoredResponse } from '../types.ts';
import { assertId, assertPositiveMs } from '../validation.ts';
import { claimedState } from '../idempotency-state.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createMemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** Most remembered keys; the least recently used are forgotten first. @default 10_000 */
  readonly maxEntries?: number;
}

type Entry = { readonly fingerprint: string; readonly response?: StoredResponse };

/**
 * An in-process {@link IdempotencyStore}: per instance, bounded by entries and time. Several instances
 * behind one load balancer need a shared one (SQLite on one machine, Redis or PostgreSQL).
 */
export function createMemoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): IdempotencyStore {
  const max = positiveInteger('maxEntries', options.maxEntries, STORE_DEFAULTS.maxIdempotencyEntries);
  // Every entry gets its own ttl (the lease while in progress, the replay time once done).
  const entries = new LRUCache<string, Entry>({ max, ttlAutopurge: false });
  return {
    async begin(scope, fingerprint, leaseMs) {
      assertId(scope, 'scope');
      assertPositiveMs(leaseMs, 'leaseMs');
      const entry = entries.get(scope);
      if (!entry) {
        entries.set(scope, { fingerprint }, { ttl: Math.ceil(leaseMs) });
        return { state: 'new' };
      }
      return claimedState(entry.fingerprint, entry.response);
    },
    async complete(scope, response, ttlMs) {
      assertId(scope, 'scope');
      assertPositiveMs(ttlMs, 'ttlMs');
      const entry = entries.get(scope);
      if (entry) entries.set(scope, { ...entry, response }, { ttl: Math.ceil(ttlMs) });
    },
    async abandon(scope) {
      assertId(scope, 'scope');
      if (entries.get(scope)?.response === undefined) entries.delete(scope);
    },
  };
}
