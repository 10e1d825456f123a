/**
 * Per-host politeness that does not serialize a service: each host (`host:port`) gets a cap on requests in
 * flight and a request rate (a token bucket: `ratePerSecond` sustained, `burst` at once), and its waiting
 * requests are served fairly between the searches that wait on it.
 *
 * When a host has room, the next request is the waiting one with the lowest priority number (the page's
 * position among its search's results: every search's first result goes before anyone's second), then the
 * one whose owner (the search) has the fewest requests running on that host, then the oldest. A search
 * reading 40 results of one site therefore does not hold back another search's first pages. A waiting
 * request whose signal aborts (every search waiting on it answered) leaves the queue without being sent.
 */
import { abortReason, asError } from '../abort.ts';
import { SPECULATIVE_PRIORITY } from '../types.ts';

/** Limits applied to every host. */
export interface HostLimits {
  /** Requests in flight at once to one host. */
  readonly concurrency: number;
  /** Requests started per second to one host, sustained. */
  readonly ratePerSecond: number;
  /** Requests that may start at once after a quiet spell (the token bucket's size). */
  readonly burst: number;
  /** A host whose recent requests took at most this long (moving average, ms) counts as fast. */
  readonly fastMs: number;
}

/** Who waits for a host slot, read when the host picks its next request (a shared fetch's waiters change). */
export interface SlotTicket {
  /** The search asking (its request id): the host's turns are shared fairly between owners. */
  owner(): string;
  /** Lower goes first: the page's position among the search's results. */
  priority(): number;
}

/** A host's state, as the scheduler sees it now. */
export interface HostLoad {
  readonly running: number;
  readonly waiting: number;
}

/** Schedules requests per host. */
export interface HostScheduler {
  /**
   * Runs `task` once `host` has room for it under its limits and it is this ticket's turn. Rejects with the
   * signal's reason if the signal aborts while waiting (the request is then never sent).
   */
  run<T>(host: string, ticket: SlotTicket, signal: AbortSignal, task: () => Promise<T>): Promise<T>;
  /** Requests running and waiting for `host`. */
  load(host: string): HostLoad;
  /**
   * Whether a request to `host` now would be quick and cost nobody a turn: the host's recent requests took
   * at most `fastMs` on average (over at least {@link FAST_HOST_SAMPLES}), none is waiting, and it has a
   * free slot and a token.
   */
  isFastWithRoom(host: string): boolean;
  /** Rejects every waiting request with `reason` and forgets every host. */
  clear(reason: unknown): void;
}

interface Waiter {
  readonly ticket: SlotTicket;
  readonly seq: number;
  readonly start: () => void;
  readonly fail: (reason: unknown) => void;
}

interface HostState {
  running: number;
  readonly runningBy: Map<string, number>;
  readonly waiting: Set<Waiter>;
  tokens: number;
  refilledAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Share of a host's slots and of its burst that a speculative request (a page read ahead) leaves free for
 * needed ones: it starts only while fewer than three quarters of the slots are busy and a quarter of the
 * burst is still in the bucket. Half (the first value) kept read-ahead idle on a busy site, where the bucket
 * seldom refills that far: with 4 searches in flight on one host, the pages read deeper were all fetched
 * after the first pages (bench:qa p50 1,340 → 1,279 ms with a quarter, the same answers).
 */
export const SPECULATIVE_RESERVE = 0.25;

/** Hosts kept once idle before the idle ones whose bucket is full again are forgotten. */
const PRUNE_ABOVE = 1024;
/** Requests timed on a host before it can count as fast. */
export const FAST_HOST_SAMPLES = 3;
/** Weight of the latest request in a host's moving average of request time. */
const SPEED_WEIGHT = 0.3;

/** A host's moving average of request time, kept for the {@link PRUNE_ABOVE} most recent hosts. */
interface Speed {
  averageMs: number;
  samples: number;
}

/** Creates a {@link HostScheduler}. `now` is injectable for tests (epoch ms). */
export function createHostScheduler(limits: HostLimits, now: () => number = Date.now): HostScheduler {
  const hosts = new Map<string, HostState>();
  const speeds = new Map<string, Speed>();
  let seq = 0;
  // What a speculative request leaves free: SPECULATIVE_RESERVE of the host's slots and of its burst.
  const speculativeSlots = Math.max(1, Math.floor(limits.concurrency * (1 - SPECULATIVE_RESERVE)));
  const speculativeTokens = Math.max(1, limits.burst * SPECULATIVE_RESERVE);

  const timed = (host: string, ms: number): void => {
    const speed = speeds.get(host);
    speeds.delete(host);
    if (speeds.size >= PRUNE_ABOVE) speeds.delete(speeds.keys().next().value!);
    speeds.set(
      host,
      speed
        ? { averageMs: speed.averageMs + SPEED_WEIGHT * (ms - speed.averageMs), samples: speed.samples + 1 }
        : { averageMs: ms, samples: 1 },
    );
  };

  const refill = (state: HostState): void => {
    const at = now();
    state.tokens = Math.min(
      limits.burst,
      state.tokens + ((at - state.refilledAt) / 1000) * limits.ratePerSecond,
    );
    state.refilledAt = at;
  };

  const isIdle = (state: HostState): boolean => state.running === 0 && state.waiting.size === 0;

  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (!state) {
      if (hosts.size >= PRUNE_ABOVE) prune();
      state = {
        running: 0,
        runningBy: new Map(),
        waiting: new Set(),
        tokens: limits.burst,
        refilledAt: now(),
        timer: undefined,
      };
      hosts.set(host, state);
    }
    return state;
  };

