import { describe, expect, it } from 'vitest';
import type { RateLimiter, RateLimitOptions, RateLimitResult } from '../stores/types.ts';
import { openedPerTest, sleep } from './helpers.ts';

/** Makes a fresh limiter with the given limits for one test. The suite closes it after the test. */
export type MakeRateLimiter = (options: RateLimitOptions) => Promise<RateLimiter> | RateLimiter;

/**
 * Runs the {@link RateLimiter} conformance suite (vitest) against `makeLimiter`. Call it at the top level of
 * a test file. Every test gets a new limiter (with fresh state) and closes it afterwards. Uses the real
 * clock; waits are lower bounds only, so a slow machine cannot make it fail.
 */
export function describeRateLimiter(name: string, makeLimiter: MakeRateLimiter): void {
  describe(`RateLimiter conformance: ${name}`, () => {
    const open = openedPerTest(makeLimiter);

    it('allows `limit` requests, then denies with a retry time within the window', async () => {
      const windowMs = 600_000;
      const limiter = await open({ limit: 3, windowMs });
      const before = Date.now();
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await limiter.consume('k'));
      const after = Date.now();
      expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
      expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
      for (const result of results) {
        expect(result.limit).toBe(3);
        expect(result.resetAt).toBeGreaterThanOrEqual(before);
        expect(result.resetAt).toBeLessThanOrEqual(after + windowMs + 1);
      }
      for (const result of results.slice(0, 3)) expect(result.retryAfterMs).toBe(0);
      const denied = results[3]!;
      expect(denied.retryAfterMs).toBeGreaterThan(0);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(windowMs);
      expect(denied.resetAt).toBeGreaterThan(before);
      // Denied requests take nothing: still denied, never negative.
      const again = await limiter.consume('k');
      expect(again.allowed).toBe(false);
      expect(again.remaining).toBe(0);
    });

    it('is exact under concurrency: 50 concurrent requests with limit 10 → exactly 10 allowed', async () => {
      const limiter = await open({ limit: 10, windowMs: 600_000 });
      const results = await Promise.all(Array.from({ length: 50 }, () => limiter.consume('busy')));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      for (const denied of results.filter((r) => !r.allowed)) {
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(600_000);
      }
    });

    it('keeps keys independent', async () => {
      const limiter = await open({ limit: 2, windowMs: 600_000 });
      expect((await limiter.consume('a')).allowed).toBe(true);
      expect((await limiter.consume('a')).allowed).toBe(true);
      expect((await limiter.consume('a')).allowed).toBe(false);
      const b = await limiter.consume('b');
      expect(b.allowed).toBe(true);
      expect(b.remaining).toBe(1);
    });

    it('charges `cost` tokens at once', async () => {
      const limiter = await open({ limit: 5, windowMs: 600_000 });
      const first = await limiter.consume('k', 3);
      expect(first).toMatchObject({ allowed: true, remaining: 2 });
      expect((await limiter.consume('k', 3)).allowed).toBe(false);
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('replenishes: after waiting retryAfterMs the next request is allowed', async () => {
      const limiter = await open({ limit: 2, windowMs: 400 });
      let denied: RateLimitResult | undefined;
      for (let i = 0; i < 10 && !denied; i++) {
        const result = await limiter.consume('k');
        if (!result.allowed) denied = result;
      }
      if (!denied) throw new Error('limit 2 never denied within 10 requests');
      expect(denied.retryAfterMs).toBeGreaterThan(0);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(400);
      await sleep(denied.retryAfterMs + 5);
      expect((await limiter.consume('k')).allowed).toBe(true);
    });

    it('is fully replenished after a whole window', async () => {
      const limiter = await open({ limit: 3, windowMs: 300 });
      for (let i = 0; i < 5; i++) await limiter.consume('k');
      await sleep(320);
      const result = await limiter.consume('k');
      expect(result).toMatchObject({ allowed: true, remaining: 2, retryAfterMs: 0 });
    });
  });
}
