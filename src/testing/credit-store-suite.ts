import { describe, expect, it } from 'vitest';
import type { CreditStore } from '../stores/types.ts';
import { attempt, countSettled, openedPerTest, sleep } from './helpers.ts';
import { describeCreditBudgets, type MakeCreditStorePair } from './credit-budget-suite.ts';

/** Makes a fresh, empty store for one test. The suite closes it after the test. */
export type MakeCreditStore = () => Promise<CreditStore> | CreditStore;

const HOUR = 3_600_000;

/** Options of {@link describeCreditStore}. */
export interface DescribeCreditStoreOptions {
  /** Whether the store enforces key budgets (`ReserveInput.budget`, `budgetSpent`). @default true */
  readonly keyBudgets?: boolean;
  /** Two instances sharing one store's data, for the cross-instance budget test. @default none (skipped) */
  readonly makePair?: MakeCreditStorePair;
}

/**
 * Runs the {@link CreditStore} conformance suite (vitest) against `makeStore`. Call it at the top level of a
 * test file. Every test gets a new store from `makeStore` and closes it afterwards; the store should start
 * empty. Uses only the public interface and the real clock (the lapse test waits about half a second).
 */
export function describeCreditStore(
  name: string,
  makeStore: MakeCreditStore,
  options: DescribeCreditStoreOptions = {},
): void {
  describe(`CreditStore conformance: ${name}`, () => {
    const open = openedPerTest(makeStore);

    it('opens an account once: idempotent, never resets the balance', async () => {
      const store = await open();
      expect(await store.hasAccount('acct')).toBe(false);
      expect(await store.openAccount('acct', 10)).toBe(true);
      expect(await store.hasAccount('acct')).toBe(true);
      expect(await store.balance('acct')).toBe(10);
      await store.reserve({ account: 'acct', id: 'r1', amount: 3, ttlMs: HOUR });
      await store.commit('r1');
      expect(await store.openAccount('acct', 10)).toBe(false);
      expect(await store.openAccount('acct', 500)).toBe(false);
      expect(await store.balance('acct')).toBe(7);
    });

    it('reports 0 for an unknown account', async () => {
      const store = await open();
      expect(await store.balance('nobody')).toBe(0);
      expect(await store.hasAccount('nobody')).toBe(false);
    });

    it('grants credits, creating the account if needed', async () => {
      const store = await open();
      expect(await store.grant('new', 5)).toBe(5);
      expect(await store.hasAccount('new')).toBe(true);
      expect(await store.grant('new', 7)).toBe(12);
      expect(await store.grant('new', 0)).toBe(12);
      expect(await store.balance('new')).toBe(12);
    });

    it('keeps accounts independent', async () => {
      const store = await open();
      await store.openAccount('a', 5);
      await store.openAccount('b', 5);
      await store.reserve({ account: 'a', id: 'ra', amount: 5, ttlMs: HOUR });
      expect(await store.balance('a')).toBe(0);
      expect(await store.balance('b')).toBe(5);
    });

    it('reserve holds credits; commit spends them once', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      const before = Date.now();
      const reservation = await store.reserve({ account: 'acct', id: 'req-1', amount: 4, ttlMs: HOUR });
      expect(reservation).toMatchObject({ id: 'req-1', account: 'acct', amount: 4 });
      expect(reservation.expiresAt).toBeGreaterThan(before);
      expect(await store.balance('acct')).toBe(6);
      expect(await store.commit('req-1')).toBe(true);
      expect(await store.balance('acct')).toBe(6);
      expect(await store.commit('req-1')).toBe(false);
      expect(await store.refund('req-1')).toBe(false);
      expect(await store.balance('acct')).toBe(6);
    });

    it('refund returns the credits once', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      await store.reserve({ account: 'acct', id: 'req-1', amount: 4, ttlMs: HOUR });
      expect(await store.refund('req-1')).toBe(true);
      expect(await store.balance('acct')).toBe(10);
      expect(await store.refund('req-1')).toBe(false);
      expect(await store.commit('req-1')).toBe(false);
      expect(await store.balance('acct')).toBe(10);
    });

    it('commit with actual below the amount returns the rest; above it charges only the amount', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      await store.reserve({ account: 'acct', id: 'partial', amount: 5, ttlMs: HOUR });
      expect(await store.commit('partial', 2)).toBe(true);
      expect(await store.balance('acct')).toBe(8);
      await store.reserve({ account: 'acct', id: 'free', amount: 3, ttlMs: HOUR });
      expect(await store.commit('free', 0)).toBe(true);
      expect(await store.balance('acct')).toBe(8);
      await store.reserve({ account: 'acct', id: 'over', amount: 3, ttlMs: HOUR });
      expect(await store.commit('over', 100)).toBe(true);
      expect(await store.balance('acct')).toBe(5);
    });

    it('refuses a reservation the balance cannot cover, without changing the balance', async () => {
      const store = await open();
      await store.openAccount('acct', 3);
      await expect(
        attempt(() => store.reserve({ account: 'acct', id: 'big', amount: 4, ttlMs: HOUR })),
      ).rejects.toMatchObject({ code: 'quota_exceeded', status: 433 });
      expect(await store.balance('acct')).toBe(3);
      await store.reserve({ account: 'acct', id: 'all', amount: 3, ttlMs: HOUR });
      expect(await store.balance('acct')).toBe(0);
      await expect(
        attempt(() => store.reserve({ account: 'acct', id: 'one-more', amount: 1, ttlMs: HOUR })),
      ).rejects.toMatchObject({ code: 'quota_exceeded' });
      await expect(
        attempt(() => store.reserve({ account: 'nobody', id: 'ghost', amount: 1, ttlMs: HOUR })),
      ).rejects.toMatchObject({ code: 'quota_exceeded' });
      // The refused ids were never reserved.
      expect(await store.commit('big')).toBe(false);
      expect(await store.refund('one-more')).toBe(false);
    });

    it('always allows a reservation of 0', async () => {
      const store = await open();
      await store.openAccount('empty', 0);
      await store.reserve({ account: 'empty', id: 'zero', amount: 0, ttlMs: HOUR });
      expect(await store.commit('zero')).toBe(true);
      await store.reserve({ account: 'nobody', id: 'zero-unknown', amount: 0, ttlMs: HOUR });
      expect(await store.refund('zero-unknown')).toBe(true);
      expect(await store.balance('empty')).toBe(0);
    });

    it('refuses a reservation id that already exists with TypeError', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      await store.reserve({ account: 'acct', id: 'dup', amount: 1, ttlMs: HOUR });
      await expect(
        attempt(() => store.reserve({ account: 'acct', id: 'dup', amount: 1, ttlMs: HOUR })),
      ).rejects.toThrow(TypeError);
      await store.commit('dup');
      await expect(
        attempt(() => store.reserve({ account: 'acct', id: 'dup', amount: 1, ttlMs: HOUR })),
      ).rejects.toThrow(TypeError);
      expect(await store.balance('acct')).toBe(9);
    });

    it('returns false when settling an unknown id', async () => {
      const store = await open();
      expect(await store.commit('never-reserved')).toBe(false);
      expect(await store.refund('never-reserved')).toBe(false);
    });

    it('lets exactly one of concurrent commits and refunds win', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      for (let round = 0; round < 5; round++) {
        const id = `race-${round}`;
        await store.reserve({ account: 'acct', id, amount: 2, ttlMs: HOUR });
        const balanceBefore = await store.balance('acct');
        const calls = [store.commit(id), store.refund(id), store.commit(id), store.refund(id)];
        const outcomes = await Promise.all(calls);
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        const committed = outcomes[0] === true || outcomes[2] === true;
        expect(await store.balance('acct')).toBe(committed ? balanceBefore : balanceBefore + 2);
      }
    });

    it('never overspends: 20 concurrent reservations of 1 against 5 credits → exactly 5 succeed', async () => {
      const store = await open();
      await store.openAccount('acct', 5);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          attempt(() => store.reserve({ account: 'acct', id: `c-${i}`, amount: 1, ttlMs: HOUR })),
        ),
      );
      const { fulfilled, rejected } = countSettled(results);
      expect(fulfilled).toBe(5);
      expect(rejected).toHaveLength(15);
      for (const error of rejected) expect(error).toMatchObject({ code: 'quota_exceeded' });
      expect(await store.balance('acct')).toBe(0);
      const settled = await Promise.all(
        results.map((r, i) => (r.status === 'fulfilled' ? store.commit(`c-${i}`) : Promise.resolve(false))),
      );
      expect(settled.filter(Boolean)).toHaveLength(5);
      expect(await store.balance('acct')).toBe(0);
    });

    it('returns the credits of a reservation that lapses unsettled', async () => {
      const store = await open();
      await store.openAccount('acct', 5);
      await store.reserve({ account: 'acct', id: 'crashed', amount: 3, ttlMs: 150 });
      await store.reserve({ account: 'acct', id: 'alive', amount: 1, ttlMs: HOUR });
      await sleep(400);
      expect(await store.balance('acct')).toBe(4);
      expect(await store.commit('crashed')).toBe(false);
      expect(await store.refund('crashed')).toBe(false);
      expect(await store.balance('acct')).toBe(4);
      expect(await store.refund('alive')).toBe(true);
      expect(await store.balance('acct')).toBe(5);
    });

    it('never goes negative over a mixed sequence of operations', async () => {
      const store = await open();
      await store.openAccount('acct', 7);
      let n = 0;
      for (let round = 0; round < 6; round++) {
        const ops = Array.from({ length: 6 }, () => {
          const k = n++;
          const id = `mix-${k}`;
          return attempt(async () => {
            await store.reserve({ account: 'acct', id, amount: 1 + (k % 3), ttlMs: HOUR });
            if (k % 2 === 0) await store.commit(id, k % 4);
            else await store.refund(id);
          });
        });
        await Promise.allSettled(ops);
        const balance = await store.balance('acct');
        expect(balance).toBeGreaterThanOrEqual(0);
        expect(Number.isSafeInteger(balance)).toBe(true);
        if (round === 2) await store.grant('acct', 3);
      }
    });

    it('rejects invalid amounts and arguments', async () => {
      const store = await open();
      await store.openAccount('acct', 10);
      const reserve = (
        amount: unknown,
        ttlMs: unknown = HOUR,
        account: unknown = 'acct',
        id: unknown = 'x',
      ) =>
        attempt(() =>
          store.reserve({
            account: account as string,
            id: id as string,
            amount: amount as number,
            ttlMs: ttlMs as number,
          }),
        );
      for (const amount of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
        await expect(reserve(amount)).rejects.toThrow(RangeError);
      }
      await expect(reserve('1')).rejects.toThrow(TypeError);
      await expect(reserve(1, 0)).rejects.toThrow(RangeError);
      await expect(reserve(1, -5)).rejects.toThrow(RangeError);
      await expect(reserve(1, HOUR, '')).rejects.toThrow(TypeError);
      await expect(reserve(1, HOUR, 'acct', '')).rejects.toThrow(TypeError);
      await expect(attempt(() => store.grant('acct', -1))).rejects.toThrow(RangeError);
      await expect(attempt(() => store.grant('acct', 0.5))).rejects.toThrow(RangeError);
      await expect(attempt(() => store.openAccount('other', -3))).rejects.toThrow(RangeError);
      await store.reserve({ account: 'acct', id: 'ok', amount: 2, ttlMs: HOUR });
      await expect(attempt(() => store.commit('ok', -1))).rejects.toThrow(RangeError);
      await expect(attempt(() => store.commit('ok', 0.5))).rejects.toThrow(RangeError);
      // Failed calls changed nothing.
      expect(await store.balance('acct')).toBe(8);
      expect(await store.hasAccount('other')).toBe(false);
      expect(await store.commit('ok', 1)).toBe(true);
      expect(await store.balance('acct')).toBe(9);
    });
    if (options.keyBudgets !== false) describeCreditBudgets(open, options.makePair);
  });
}
