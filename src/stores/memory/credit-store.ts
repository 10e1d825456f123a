import { BudgetExceededError, QuotaExceededError } from '../../errors.ts';
import { positiveInteger } from '../../options.ts';
import type { CreditStore, Reservation, ReserveInput } from '../types.ts';
import {
  assertAmount,
  assertId,
  assertPositiveMs,
  assertReserveInput,
  normalizeClock,
} from '../validation.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createMemoryCreditStore}. */
export interface MemoryCreditStoreOptions {
  /**
   * How long settled (committed, refunded or lapsed) reservation ids are remembered, so that a late
   * commit/refund returns `false` and a reused id is refused. @default 86_400_000 (24 h)
   */
  readonly settledRetentionMs?: number;
  /** Most settled reservation ids remembered; the oldest are forgotten first. @default 100_000 */
  readonly maxSettled?: number;
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

interface Hold {
  readonly account: string;
  readonly amount: number;
  readonly expiresAt: number;
  /** The key budget counter and window the hold spends, if any. */
  readonly budget?: { readonly key: string; readonly window: string };
}

/** A key's budget counter: what it spent in `window`. */
interface BudgetCounter {
  window: string;
  spent: number;
}

/**
 * Creates a {@link CreditStore} held in process memory. Reserving subtracts from the available balance at
 * once; commit keeps what was spent and returns the rest, refund or lapse (after `ttlMs`) returns it all.
 * Every operation runs synchronously inside its call, so concurrent calls in one process never overspend.
 * Balances are lost on restart; use the SQLite store to keep them.
 */
export function createMemoryCreditStore(options: MemoryCreditStoreOptions = {}): CreditStore {
  const now = normalizeClock(options.now);
  const settledRetentionMs = options.settledRetentionMs ?? STORE_DEFAULTS.settledRetentionMs;
  assertPositiveMs(settledRetentionMs, 'settledRetentionMs');
  const maxSettled = positiveInteger('maxSettled', options.maxSettled, STORE_DEFAULTS.maxSettled);

  const available = new Map<string, number>();
  const holds = new Map<string, Hold>();
  // account → key → counter (one per key: a counter from an older window counts as 0).
  const budgets = new Map<string, Map<string, BudgetCounter>>();
  // id → settled at; insertion order is settlement order, so the oldest are first.
  const settled = new Map<string, number>();
  let nextExpiry = Infinity;

  function credit(account: string, amount: number): void {
    const current = available.get(account);
    if (current !== undefined) available.set(account, current + amount);
  }

  function counterOf(account: string, key: string): BudgetCounter | undefined {
    return budgets.get(account)?.get(key);
  }

  function spentIn(account: string, key: string, window: string): number {
    const counter = counterOf(account, key);
    return counter && counter.window === window ? counter.spent : 0;
  }

  /** Gives `amount` back to the budget a hold spent, if its window is still the counter's. */
  function creditBudget(hold: Hold, amount: number): void {
    if (!hold.budget || amount <= 0) return;
    const counter = counterOf(hold.account, hold.budget.key);
    if (counter && counter.window === hold.budget.window) counter.spent = Math.max(0, counter.spent - amount);
  }

  function settle(id: string, at: number): void {
    holds.delete(id);
    settled.set(id, at);
  }

  /** Lapses expired holds (returning their credits) and forgets old settled ids. */
  function housekeep(at: number): void {
    if (at >= nextExpiry) {
      nextExpiry = Infinity;
      for (const [id, hold] of holds) {
        if (hold.expiresAt <= at) {
          credit(hold.account, hold.amount);
          creditBudget(hold, hold.amount);
          settle(id, at);
        } else if (hold.expiresAt < nextExpiry) {
          nextExpiry = hold.expiresAt;
        }
      }
    }
    for (const [id, settledAt] of settled) {
      if (settled.size <= maxSettled && settledAt > at - settledRetentionMs) break;
      settled.delete(id);
    }
  }

  function checkBalanceFits(current: number, amount: number): void {
    if (current + amount > Number.MAX_SAFE_INTEGER) {
      throw new RangeError('balance would exceed Number.MAX_SAFE_INTEGER');
    }
  }

  return {
    async openAccount(account: string, initialCredits: number) {
      assertId(account, 'account');
      assertAmount(initialCredits, 'initialCredits');
      if (available.has(account)) return false;
      available.set(account, initialCredits);
      return true;
    },

    async hasAccount(account: string) {
      assertId(account, 'account');
      return available.has(account);
    },

    async balance(account: string) {
      assertId(account, 'account');
      housekeep(now());
      return available.get(account) ?? 0;
    },

    async grant(account: string, amount: number) {
      assertId(account, 'account');
      assertAmount(amount, 'amount');
      housekeep(now());
      const current = available.get(account) ?? 0;
      checkBalanceFits(current, amount);
      available.set(account, current + amount);
      return current + amount;
    },

    async reserve(input: ReserveInput): Promise<Reservation> {
      assertReserveInput(input);
      const { account, id, amount, ttlMs } = input;
      const at = now();
      housekeep(at);
      if (holds.has(id) || settled.has(id)) throw new TypeError(`reservation id ${id} already exists`);
      const current = available.get(account) ?? 0;
      if (amount > current) throw new QuotaExceededError(current, amount);
      const { budget } = input;
      if (budget) {
        const spent = spentIn(account, budget.key, budget.window);
        if (amount > 0 && spent + amount > budget.limit) {
          throw new BudgetExceededError(spent, budget.limit, amount);
        }
        let keys = budgets.get(account);
        if (!keys) budgets.set(account, (keys = new Map<string, BudgetCounter>()));
        keys.set(budget.key, { window: budget.window, spent: spent + amount });
      }
      if (amount > 0) available.set(account, current - amount);
      const expiresAt = at + ttlMs;
      holds.set(id, {
        account,
        amount,
        expiresAt,
        ...(budget ? { budget: { key: budget.key, window: budget.window } } : {}),
      });
      if (expiresAt < nextExpiry) nextExpiry = expiresAt;
      return { id, account, amount, expiresAt };
    },

    async commit(id: string, actual?: number) {
      assertId(id, 'reservation id');
      if (actual !== undefined) assertAmount(actual, 'actual');
      const at = now();
      housekeep(at);
      const hold = holds.get(id);
      if (!hold) return false;
      const spent = Math.min(actual ?? hold.amount, hold.amount);
      credit(hold.account, hold.amount - spent);
      creditBudget(hold, hold.amount - spent);
      settle(id, at);
      return true;
    },

    async refund(id: string) {
      assertId(id, 'reservation id');
      const at = now();
      housekeep(at);
      const hold = holds.get(id);
      if (!hold) return false;
      credit(hold.account, hold.amount);
      creditBudget(hold, hold.amount);
      settle(id, at);
      return true;
    },

    async budgetSpent(account: string, key: string, window: string) {
      assertId(account, 'account');
      assertId(key, 'budget key');
      housekeep(now());
      return spentIn(account, key, window);
    },

    async ping() {},
    async close() {},
  };
}
