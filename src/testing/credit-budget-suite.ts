import { describe, expect, it } from 'vitest';
import { BudgetExceededError, QuotaExceededError } from '../errors.ts';
import type { BudgetCharge, CreditStore } from '../stores/types.ts';
import { countSettled, sleep } from './helpers.ts';

const HOUR = 3_600_000;

/** Two instances of one store sharing their data (two processes on one database), for the suite. */
export type MakeCreditStorePair = () => Promise<readonly [CreditStore, CreditStore]>;

/**
 * The key-budget part of the credit store suite (see `describeCreditStore`): a hold that spends a key's
 * budget is refused with {@link BudgetExceededError} past the limit, concurrent holds never overspend it
 * (on one instance, and across two when `makePair` is given), commit and refund give back what was not
 * spent, a lapse gives back everything, and a new window starts at 0.
 */
export function describeCreditBudgets(
  open: () => Promise<CreditStore>,
  makePair: MakeCreditStorePair | undefined,
): void {
  describe('key budgets', () => {
    const day = (window = 'day:2026-11-28'): BudgetCharge => ({ key: 'key_a', limit: 10, window });
    const spent = (store: CreditStore, window = 'day:2026-11-28', key = 'key_a') =>
      store.budgetSpent!('acct', key, window);

    it('refuses a hold past the budget, leaving the account untouched', async () => {
      const store = await open();
      expect(typeof store.budgetSpent).toBe('function');
      await store.openAccount('acct', 100);
      await store.reserve({ account: 'acct', id: 'b1', amount: 4, ttlMs: HOUR, budget: day() });
      await store.reserve({ account: 'acct', id: 'b2', amount: 4, ttlMs: HOUR, budget: day() });
      const refused = await store
        .reserve({ account: 'acct', id: 'b3', amount: 4, ttlMs: HOUR, budget: day() })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(BudgetExceededError);
      expect(refused).toMatchObject({ spent: 8, limit: 10, status: 433 });
      expect(await store.balance('acct')).toBe(92);
      expect(await spent(store)).toBe(8);
      // What fits still fits; holds without a budget, or of another key, do not count.
      await store.reserve({ account: 'acct', id: 'b4', amount: 2, ttlMs: HOUR, budget: day() });
      await store.reserve({ account: 'acct', id: 'free', amount: 30, ttlMs: HOUR });
      await store.reserve({
        account: 'acct',
        id: 'other',
        amount: 5,
        ttlMs: HOUR,
        budget: { key: 'key_b', limit: 5, window: 'day:2026-11-28' },
      });
      expect(await spent(store)).toBe(10);
      expect(await spent(store, 'day:2026-11-28', 'key_b')).toBe(5);
      expect(await store.balance('acct')).toBe(55);
    });

    it('an account short of credits is a QuotaExceededError, not a budget error', async () => {
      const store = await open();
      await store.openAccount('acct', 3);
      const refused = await store
        .reserve({ account: 'acct', id: 'q', amount: 4, ttlMs: HOUR, budget: day() })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(QuotaExceededError);
      expect(await spent(store)).toBe(0);
    });

    it('commit gives back the unspent rest; refund gives back all, once', async () => {
      const store = await open();
      await store.openAccount('acct', 100);
      await store.reserve({ account: 'acct', id: 'c', amount: 6, ttlMs: HOUR, budget: day() });
      await store.reserve({ account: 'acct', id: 'r', amount: 4, ttlMs: HOUR, budget: day() });
      expect(await spent(store)).toBe(10);
      expect(await store.commit('c', 2)).toBe(true);
      expect(await spent(store)).toBe(6);
      expect(await store.refund('r')).toBe(true);
      expect(await spent(store)).toBe(2);
      expect(await store.refund('r')).toBe(false);
      expect(await store.commit('c')).toBe(false);
      expect(await spent(store)).toBe(2);
      expect(await store.balance('acct')).toBe(98);
    });

    it('a new window starts at 0, and settling an older hold does not touch it', async () => {
      const store = await open();
      await store.openAccount('acct', 100);
      await store.reserve({ account: 'acct', id: 'old', amount: 10, ttlMs: HOUR, budget: day() });
      const next = day('day:2026-11-29');
      expect(await spent(store, 'day:2026-11-29')).toBe(0);
      await store.reserve({ account: 'acct', id: 'new', amount: 7, ttlMs: HOUR, budget: next });
      expect(await store.refund('old')).toBe(true);
      expect(await spent(store, 'day:2026-11-29')).toBe(7);
      expect(await spent(store)).toBe(0);
      expect(await store.balance('acct')).toBe(93);
    });

    it('a lapsed hold gives its budget back', async () => {
      const store = await open();
      await store.openAccount('acct', 100);
      await store.reserve({ account: 'acct', id: 'lapse', amount: 9, ttlMs: 200, budget: day() });
      expect(await spent(store)).toBe(9);
      await sleep(450);
      expect(await spent(store)).toBe(0);
      expect(await store.balance('acct')).toBe(100);
      expect(await store.commit('lapse')).toBe(false);
    });

    it('concurrent holds never overspend a budget', async () => {
      const store = await open();
      await store.openAccount('acct', 1_000);
      const budget: BudgetCharge = { key: 'key_a', limit: 25, window: 'month:2026-11' };
      const results = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          store.reserve({ account: 'acct', id: `c${i}`, amount: 1 + (i % 2), ttlMs: HOUR, budget }),
        ),
      );
      const { rejected } = countSettled(results);
      for (const error of rejected) expect(error).toBeInstanceOf(BudgetExceededError);
      const held = results.reduce(
        (sum, result, i) => sum + (result.status === 'fulfilled' ? 1 + (i % 2) : 0),
        0,
      );
      expect(held).toBeLessThanOrEqual(25);
      expect(held).toBeGreaterThanOrEqual(24);
      expect(await store.budgetSpent!('acct', 'key_a', 'month:2026-11')).toBe(held);
      expect(await store.balance('acct')).toBe(1_000 - held);
    });

    it.runIf(makePair !== undefined)(
      'concurrent holds on two instances never overspend a budget',
      async () => {
        const [one, two] = await makePair!();
        try {
          await one.openAccount('acct', 1_000);
          const budget: BudgetCharge = { key: 'key_a', limit: 30, window: 'total' };
          const results = await Promise.allSettled(
            Array.from({ length: 80 }, (_, i) =>
              (i % 2 ? one : two).reserve({ account: 'acct', id: `p${i}`, amount: 1, ttlMs: HOUR, budget }),
            ),
          );
          const { fulfilled, rejected } = countSettled(results);
          for (const error of rejected) expect(error).toBeInstanceOf(BudgetExceededError);
          expect(fulfilled).toBe(30);
          expect(await two.budgetSpent!('acct', 'key_a', 'total')).toBe(30);
          // Refunds on the other instance give the budget back.
          const held = results.flatMap((result, i) => (result.status === 'fulfilled' ? [`p${i}`] : []));
          for (const id of held.slice(0, 5)) expect(await two.refund(id)).toBe(true);
          expect(await one.budgetSpent!('acct', 'key_a', 'total')).toBe(25);
          expect(await one.balance('acct')).toBe(975);
        } finally {
          await one.close?.();
          await two.close?.();
        }
      },
    );
  });
}
