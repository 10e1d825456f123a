import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../stores/keys.ts';
import { attempt, openedPerTest, sleep } from './helpers.ts';
import type { KeyStore } from '../stores/types.ts';

/** Makes a fresh, empty store for one test. The suite closes it after the test. */
export type MakeKeyStore = () => Promise<KeyStore> | KeyStore;

/**
 * Runs the {@link KeyStore} conformance suite (vitest) against `makeStore`. Call it at the top level of a
 * test file. Every test gets a new store from `makeStore` and closes it afterwards; the store should start
 * empty. Uses only the public interface and the real clock, so any implementation can run it.
 */
export function describeKeyStore(name: string, makeStore: MakeKeyStore): void {
  describe(`KeyStore conformance: ${name}`, () => {
    const open = openedPerTest(makeStore);

    it('creates a prefixed key and a record without the raw key', async () => {
      const store = await open();
      const before = Date.now();
      const { key, record } = await store.create({ accountId: 'acct_a' });
      expect(key).toMatch(/^cw_[0-9A-Za-z]{32,}$/);
      expect(record.id).toEqual(expect.any(String));
      expect(record.id.length).toBeGreaterThan(0);
      expect(record.accountId).toBe('acct_a');
      expect(record.name).toBeNull();
      expect(record.expiresAt).toBeNull();
      expect(record.revokedAt).toBeNull();
      expect(record.prefix.length).toBeGreaterThanOrEqual(4);
      expect(record.prefix.length).toBeLessThan(key.length / 2);
      expect(key.startsWith(record.prefix)).toBe(true);
      expect(record.createdAt).toBeGreaterThanOrEqual(before - 60_000);
      expect(JSON.stringify(record)).not.toContain(key);
    });

    it('creates distinct keys and ids', async () => {
      const store = await open();
      const created = await Promise.all(
        Array.from({ length: 25 }, (_, i) => store.create({ accountId: `acct_${i % 3}` })),
      );
      expect(new Set(created.map((c) => c.key)).size).toBe(25);
      expect(new Set(created.map((c) => c.record.id)).size).toBe(25);
    });

    it('verifies a created key and returns its record', async () => {
      const store = await open();
      const { key, record } = await store.create({ accountId: 'acct_a', name: 'laptop' });
      const verified = await store.verify(key);
      expect(verified).toEqual(record);
      expect(verified?.name).toBe('laptop');
    });

    it('verifies every key of an account with several keys', async () => {
      const store = await open();
      const first = await store.create({ accountId: 'acct_a' });
      const second = await store.create({ accountId: 'acct_a' });
      expect((await store.verify(first.key))?.id).toBe(first.record.id);
      expect((await store.verify(second.key))?.id).toBe(second.record.id);
    });

    it('returns null for unknown and malformed keys alike', async () => {
      const store = await open();
      const { key } = await store.create({ accountId: 'acct_a' });
      const candidates = [
        generateApiKey(),
        '',
        'cw_',
        'not-a-key',
        key.slice(0, -1),
        `${key}x`,
        ` ${key}`,
        key.slice(3),
        `Bearer ${key}`,
        'cw_' + 'x'.repeat(10_000),
      ];
      for (const candidate of candidates) expect(await store.verify(candidate)).toBeNull();
    });

    it('revokes by id: the key stops verifying, revoking again is still true', async () => {
      const store = await open();
      const { key, record } = await store.create({ accountId: 'acct_a' });
      const other = await store.create({ accountId: 'acct_a' });
      expect(await store.revoke(record.id)).toBe(true);
      expect(await store.verify(key)).toBeNull();
      expect(await store.revoke(record.id)).toBe(true);
      expect(await store.verify(key)).toBeNull();
      expect((await store.verify(other.key))?.id).toBe(other.record.id);
      const listed = (await store.list('acct_a')).find((k) => k.id === record.id);
      expect(listed?.revokedAt).toEqual(expect.any(Number));
    });

    it('keeps the first revocation time when revoked twice', async () => {
      const store = await open();
      const { record } = await store.create({ accountId: 'acct_a' });
      await store.revoke(record.id);
      const first = (await store.list('acct_a'))[0]?.revokedAt;
      await sleep(5);
      await store.revoke(record.id);
      expect((await store.list('acct_a'))[0]?.revokedAt).toBe(first);
    });

    it('returns false when revoking an unknown id', async () => {
      const store = await open();
      expect(await store.revoke('key_000000000000')).toBe(false);
    });

    it('rejects an expired key and accepts one that expires later', async () => {
      const store = await open();
      const expired = await store.create({ accountId: 'acct_a', expiresAt: Date.now() - 1_000 });
      const later = Date.now() + 3_600_000;
      const valid = await store.create({ accountId: 'acct_a', expiresAt: later });
      expect(await store.verify(expired.key)).toBeNull();
      expect((await store.verify(valid.key))?.expiresAt).toBe(later);
      // An expired key is still listed (so it can be seen and revoked).
      expect((await store.list('acct_a')).map((k) => k.id)).toContain(expired.record.id);
    });

    it('lists keys oldest first, optionally by account, including revoked ones', async () => {
      const store = await open();
      const a1 = await store.create({ accountId: 'acct_a', name: 'one' });
      const b1 = await store.create({ accountId: 'acct_b' });
      const a2 = await store.create({ accountId: 'acct_a', name: 'two' });
      await store.revoke(a1.record.id);
      expect((await store.list()).map((k) => k.id)).toEqual([a1.record.id, b1.record.id, a2.record.id]);
      const listedA = await store.list('acct_a');
      expect(listedA.map((k) => k.id)).toEqual([a1.record.id, a2.record.id]);
      expect(listedA.map((k) => k.name)).toEqual(['one', 'two']);
      expect(await store.list('acct_nobody')).toEqual([]);
      for (const record of await store.list())
        expect(JSON.stringify(record)).not.toMatch(/cw_[0-9A-Za-z]{20,}/);
    });

    it('rejects invalid create input with TypeError', async () => {
      const store = await open();
      await expect(attempt(() => store.create({ accountId: '' }))).rejects.toThrow(TypeError);
      await expect(attempt(() => store.create({ accountId: 42 as unknown as string }))).rejects.toThrow(
        TypeError,
      );
      await expect(
        attempt(() => store.create({ accountId: 'acct_a', expiresAt: 'tomorrow' as unknown as number })),
      ).rejects.toThrow(TypeError);
    });

    it('keeps a key budget, set at creation and changed later', async () => {
      const store = await open();
      expect(typeof store.setBudget).toBe('function');
      const { key, record } = await store.create({
        accountId: 'acct_b',
        budget: { credits: 500, period: 'day' },
      });
      expect(record.budget).toEqual({ credits: 500, period: 'day' });
      expect((await store.verify(key))?.budget).toEqual({ credits: 500, period: 'day' });
      const plain = await store.create({ accountId: 'acct_b' });
      expect(plain.record.budget ?? null).toBeNull();
      const changed = await store.setBudget!(record.id, { credits: 9000, period: 'month' });
      expect(changed).toMatchObject({ id: record.id, budget: { credits: 9000, period: 'month' } });
      expect((await store.verify(key))?.budget).toEqual({ credits: 9000, period: 'month' });
      const listed = await store.list('acct_b');
      expect(listed.map((k) => k.budget ?? null)).toEqual([{ credits: 9000, period: 'month' }, null]);
      expect((await store.setBudget!(record.id, null))?.budget ?? null).toBeNull();
      expect((await store.list('acct_b'))[0]?.budget ?? null).toBeNull();
      expect(await store.setBudget!('key_unknown', { credits: 1, period: 'total' })).toBeNull();
      await expect(
        attempt(() => store.setBudget!(record.id, { credits: -1, period: 'day' })),
      ).rejects.toThrow(RangeError);
      await expect(
        attempt(() => store.create({ accountId: 'acct_b', budget: { credits: 5, period: 'week' as 'day' } })),
      ).rejects.toThrow(RangeError);
    });
  });
}
