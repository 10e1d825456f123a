/**
 * Idempotency-Key support: a retried search with the same key and body replays the stored response
 * instead of running (and charging) again.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ProtocolResponse } from './handler.ts';

/** What {@link IdempotencyStore.begin} found for a scope. */
export type IdempotencyState =
  | { readonly state: 'new' }
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly fingerprint: string; readonly response: StoredResponse };

/** A completed response, kept for replay. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Remembers requests by `scope` (API key id + Idempotency-Key). `begin` must be atomic: of concurrent
 * begins for one scope, exactly one sees `new`.
 */
export interface IdempotencyStore {
  begin(scope: string, fingerprint: string): Promise<IdempotencyState>;
  /** Stores the response of a request that began. */
  complete(scope: string, response: StoredResponse): Promise<void>;
  /** Forgets a request that failed, so that a retry runs again. */
  abandon(scope: string): Promise<void>;
}

/** Options of {@link createMemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** How long a completed response is replayed. @default 86_400_000 (24 h) */
  readonly ttlMs?: number;
  /** Most remembered keys; the least recently used are forgotten first. @default 10_000 */
  readonly maxEntries?: number;
}

type Entry = { fingerprint: string; response?: StoredResponse };

/** An in-process idempotency store (per instance; bounded by entries and time). */
export function createMemoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): IdempotencyStore {
  const ttl = options.ttlMs ?? 86_400_000;
  const max = options.maxEntries ?? 10_000;
  if (!Number.isSafeInteger(ttl) || ttl < 1) throw new RangeError('ttlMs must be a positive integer');
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('maxEntries must be a positive integer');
  const entries = new LRUCache<string, Entry>({ max, ttl });
  return {
    async begin(scope, fingerprint) {
      const entry = entries.get(scope);
      if (!entry) {
        entries.set(scope, { fingerprint });
        return { state: 'new' };
      }
      return entry.response
        ? { state: 'done', fingerprint: entry.fingerprint, response: entry.response }
        : { state: 'in_progress', fingerprint: entry.fingerprint };
    },
    async complete(scope, response) {
      const entry = entries.get(scope);
      if (entry) entries.set(scope, { ...entry, response });
    },
    async abandon(scope) {
      entries.delete(scope);
    },
  };
}

/** A stable fingerprint of a JSON body: key order does not matter. */
export function fingerprintBody(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether a response may be stored for replay (only successful, whole bodies). */
export function isReplayable(response: ProtocolResponse): response is ProtocolResponse & { body: string } {
  return response.status === 200 && typeof response.body === 'string';
}
