// Property tests: random operation sequences give identical results on the memory and SQLite stores
// (driven by the same manual clock), and GCRA never lets more through than its rate allows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gcraStep } from '../../src/stores/gcra.ts';
import { createMemoryCreditStore, createMemoryRateLimiter } from '../../src/stores/memory/index.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';
import type { CreditStore } from '../../src/stores/types.ts';

type Op =
  | { kind: 'reserve'; account: number; id: number; amount: number; ttlMs: number }
  | { kind: 'commit'; id: number; actual: number | undefined }
  | { kind: 'refund'; id: number }
  | { kind: 'grant'; account: number; amount: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'balance'; account: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('reserve' as const),
    account: fc.nat(2),
    id: fc.nat(15),
    amount: fc.nat(6),
    ttlMs: fc.integer({ min: 1, max: 5_000 }),
  }),
  fc.record({
    kind: fc.constant('commit' as const),
    id: fc.nat(15),
    actual: fc.option(fc.nat(8), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('refund' as const), id: fc.nat(15) }),
  fc.record({ kind: fc.constant('grant' as const), account: fc.nat(2), amount: fc.nat(5) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  fc.record({ kind: fc.constant('balance' as const), account: fc.nat(2) }),
);

async function apply(store: CreditStore, op: Op): Promise<unknown> {
  try {
    switch (op.kind) {
      case 'reserve':
        return await store.reserve({
          account: `a${op.account}`,
          id: `r${op.id}`,
          amount: op.amount,
          ttlMs: op.ttlMs,
        });
      case 'commit':
        return await store.commit(`r${op.id}`, op.actual);
      case 'refund':
        return await store.refund(`r${op.id}`);
      case 'grant':
        return await store.grant(`a${op.account}`, op.amount);
      case 'balance':
        return await store.balance(`a${op.account}`);
      case 'advance':
        return null;
    }
  } catch (error) {
    return { error: (error as { code?: string }).code ?? (error as Error).name };
  }
}

describe('credit stores agree on random operation sequences', () => {
  it('memory and SQLite give identical results and never go negative', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { maxLength: 60 }), async (ops) => {
        let time = 1_700_000_000_000;
        const now = () => time;
        const memory = createMemoryCreditStore({ now });
        const sqlite = createSqliteStores({ path: ':memory:', now });
        for (const account of [0, 1, 2]) {
          await memory.openAccount(`a${account}`, 5);
          await sqlite.credits.openAccount(`a${account}`, 5);
        }
        try {
          for (const op of ops) {
            if (op.kind === 'advance') time += op.ms;
            expect(await apply(sqlite.credits, op)).toEqual(await apply(memory, op));
            for (const account of [0, 1, 2]) {
              expect(await memory.balance(`a${account}`)).toBeGreaterThanOrEqual(0);
            }
          }
        } finally {
          await sqlite.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('GCRA', () => {
  it('never allows more than limit + elapsed/interval in any interval', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(fc.record({ gap: fc.nat(2_000), cost: fc.nat(3) }), { maxLength: 200 }),
        (limit, windowMs, requests) => {
          const interval = windowMs / limit;
          let tat: number | undefined;
          let time = 0;
          const allowed: { at: number; cost: number }[] = [];
          for (const { gap, cost: rawCost } of requests) {
            time += gap;
            const cost = Math.min(rawCost, limit);
            const step = gcraStep(tat, time, cost, { limit, windowMs });
            if (step.result.allowed) {
              tat = step.tat;
              allowed.push({ at: time, cost });
              expect(step.result.retryAfterMs).toBe(0);
            } else {
              expect(step.result.retryAfterMs).toBeGreaterThan(0);
              expect(step.result.retryAfterMs).toBeLessThanOrEqual(windowMs);
              // Waiting retryAfterMs is enough.
              expect(
                gcraStep(tat, time + step.result.retryAfterMs, cost, { limit, windowMs }).result.allowed,
              ).toBe(true);
            }
            expect(step.result.remaining).toBeGreaterThanOrEqual(0);
            expect(step.result.remaining).toBeLessThanOrEqual(limit);
          }
          for (let i = 0; i < allowed.length; i++) {
            let spent = 0;
            for (let j = i; j < allowed.length; j++) {
              spent += allowed[j]!.cost;
              const elapsed = allowed[j]!.at - allowed[i]!.at;
              expect(spent).toBeLessThanOrEqual(limit + elapsed / interval + 1e-6);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('memory and SQLite limiters agree on random request sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.record({ gap: fc.nat(1_500), key: fc.nat(2), cost: fc.nat(2) }), { maxLength: 60 }),
        async (limit, windowMs, requests) => {
          let time = 0;
          const now = () => time;
          const memory = createMemoryRateLimiter({ limit, windowMs, now });
          const stores = createSqliteStores({ path: ':memory:', now });
          const sqlite = stores.rateLimiter({ limit, windowMs });
          try {
            for (const { gap, key, cost } of requests) {
              time += gap;
              const c = Math.min(cost, limit);
              expect(await sqlite.consume(`k${key}`, c)).toEqual(await memory.consume(`k${key}`, c));
            }
          } finally {
            await stores.close();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
