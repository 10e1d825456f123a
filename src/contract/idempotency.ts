/**
 * Idempotency-Key support: a retried search with the same key and body replays the stored response
 * instead of running (and charging) again. The stores live in `src/stores/` like the others.
 */
import { createHash } from 'node:crypto';
import type { ProtocolResponse } from './protocol.ts';

export type { IdempotencyState, IdempotencyStore, StoredResponse } from '../stores/types.ts';
export {
  createMemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from '../stores/memory/idempotency-store.ts';

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
