import { describe, expect, it } from 'vitest';
import { openedPerTest } from './helpers.ts';
import type { UsageRecord, UsageStore } from '../stores/account-types.ts';

/** Makes a fresh, empty usage store for one test. The suite closes it after the test. */
export type MakeUsageStore = () => Promise<UsageStore> | UsageStore;

const DAY = 86_400_000;

/** Runs the {@link UsageStore} conformance suite (vitest) against `makeStore`. */
export function describeUsageStore(name: string, makeStore: MakeUsageStore): void {
  describe(`UsageStore conformance: ${name}`, () => {
    const open = openedPerTest(makeStore);

    const day0 = Date.UTC(2026, 0, 10, 12);
    const rec = (
      at: number,
      kind: UsageRecord['kind'],
      credits: number,
      keyId: string | null = 'key_a',
      accountId = 'org_a',
    ): UsageRecord => ({
      at,
      accountId,
      keyId,
      kind,
      credits,
      note: kind === 'grant' ? 'sign-up' : null,
    });

    it('sums charged searches per UTC day, leaving out refunds, grants and other accounts', async () => {
      const store = await open();
      await store.append([
        rec(day0, 'grant', 1000, null),
        rec(day0, 'charge', 1),
        rec(day0 + 1000, 'charge', 2, 'key_b'),
        rec(day0 + 2000, 'refund', 1),
        rec(day0 + DAY, 'charge', 1),
        rec(day0, 'charge', 5, 'key_z', 'org_b'),
      ]);
      expect(await store.daily('org_a', day0 - DAY, day0 + 2 * DAY)).toEqual([
        { day: '2026-01-10', searches: 2, credits: 3 },
        { day: '2026-01-11', searches: 1, credits: 1 },
      ]);
      expect(await store.daily('org_a', day0 + DAY, day0 + 2 * DAY)).toEqual([
        { day: '2026-01-11', searches: 1, credits: 1 },
      ]);
      expect(await store.daily('org_none', 0, day0 * 2)).toEqual([]);
    });

    it('sums usage per key, with the time of its last search', async () => {
      const store = await open();
      await store.append([
        rec(day0, 'charge', 1),
        rec(day0 + 5, 'refund', 1),
        rec(day0 + 1, 'charge', 1, 'key_b'),
      ]);
      await store.append([rec(day0 + 2, 'charge', 1)]);
      expect(await store.perKey('org_a', 0)).toEqual([
        { keyId: 'key_a', searches: 2, credits: 2, lastUsedAt: day0 + 5 },
        { keyId: 'key_b', searches: 1, credits: 1, lastUsedAt: day0 + 1 },
      ]);
      expect(await store.perKey('org_a', day0 + 3)).toEqual([
        { keyId: 'key_a', searches: 0, credits: 0, lastUsedAt: day0 + 5 },
      ]);
    });

    it('returns the ledger newest first, limited on request', async () => {
      const store = await open();
      const records = [
        rec(day0, 'grant', 1000, null),
        rec(day0 + 1, 'charge', 1),
        rec(day0 + 2, 'refund', 1),
      ];
      await store.append(records);
      await store.append([]);
      expect(await store.ledger('org_a')).toEqual([...records].reverse());
      expect(await store.ledger('org_a', 1)).toEqual([records[2]]);
      expect(await store.ledger('org_b')).toEqual([]);
    });

    it('refuses invalid records without writing any of the batch', async () => {
      const store = await open();
      await expect(
        Promise.resolve().then(() => store.append([rec(day0, 'charge', 1), rec(day0, 'charge', -1)])),
      ).rejects.toThrow(RangeError);
      await expect(
        Promise.resolve().then(() => store.append([{ ...rec(day0, 'charge', 1), kind: 'steal' as never }])),
      ).rejects.toThrow(TypeError);
      expect(await store.ledger('org_a')).toEqual([]);
    });
  });
}
