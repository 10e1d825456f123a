import { assertCost, gcraStep } from '../gcra.ts';
import type { RateLimiter, RateLimitOptions } from '../types.ts';
import { assertId, normalizeRateLimitOptions } from '../validation.ts';
import { connectSqlite, pingSqlite } from './connection.ts';
import type { SqliteStoreOptions } from './connection.ts';
import { immediateTransaction } from './database.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createSqliteRateLimiter}. */
export interface SqliteRateLimiterOptions extends SqliteStoreOptions, Partial<RateLimitOptions> {
  /**
   * Namespace of this limiter's rows, so limiters with different limits can share one file.
   * @default `${limit}/${windowMs}`
   */
  readonly scope?: string;
}

/**
 * Creates a per-key GCRA rate limiter stored in SQLite (one row per key holding its theoretical arrival
 * time), so limits hold across restarts and across processes sharing the file. Each decision is one
 * `BEGIN IMMEDIATE` transaction. Rows of fully replenished keys are deleted once per window.
 */
export function createSqliteRateLimiter(options: SqliteRateLimiterOptions): RateLimiter {
  const limits = normalizeRateLimitOptions(options);
  const scope = options.scope ?? `${limits.limit}/${limits.windowMs}`;
  assertId(scope, 'scope');
  const connection = connectSqlite(options);
  const { db, now, unlocked } = connection;

  const selectTat = db.prepare('SELECT tat FROM rate_limits WHERE scope = ? AND key = ?');
  const upsertTat = db.prepare(
    `INSERT INTO rate_limits (scope, key, tat) VALUES (?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE SET tat = excluded.tat`,
  );
  // A row whose TAT has passed is fully replenished in any scope, so idle rows of every scope go.
  const deleteIdle = db.prepare('DELETE FROM rate_limits WHERE tat <= ?');
  let lastSweep = -Infinity;

  return {
    policy: { limit: limits.limit, windowMs: limits.windowMs },
    async consume(key: string, cost: number = STORE_DEFAULTS.rateLimitCost) {
      assertId(key, 'rate limit key');
      assertCost(cost, limits.limit);
      return unlocked(() =>
        immediateTransaction(db, () => {
          // Read the clock under the lock: time spent waiting for another process must count.
          const at = now();
          if (at - lastSweep >= limits.windowMs) {
            deleteIdle.run(at);
            lastSweep = at;
          }
          const row = selectTat.get(scope, key) as { tat: number } | undefined;
          const step = gcraStep(row?.tat, at, cost, limits);
          if (step.result.allowed && step.tat !== row?.tat) upsertTat.run(scope, key, step.tat);
          return step.result;
        }),
      );
    },
    async ping() {
      pingSqlite(db);
    },
    async close() {
      connection.close();
    },
  };
}
