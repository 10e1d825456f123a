import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/stores/keys.ts';
import {
  createMemoryCreditStore,
  createMemoryIdempotencyStore,
  createMemoryKeyStore,
  createMemoryRateLimiter,
} from '../../src/stores/memory/index.ts';
import {
  describeCreditStore,
  describeIdempotencyStore,
  describeKeyStore,
  describeRateLimiter,
} from '../../src/testing/index.ts';
import { manualClock } from './helpers.ts';

describeKeyStore('memory', () => createMemoryKeyStore());
describeCreditStore('memory', () => createMemoryCreditStore());
describeRateLimiter('memory', (options) => createMemoryRateLimiter(options));
describeIdempotencyStore('memory', () => createMemoryIdempotencyStore());

describe('memory key store', () => {
  it('holds only the SHA-256 hash, never the raw key', async () => {
    const store = createMemoryKeyStore();
    const { key, record } = await store.create({ accountId: 'acct', name: 'n' });
    const dump = store.dump();
    expect(dump).toEqual([{ hash: hashApiKey(key), record }]);
    expect(JSON.stringify(dump)).not.toContain(key.slice(record.prefix.length));
  });

  it('expires a key exactly at expiresAt', async () => {
    const clock = manualClock();
    const store = createMemoryKeyStore({ now: clock.now });
    const { key } = await store.create({ accountId: 'acct', expiresAt: clock.now() + 1_000 });
    clock.advance(999);
    expect(await store.verify(key)).not.toBeNull();
    clock.advance(1);
    expect(await store.verify(key)).toBeNull();
  });

  it('returns null for non-string input', async () => {
    const store = createMemoryKeyStore();
    for (const input of [undefined, null, 42, {}]) expect(await store.verify(input as string)).toBeNull();
  });

  it('rejects a bad clock option', () => {
    expect(() => createMemoryKeyStore({ now: 5 as unknown as () => number })).toThrow(TypeError);
  });
});

