/**
 * Budget periods start afresh at midnight UTC (a day) and at midnight UTC on the 1st (a month), through the
 * credits service on a clock that crosses the boundary; and the `<credits>[/day|/month]` form.
 */
import { describe, expect, it } from 'vitest';
import { createCreditsService } from '../../src/engine/credits.ts';
import { CitewiseError } from '../../src/errors.ts';
import { budgetWindow, formatBudget, parseBudget } from '../../src/stores/budgets.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/index.ts';

const at = (iso: string) => Date.parse(iso);

describe('budget periods', () => {
  it('a day ends at midnight UTC, a month at midnight UTC on the 1st, a budget in all never', () => {
    expect(budgetWindow('day', at('2026-11-28T23:59:59.999Z'))).toEqual({
      window: 'day:2026-11-28',
      resetsAt: at('2026-11-29T00:00:00Z'),
    });
    expect(budgetWindow('day', at('2026-11-29T00:00:00Z')).window).toBe('day:2026-11-29');
    expect(budgetWindow('month', at('2026-12-31T23:59:59Z'))).toEqual({
      window: 'month:2026-12',
      resetsAt: at('2027-01-01T00:00:00Z'),
    });
    expect(budgetWindow('total', at('2026-12-31T23:59:59Z'))).toEqual({ window: 'total', resetsAt: null });
  });

  it('the credits service refuses past the budget, then holds again once the day has turned (UTC)', async () => {
    let now = at('2026-11-28T23:59:00Z');
    const credits = createCreditsService({ store: createMemoryCreditStore(), now: () => now });
    await credits.openAccount('acct', 100, 'test');
    const key = { id: 'key_a', accountId: 'acct', budget: { credits: 3, period: 'day' as const } };
    await credits.hold({ account: 'acct', id: 'h1', amount: 3, ttlMs: 3_600_000, key });
    const refused = await credits
      .hold({ account: 'acct', id: 'h2', amount: 1, ttlMs: 3_600_000, key })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CitewiseError);
    expect(refused).toMatchObject({
      status: 433,
      code: 'key_budget_exceeded',
      description:
        'Account is at / over message quota: API key key_a has a budget of 3 credits a day, 0 left, too few for this search; it starts afresh at 2026-11-29T00:00:00.000Z',
    });
    expect(await credits.keyBalance(key)).toEqual({
      available: 0,
      account: 97,
      budget: { credits: 3, period: 'day', remaining: 0, resetsAt: at('2026-11-29T00:00:00Z') },
    });
    now = at('2026-11-29T00:00:00Z');
    expect((await credits.keyBalance(key)).available).toBe(3);
    await credits.hold({ account: 'acct', id: 'h3', amount: 3, ttlMs: 3_600_000, key });
    expect(await credits.balance('acct')).toBe(94);
  });

  it('reads and writes the <credits>[/day|/month] form', () => {
    expect(parseBudget('500/day')).toEqual({ credits: 500, period: 'day' });
    expect(parseBudget(' 10000 / Month ')).toEqual({ credits: 10000, period: 'month' });
    expect(parseBudget('2000')).toEqual({ credits: 2000, period: 'total' });
    expect(formatBudget(parseBudget('500/day'))).toBe('500/day');
    for (const bad of ['', '-5/day', '5/week', '1.5', 'day', '5/day/month']) {
      expect(() => parseBudget(bad)).toThrow(RangeError);
    }
  });
});
