/**
 * The Generic Cell Rate Algorithm, shared by every built-in rate limiter. State per key is a single number,
 * the theoretical arrival time (TAT). A limiter of `limit` per `windowMs` emits one token every
 * `windowMs / limit` ms and allows bursts of `limit`. A key whose TAT is at or before `now` is fully
 * replenished and its state may be dropped, which is how limiters evict idle keys.
 */
import type { RateLimitOptions, RateLimitResult } from './types.ts';

// Tolerance for floating-point drift when the emission interval is not a whole number of ms.
const EPSILON_MS = 1e-6;

/** The outcome of one GCRA step: the result to return and the TAT to store (unchanged when denied). */
export interface GcraStep {
  readonly result: RateLimitResult;
  readonly tat: number;
}

/** Throws `TypeError`/`RangeError` unless `cost` is an integer in 0..limit. */
export function assertCost(cost: unknown, limit: number): asserts cost is number {
  if (typeof cost !== 'number') throw new TypeError('cost must be a number');
  if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError('cost must be a non-negative integer');
  if (cost > limit)
    throw new RangeError(`cost ${cost} exceeds the limit ${limit} and could never be allowed`);
}

/**
 * One GCRA decision. `storedTat` is the key's TAT, or `null`/`undefined` for a key with no state.
 * Pure: callers persist `tat` atomically with the read.
 */
export function gcraStep(
  storedTat: number | null | undefined,
  now: number,
  cost: number,
  { limit, windowMs }: RateLimitOptions,
): GcraStep {
  const interval = windowMs / limit;
  const tat = Math.max(storedTat ?? now, now);
  const newTat = tat + cost * interval;
  const allowAt = newTat - windowMs;
  if (allowAt - now > EPSILON_MS) {
    return {
      tat,
      result: {
        allowed: false,
        limit,
        remaining: remainingAt(tat, now, interval, windowMs),
        resetAt: Math.ceil(tat),
        retryAfterMs: Math.max(1, Math.ceil(allowAt - now - EPSILON_MS)),
      },
    };
  }
  return {
    tat: newTat,
    result: {
      allowed: true,
      limit,
      remaining: remainingAt(newTat, now, interval, windowMs),
      resetAt: Math.ceil(Math.max(newTat, now) - EPSILON_MS),
      retryAfterMs: 0,
    },
  };
}

function remainingAt(tat: number, now: number, interval: number, windowMs: number): number {
  return Math.max(0, Math.floor((now + windowMs - tat) / interval + EPSILON_MS));
}
