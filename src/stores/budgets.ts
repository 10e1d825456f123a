/**
 * Budgets per API key: how many credits one key may spend a day, a month, or in all, on top of what its
 * account holds. The key store keeps a key's {@link KeyBudget}; the credit store enforces it atomically
 * with the balance (one counter per key, for the budget's current {@link budgetWindow}). Windows start at
 * midnight UTC (a day) or at midnight UTC on the first of the month (a month); a new window starts at 0.
 */

/** How often a budget starts afresh: each UTC day, each UTC month, or never (`total`). */
export type BudgetPeriod = 'day' | 'month' | 'total';

/** A key's budget: at most `credits` per `period`. */
export interface KeyBudget {
  /** Credits the key may spend in one period (a non-negative safe integer). */
  readonly credits: number;
  /** When the budget starts afresh. */
  readonly period: BudgetPeriod;
}

/** The budget a reservation spends: the key's counter, its limit and its current window. */
export interface BudgetCharge {
  /** The key whose budget is spent (one counter per key). */
  readonly key: string;
  /** Credits the key may spend in `window`. */
  readonly limit: number;
  /**
   * The budget's current window, e.g. `day:2026-11-28`, `month:2026-11` or `total`. A counter last used
   * in another window counts as 0 (the budget has started afresh).
   */
  readonly window: string;
}

const PERIODS: readonly BudgetPeriod[] = ['day', 'month', 'total'];

/**
 * Parses `<credits>[/day|/month]` (e.g. `500/day`, `10000/month`, `2000` for a budget that never resets).
 * Throws `RangeError` naming the expected form.
 */
export function parseBudget(text: string): KeyBudget {
  const match = /^\s*(\d{1,15})\s*(?:\/\s*(day|month))?\s*$/i.exec(text);
  if (!match) {
    throw new RangeError(
      `budget must be <credits>[/day|/month], e.g. 500/day, 10000/month or 2000; got "${text}"`,
    );
  }
  const period = (match[2]?.toLowerCase() ?? 'total') as BudgetPeriod;
  return normalizeKeyBudget({ credits: Number(match[1]), period })!;
}

/** Validates a budget (`TypeError` / `RangeError`); `null` and `undefined` mean no budget (`null`). */
export function normalizeKeyBudget(value: unknown): KeyBudget | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') throw new TypeError('budget must be an object { credits, period } or null');
  const { credits, period } = value as { credits?: unknown; period?: unknown };
  if (typeof credits !== 'number') throw new TypeError('budget.credits must be a number');
  if (!Number.isSafeInteger(credits) || credits < 0) {
    throw new RangeError(`budget.credits must be a non-negative safe integer, got ${credits}`);
  }
  const normalizedPeriod = period ?? 'total';
  if (!PERIODS.includes(normalizedPeriod as BudgetPeriod)) {
    throw new RangeError(`budget.period must be one of ${PERIODS.join(', ')}, got ${String(period)}`);
  }
  return { credits, period: normalizedPeriod as BudgetPeriod };
}

/** `500/day`, `10000/month`, `2000`: the form {@link parseBudget} reads. */
export function formatBudget(budget: KeyBudget): string {
  return budget.period === 'total' ? String(budget.credits) : `${budget.credits}/${budget.period}`;
}

/** `500 credits a day`, `10000 credits a month`, `2000 credits in all`: for messages and pages. */
export function describeBudget(budget: KeyBudget): string {
  const credits = `${budget.credits} ${budget.credits === 1 ? 'credit' : 'credits'}`;
  if (budget.period === 'total') return `${credits} in all`;
  return `${credits} a ${budget.period}`;
}

/** The window a budget is in at `now` (epoch ms) and when the next one starts (`null`: never). */
export function budgetWindow(
  period: BudgetPeriod,
  now: number,
): { readonly window: string; readonly resetsAt: number | null } {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'day') {
    const day = date.getUTCDate();
    return {
      window: `day:${date.toISOString().slice(0, 10)}`,
      resetsAt: Date.UTC(year, month, day + 1),
    };
  }
  if (period === 'month') {
    return { window: `month:${date.toISOString().slice(0, 7)}`, resetsAt: Date.UTC(year, month + 1, 1) };
  }
  return { window: 'total', resetsAt: null };
}

/** Validates a {@link BudgetCharge} of a reservation (`TypeError` / `RangeError`). */
export function assertBudgetCharge(charge: unknown): asserts charge is BudgetCharge {
  if (typeof charge !== 'object' || charge === null) throw new TypeError('budget must be an object');
  const { key, limit, window } = charge as Record<string, unknown>;
  if (typeof key !== 'string' || key.length === 0 || key.length > 512) {
    throw new TypeError('budget.key must be a non-empty string of at most 512 characters');
  }
  if (typeof window !== 'string' || window.length === 0 || window.length > 64 || /\s/.test(window)) {
    throw new TypeError('budget.window must be a non-empty string of at most 64 characters, no spaces');
  }
  if (typeof limit !== 'number') throw new TypeError('budget.limit must be a number');
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`budget.limit must be a non-negative safe integer, got ${limit}`);
  }
}
