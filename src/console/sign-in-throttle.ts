/**
 * Throttling of sign-in (and sign-up) attempts, so that guessing is slow and nobody can lock an owner out:
 *
 * - per client address, every attempt counts (a spray over many accounts from one address);
 * - per address and account, the failed sign-ins of that account from that address (guessing one password);
 * - per account, the failed sign-ins from every address. Past this, the account is under attack: an address
 *   that has failed on it may not try again for a while, but one that has not still may, so its owner, who
 *   types the right password from their own address, gets in. A guesser with many addresses gets one guess
 *   per address in the window.
 *
 * Only wrong passwords count against an account: knowing someone's email is not enough to lock them out.
 */
import { createMemoryRateLimiter } from '../stores/memory/rate-limiter.ts';
import type { RateLimitOptions } from '../stores/types.ts';

/** Defaults of the three limits (each `limit` per `windowMs`). */
export const SIGN_IN_THROTTLE_DEFAULTS = {
  perAddress: { limit: 50, windowMs: 900_000 },
  perAccount: { limit: 10, windowMs: 900_000 },
  perAddressAndAccount: { limit: 5, windowMs: 900_000 },
} as const satisfies Record<string, RateLimitOptions>;

/** Options of {@link createSignInThrottle}: see the module comment. */
export interface SignInThrottleOptions {
  /** Attempts (sign-in and sign-up) per client address. */
  readonly perAddress?: RateLimitOptions;
  /** Failed sign-ins of one account, from every address, before it counts as under attack. */
  readonly perAccount?: RateLimitOptions;
  /** Failed sign-ins of one account from one address. */
  readonly perAddressAndAccount?: RateLimitOptions;
}

/** A refused attempt: how long to wait. */
export interface Refusal {
  readonly retryAfterMs: number;
}

/** See the module comment. */
export interface SignInThrottle {
  /** Counts an attempt from `address` (for `email`, when signing in); a {@link Refusal} or `null` to go on. */
  admit(address: string, email: string | null): Promise<Refusal | null>;
  /** Records a wrong password for `email` from `address`. */
  failed(address: string, email: string): Promise<void>;
}

/** Creates a {@link SignInThrottle} in process memory. */
export function createSignInThrottle(options: SignInThrottleOptions = {}): SignInThrottle {
  const defaults = SIGN_IN_THROTTLE_DEFAULTS;
  const attempts = createMemoryRateLimiter(options.perAddress ?? defaults.perAddress);
  const accountFailures = createMemoryRateLimiter(options.perAccount ?? defaults.perAccount);
  const pairFailures = createMemoryRateLimiter(options.perAddressAndAccount ?? defaults.perAddressAndAccount);
  const pairKey = (address: string, email: string) => `pair:${address}:${email}`;
  return {
    async admit(address, email) {
      const byAddress = await attempts.consume(`address:${address}`);
      if (!byAddress.allowed) return { retryAfterMs: byAddress.retryAfterMs };
      if (email === null) return null;
      // Cost 0: a look at the failures so far, counting nothing.
      const pair = await pairFailures.consume(pairKey(address, email), 0);
      const account = await accountFailures.consume(`email:${email}`, 0);
      const failedHere = pair.remaining < pair.limit;
      if (pair.remaining === 0 || (account.remaining === 0 && failedHere)) {
        return { retryAfterMs: Math.max(1_000, pair.resetAt - Date.now()) };
      }
      return null;
    },
    async failed(address, email) {
      // A full bucket refuses the consume: the count stays at its limit, which is what matters.
      await pairFailures.consume(pairKey(address, email));
      await accountFailures.consume(`email:${email}`);
    },
  };
}
