/**
 * Search slots shared fairly between accounts. One account may hold at most a share of the running
 * searches and of the waiting ones, and a freed slot goes to the next account in turn (round-robin), not to
 * whoever queued first (the account running the fewest searches goes first) — so a tenant that floods the
 * service waits behind its own searches, not in front of everybody else's.
 */
import { CitewiseError } from '../errors.ts';
import { nonNegativeInteger, positiveInteger } from '../options.ts';

/** Options of {@link createFairScheduler}. */
export interface FairSchedulerOptions {
  /** Searches running at once. @default 8 */
  readonly concurrency?: number;
  /** Searches allowed to wait for a slot, all accounts together; past this, 503. @default 64 */
  readonly maxQueued?: number;
  /**
   * Largest share (0–1] of the running searches, and of the waiting ones, that one account may hold; at
   * least one each. 1 turns the per-account cap off (one tenant may use every slot).
   * @default 0.5
   */
  readonly maxAccountShare?: number;
}

/** Defaults of {@link FairSchedulerOptions}. */
export const FAIR_SCHEDULER_DEFAULTS = { concurrency: 8, maxQueued: 64, maxAccountShare: 0.5 } as const;

/** Hands out search slots; see the module comment. */
export interface FairScheduler {
  /**
   * Waits for a slot for `account` and holds it until the returned `release` is called (call it exactly
   * once). Rejects with a 503 {@link CitewiseError} (`Retry-After`) when the queue, or the account's share
   * of it, is full, and with `signal.reason` when the signal aborts while waiting.
   */
  acquire(account: string, signal: AbortSignal): Promise<() => void>;
  /** Searches holding a slot. */
  readonly running: number;
  /** Searches waiting for a slot. */
  readonly waiting: number;
  /** Refuses every waiting search (with a 503) and every later one; running ones keep their slots. */
  close(): void;
}

interface Waiter {
  readonly grant: () => void;
  readonly refuse: (reason: Error) => void;
}

const QUEUE_FULL_RETRY_MS = 1_000;

/** Creates a {@link FairScheduler}. Throws `RangeError` on bad options. */
export function createFairScheduler(options: FairSchedulerOptions = {}): FairScheduler {
  const concurrency = positiveInteger(
    'concurrency',
    options.concurrency,
    FAIR_SCHEDULER_DEFAULTS.concurrency,
  );
  const maxQueued = nonNegativeInteger('maxQueued', options.maxQueued, FAIR_SCHEDULER_DEFAULTS.maxQueued);
  const share = options.maxAccountShare ?? FAIR_SCHEDULER_DEFAULTS.maxAccountShare;
  if (typeof share !== 'number' || !(share > 0 && share <= 1)) {
    throw new RangeError(`maxAccountShare must be greater than 0 and at most 1, got ${String(share)}`);
  }
  const runningCap = Math.max(1, Math.floor(concurrency * share));
  const waitingCap = Math.max(1, Math.floor(maxQueued * share));

  const runningBy = new Map<string, number>();
  // Accounts with waiting searches, in turn order: an account served moves to the back.
  const waitingBy = new Map<string, Waiter[]>();
  let running = 0;
  let waiting = 0;
  let closed = false;

  function refusal(reason: string): CitewiseError {
    return new CitewiseError('service_unavailable', reason, {
      description: 'Service Unavailable: too many searches in progress, retry shortly',
      retryAfterMs: QUEUE_FULL_RETRY_MS,
    });
  }

  function take(account: string): () => void {
    running += 1;
    runningBy.set(account, (runningBy.get(account) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running -= 1;
      const left = runningBy.get(account)! - 1;
      if (left === 0) runningBy.delete(account);
      else runningBy.set(account, left);
      dispatch();
    };
  }

  /**
   * Gives free slots to waiting searches: to the account running the fewest searches, and among equals to
   * the one whose turn it is — so an account that waits gets the next free slot even behind a flood.
   */
  function dispatch(): void {
    while (running < concurrency) {
      let next: [string, Waiter[]] | undefined;
      let fewest = runningCap;
      for (const entry of waitingBy) {
        const count = runningBy.get(entry[0]) ?? 0;
        if (count < fewest) [next, fewest] = [entry, count];
      }
      if (!next) return;
      const [account, queue] = next;
      const waiter = queue.shift()!;
      waiting -= 1;
      waitingBy.delete(account);
      if (queue.length > 0) waitingBy.set(account, queue);
      waiter.grant();
    }
  }

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
    acquire(account, signal) {
      if (signal.aborted) return Promise.reject(abortReason(signal));
      if (closed) return Promise.reject(refusal('scheduler closed'));
      const queue = waitingBy.get(account);
      if (!queue && running < concurrency && (runningBy.get(account) ?? 0) < runningCap) {
        return Promise.resolve(take(account));
      }
      if (waiting >= maxQueued) return Promise.reject(refusal('search queue full'));
      if ((queue?.length ?? 0) >= waitingCap) {
        return Promise.reject(refusal('account holds its share of the search queue'));
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const list = waitingBy.get(account);
          const index = list?.indexOf(waiter) ?? -1;
          if (index < 0) return;
          list!.splice(index, 1);
          waiting -= 1;
          if (list!.length === 0) waitingBy.delete(account);
          reject(abortReason(signal));
        };
        const waiter: Waiter = {
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve(take(account));
          },
          refuse: (reason) => {
            signal.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        signal.addEventListener('abort', onAbort, { once: true });
        if (queue) queue.push(waiter);
        else waitingBy.set(account, [waiter]);
        waiting += 1;
      });
    },
    close() {
      closed = true;
      const refused = [...waitingBy.values()].flat();
      waitingBy.clear();
      waiting = 0;
      for (const waiter of refused) waiter.refuse(refusal('scheduler closed'));
    },
  };
}

/** Why the signal aborted, as an Error (what the waiting search is rejected with). */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
}
