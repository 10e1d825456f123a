/**
 * Open event streams (`GET /v1/research/{id}/events`) counted per key and per account in this process: a
 * stream past either cap is refused with 429 (`too_many_streams`, `Retry-After`) before it holds a
 * connection, so one key, or one account's keys, cannot fill the service's connection caps with streams
 * that cost nothing. A slot is given back once, when the stream ends or its client goes away.
 */
import { CitewiseError } from '../errors.ts';
import type { KeyRecord } from '../stores/types.ts';

/** Caps of {@link createStreamSlots}. */
export interface StreamSlotLimits {
  readonly maxPerKey: number;
  readonly maxPerAccount: number;
  /** `Retry-After` of the 429. */
  readonly retryAfterMs: number;
}

/** Slots of open event streams. */
export interface StreamSlots {
  /**
   * Takes a slot for a stream of `key`, or throws the 429. The slot is released by the returned function
   * (only its first call counts) or when `signal` aborts, whichever comes first.
   */
  acquire(key: KeyRecord, signal?: AbortSignal): () => void;
  /** Streams open now, in total. */
  readonly open: number;
}

/** Creates the counters. */
export function createStreamSlots(limits: StreamSlotLimits): StreamSlots {
  const byKey = new Map<string, number>();
  const byAccount = new Map<string, number>();
  let open = 0;
  const change = (counts: Map<string, number>, id: string, delta: number): void => {
    const next = (counts.get(id) ?? 0) + delta;
    if (next <= 0) counts.delete(id);
    else counts.set(id, next);
  };
  return {
    acquire(key, signal) {
      const whose =
        (byKey.get(key.id) ?? 0) >= limits.maxPerKey
          ? { who: 'key', cap: limits.maxPerKey }
          : (byAccount.get(key.accountId) ?? 0) >= limits.maxPerAccount
            ? { who: 'account', cap: limits.maxPerAccount }
            : null;
      if (whose) {
        throw new CitewiseError('too_many_streams', `${whose.who} at ${whose.cap} open event streams`, {
          description: `Too Many Requests: this ${whose.who} already has ${whose.cap} event streams open`,
          retryAfterMs: limits.retryAfterMs,
        });
      }
      change(byKey, key.id, 1);
      change(byAccount, key.accountId, 1);
      open++;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        signal?.removeEventListener('abort', release);
        change(byKey, key.id, -1);
        change(byAccount, key.accountId, -1);
        open--;
      };
      if (signal?.aborted) release();
      else signal?.addEventListener('abort', release, { once: true });
      return release;
    },
    get open() {
      return open;
    },
  };
}

/** `events` that gives its slot back (`release`) when it ends, fails or is closed early. */
export async function* releasingAtEnd<T>(events: AsyncIterable<T>, release: () => void): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    release();
  }
}