describe('memory credit store', () => {
  it('lapses a reservation exactly at expiresAt and returns its credits', async () => {
    const clock = manualClock();
    const store = createMemoryCreditStore({ now: clock.now });
    await store.openAccount('acct', 10);
    const reservation = await store.reserve({ account: 'acct', id: 'r', amount: 4, ttlMs: 5_000 });
    expect(reservation.expiresAt).toBe(clock.now() + 5_000);
    clock.advance(4_999);
    expect(await store.balance('acct')).toBe(6);
    clock.advance(1);
    expect(await store.balance('acct')).toBe(10);
    expect(await store.commit('r')).toBe(false);
  });

  it('lapses on commit even without a balance call in between', async () => {
    const clock = manualClock();
    const store = createMemoryCreditStore({ now: clock.now });
    await store.openAccount('acct', 3);
    await store.reserve({ account: 'acct', id: 'short', amount: 2, ttlMs: 100 });
    await store.reserve({ account: 'acct', id: 'long', amount: 1, ttlMs: 10_000 });
    clock.advance(100);
    expect(await store.commit('short')).toBe(false);
    expect(await store.commit('long')).toBe(true);
    expect(await store.balance('acct')).toBe(2);
  });

  it('forgets settled ids after the retention period or past maxSettled', async () => {
    const clock = manualClock();
    const store = createMemoryCreditStore({ now: clock.now, settledRetentionMs: 1_000, maxSettled: 3 });
    await store.openAccount('acct', 100);
    await store.reserve({ account: 'acct', id: 'old', amount: 1, ttlMs: 60_000 });
    await store.commit('old');
    await expect(store.reserve({ account: 'acct', id: 'old', amount: 1, ttlMs: 60_000 })).rejects.toThrow(
      TypeError,
    );
    clock.advance(1_000);
    // Forgotten: the id can be used again.
    await store.reserve({ account: 'acct', id: 'old', amount: 1, ttlMs: 60_000 });
    await store.refund('old');
    for (const id of ['a', 'b', 'c', 'd']) {
      await store.reserve({ account: 'acct', id, amount: 1, ttlMs: 60_000 });
      await store.refund(id);
    }
    // Only the 3 most recent remain remembered ('b', 'c', 'd').
    await store.reserve({ account: 'acct', id: 'a', amount: 1, ttlMs: 60_000 });
    await expect(store.reserve({ account: 'acct', id: 'd', amount: 1, ttlMs: 60_000 })).rejects.toThrow(
      TypeError,
    );
  });

  it('refuses a grant that would exceed the safe integer range', async () => {
    const store = createMemoryCreditStore();
    await store.grant('acct', Number.MAX_SAFE_INTEGER);
    await expect(store.grant('acct', 1)).rejects.toThrow(RangeError);
    expect(await store.balance('acct')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('validates options', () => {
    expect(() => createMemoryCreditStore({ settledRetentionMs: 0 })).toThrow(RangeError);
    expect(() => createMemoryCreditStore({ maxSettled: 1.5 })).toThrow(RangeError);
  });
});

describe('memory rate limiter (GCRA, manual clock)', () => {
  it('reports exact remaining, resetAt and retryAfterMs', async () => {
    const clock = manualClock(0);
    const limiter = createMemoryRateLimiter({ limit: 3, windowMs: 3_000, now: clock.now });
    expect(await limiter.consume('k')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetAt: 1_000,
      retryAfterMs: 0,
    });
    await limiter.consume('k');
    expect(await limiter.consume('k')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetAt: 3_000,
      retryAfterMs: 0,
    });
    expect(await limiter.consume('k')).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetAt: 3_000,
      retryAfterMs: 1_000,
    });
    clock.advance(999);
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(await limiter.consume('k')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetAt: 4_000,
      retryAfterMs: 0,
    });
    clock.advance(2_500);
    // 2.5 tokens regained, whole tokens count.
    expect(await limiter.consume('k', 0)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('handles an emission interval that is not a whole number of ms', async () => {
    const clock = manualClock(0);
    const limiter = createMemoryRateLimiter({ limit: 3, windowMs: 1_000, now: clock.now });
    for (let i = 0; i < 3; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const denied = await limiter.consume('k');
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: 334, resetAt: 1_000 });
    clock.advance(333);
    expect((await limiter.consume('k')).allowed).toBe(false);
    clock.advance(1);
    expect((await limiter.consume('k')).allowed).toBe(true);
    // Over many windows the rate stays exactly limit per window.
    let allowed = 0;
    for (let t = 0; t < 100_000; t += 10) {
      clock.advance(10);
      if ((await limiter.consume('k')).allowed) allowed++;
    }
    expect(allowed).toBeGreaterThanOrEqual(299);
    expect(allowed).toBeLessThanOrEqual(301);
  });

  it('evicts idle keys and bounds the number of tracked keys', async () => {
    const clock = manualClock(0);
    const limiter = createMemoryRateLimiter({ limit: 2, windowMs: 1_000, maxKeys: 100, now: clock.now });
    for (let i = 0; i < 50; i++) await limiter.consume(`ip-${i}`);
    expect(limiter.size).toBe(50);
    clock.advance(1_000);
    await limiter.consume('fresh');
    expect(limiter.size).toBe(1);
    for (let i = 0; i < 1_000; i++) await limiter.consume(`flood-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });

  it('rejects bad options and costs', async () => {
    expect(() => createMemoryRateLimiter({ limit: 0 })).toThrow(RangeError);
    expect(() => createMemoryRateLimiter({ limit: 2.5 })).toThrow(RangeError);
    expect(() => createMemoryRateLimiter({ windowMs: -1 })).toThrow(RangeError);
    expect(() => createMemoryRateLimiter({ limit: '5' as unknown as number })).toThrow(TypeError);
    expect(() => createMemoryRateLimiter({ maxKeys: 0 })).toThrow(RangeError);
    const limiter = createMemoryRateLimiter({ limit: 5, windowMs: 1_000 });
    await expect(limiter.consume('k', 6)).rejects.toThrow(RangeError);
    await expect(limiter.consume('k', -1)).rejects.toThrow(RangeError);
    await expect(limiter.consume('')).rejects.toThrow(TypeError);
  });

  it('uses the documented defaults (60 per minute)', async () => {
    const limiter = createMemoryRateLimiter();
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, limit: 60, remaining: 59 });
  });
});
