/**
 * Batches usage records so that recording never slows a search: `recordSearch` only appends to an array;
 * a timer (or a full batch) writes them to the {@link UsageStore} in one transaction.
 */
import { integerOption, positiveInteger } from '../options.ts';
import type { GrantUsage, SearchUsage, UsageRecord, UsageRecorder, UsageStore } from './account-types.ts';

/** Options of {@link createUsageRecorder}. */
export interface UsageRecorderOptions {
  /** Longest time a record waits before it is written, in ms. @default 1_000 */
  readonly flushIntervalMs?: number;
  /** A batch this large is written at once. @default 500 */
  readonly maxBatch?: number;
  /** Records kept while the store cannot be written (oldest dropped past this). @default 100_000 */
  readonly maxPending?: number;
  /** Told when a batch could not be written (it is retried with the next flush). @default ignore */
  readonly onError?: (error: unknown) => void;
  /** Clock in epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** A {@link UsageRecorder} that writes in batches, searches and grants. */
export interface BatchingUsageRecorder extends UsageRecorder {
  recordGrant(grant: GrantUsage): void;
  /** Queues any usage record. */
  record(record: UsageRecord): void;
  /** Writes everything queued now (pages call it before they read usage). */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

/** Defaults of {@link UsageRecorderOptions}. */
export const USAGE_RECORDER_DEFAULTS = {
  flushIntervalMs: 1_000,
  maxBatch: 500,
  maxPending: 100_000,
} as const;

/** Creates a batching recorder writing to `store`. */
export function createUsageRecorder(
  store: UsageStore,
  options: UsageRecorderOptions = {},
): BatchingUsageRecorder {
  const flushIntervalMs = positiveInteger(
    'flushIntervalMs',
    options.flushIntervalMs,
    USAGE_RECORDER_DEFAULTS.flushIntervalMs,
  );
  const maxBatch = positiveInteger('maxBatch', options.maxBatch, USAGE_RECORDER_DEFAULTS.maxBatch);
  const maxPending = integerOption(
    'maxPending',
    options.maxPending,
    USAGE_RECORDER_DEFAULTS.maxPending,
    maxBatch,
  );
  const now = options.now ?? Date.now;
  let pending: UsageRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  function schedule(): void {
    if (pending.length >= maxBatch) void flush();
    else timer ??= setTimeout(() => void flush(), flushIntervalMs).unref();
  }

  function record(usage: UsageRecord): void {
    pending.push(usage);
    if (pending.length > maxPending) pending.splice(0, pending.length - maxPending);
    schedule();
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    // Writes run one after another, in order.
    writing = writing.then(async () => {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        try {
          await store.append(batch);
        } catch (error) {
          options.onError?.(error);
          timer ??= setTimeout(() => void flush(), flushIntervalMs).unref();
          return;
        }
        pending = pending.slice(batch.length);
      }
    });
    return writing;
  }

  return {
    recordSearch(usage: SearchUsage) {
      record({
        at: now(),
        accountId: usage.accountId,
        keyId: usage.keyId,
        kind: usage.kind,
        credits: usage.credits,
        note: null,
      });
    },
    recordGrant(grant: GrantUsage) {
      record({
        at: now(),
        accountId: grant.accountId,
        keyId: null,
        kind: 'grant',
        credits: grant.credits,
        note: grant.note,
      });
    },
    record,
    flush,
    async close() {
      await flush();
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