  /** Forgets idle hosts whose bucket is full again: they start from a full bucket anyway. */
  function prune(): void {
    for (const [host, state] of hosts) {
      if (!isIdle(state)) continue;
      refill(state);
      if (state.tokens >= limits.burst) {
        clearTimeout(state.timer);
        hosts.delete(host);
      }
    }
  }

  /** The waiter whose turn it is: lowest priority number, then owner with the fewest running, then oldest. */
  const next = (state: HostState): Waiter | undefined => {
    let best: { waiter: Waiter; key: readonly number[] } | undefined;
    for (const waiter of state.waiting) {
      const key = [waiter.ticket.priority(), state.runningBy.get(waiter.ticket.owner()) ?? 0, waiter.seq];
      if (!best || comesBefore(key, best.key)) best = { waiter, key };
    }
    return best?.waiter;
  };

  const dispatch = (host: string, state: HostState): void => {
    while (state.waiting.size > 0 && state.running < limits.concurrency) {
      refill(state);
      const waiter = next(state)!;
      // A speculative request needs room to spare: it leaves a share of the slots and of the burst free.
      const speculative = waiter.ticket.priority() >= SPECULATIVE_PRIORITY;
      const tokensNeeded = speculative ? speculativeTokens : 1;
      if (speculative && state.running >= speculativeSlots) return;
      if (state.tokens < tokensNeeded) {
        // Come back when enough tokens are in.
        if (state.timer === undefined) {
          const waitMs = Math.ceil(((tokensNeeded - state.tokens) / limits.ratePerSecond) * 1000);
          state.timer = setTimeout(() => {
            state.timer = undefined;
            dispatch(host, state);
          }, waitMs);
        }
        return;
      }
      state.waiting.delete(waiter);
      state.tokens -= 1;
      waiter.start();
    }
  };

  return {
    run<T>(host: string, ticket: SlotTicket, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
      if (signal.aborted) return Promise.reject(abortReason(signal));
      const state = stateOf(host);
      return new Promise<T>((resolve, reject) => {
        const onAbort = (): void => {
          if (!state.waiting.delete(waiter)) return;
          reject(abortReason(signal));
        };
        const waiter: Waiter = {
          ticket,
          seq: seq++,
          fail: (reason) => {
            signal.removeEventListener('abort', onAbort);
            reject(asError(reason));
          },
          start: () => {
            signal.removeEventListener('abort', onAbort);
            const owner = ticket.owner();
            const startedAt = now();
            state.running++;
            state.runningBy.set(owner, (state.runningBy.get(owner) ?? 0) + 1);
            const done = (): void => {
              timed(host, now() - startedAt);
              state.running--;
              const left = (state.runningBy.get(owner) ?? 1) - 1;
              if (left === 0) state.runningBy.delete(owner);
              else state.runningBy.set(owner, left);
              dispatch(host, state);
              if (isIdle(state) && hosts.get(host) === state) {
                refill(state);
                if (state.tokens >= limits.burst) {
                  clearTimeout(state.timer);
                  hosts.delete(host);
                }
              }
            };
            let running: Promise<T>;
            try {
              running = task();
            } catch (error) {
              running = Promise.reject(asError(error));
            }
            running.then(
              (value) => {
                done();
                resolve(value);
              },
              (error: unknown) => {
                done();
                reject(asError(error));
              },
            );
          },
        };
        signal.addEventListener('abort', onAbort, { once: true });
        state.waiting.add(waiter);
        dispatch(host, state);
      });
    },
    load(host) {
      const state = hosts.get(host);
      return { running: state?.running ?? 0, waiting: state?.waiting.size ?? 0 };
    },
    isFastWithRoom(host) {
      const speed = speeds.get(host);
      if (!speed || speed.samples < FAST_HOST_SAMPLES || speed.averageMs > limits.fastMs) return false;
      const state = hosts.get(host);
      if (!state) return true;
      refill(state);
      return state.waiting.size === 0 && state.running < limits.concurrency && state.tokens >= 1;
    },
    clear(reason) {
      for (const state of hosts.values()) {
        clearTimeout(state.timer);
        for (const waiter of state.waiting) waiter.fail(reason);
        state.waiting.clear();
      }
      hosts.clear();
      speeds.clear();
    },
  };
}

/** Lexicographic order of two keys of equal length. */
function comesBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}
