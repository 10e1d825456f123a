import { positiveInteger } from '../../options.ts';
import { assertCost, gcraStep } from '../gcra.ts';
import type { RateLimiter, RateLimitOptions } from '../types.ts';
import { assertId, normalizeClock, normalizeRateLimitOptions } from '../validation.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createMemoryRateLimiter}. */
export interface MemoryRateLimiterOptions extends Partial<RateLimitOptions> {
  /**
   * Most keys tracked at once. Idle keys (fully replenished) are dropped first; past this bound the least
   * recently used key is forgotten, which can only make the limiter more lenient for that key.
   * @default 100_000
   */
  readonly maxKeys?: number;
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** An in-memory GCRA {@link RateLimiter}; `size` is the number of keys currently tracked. */
export interface MemoryRateLimiter extends RateLimiter {
  readonly size: number;
}

/**
 * Creates a per-key GCRA rate limiter in process memory: bursts of up to `limit`, then one request every
 * `windowMs / limit` ms. Exact under concurrency within one process (each decision is synchronous).
 * Keys idle long enough to be fully replenished are evicted, so memory is bounded by recent keys and `maxKeys`.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const limits = normalizeRateLimitOptions(options);
  const now = normalizeClock(options.now);
  const maxKeys = positiveInteger('maxKeys', options.maxKeys, STORE_DEFAULTS.maxRateLimitKeys);

  // key → TAT; Map order is least recently updated first.
  const tats = new Map<string, number>();
  let lastSweep = now();

  function sweep(at: number): void {
    for (const [key, tat] of tats) if (tat <= at) tats.delete(key);
    lastSweep = at;
  }

  return {
    policy: { limit: limits.limit, windowMs: limits.windowMs },
    async consume(key: string, cost: number = STORE_DEFAULTS.rateLimitCost) {
      assertId(key, 'rate limit key');
      assertCost(cost, limits.limit);
      const at = now();
      // Every TAT is at most `windowMs` ahead of the time it was set, so one sweep per window drops
      // every key idle for a full window.
      if (at - lastSweep >= limits.windowMs) sweep(at);
      const step = gcraStep(tats.get(key), at, cost, limits);
      if (step.result.allowed) {
        tats.delete(key);
        if (step.tat > at) tats.set(key, step.tat);
        if (tats.size > maxKeys) {
          sweep(at);
          for (const oldest of tats.keys()) {
            if (tats.size <= maxKeys) break;
            tats.delete(oldest);
          }
        }
      }
      return step.result;
    },
    get size() {
      return tats.size;
    },
    async ping() {},
    async close() {
      tats.clear();
    },
  };
}
