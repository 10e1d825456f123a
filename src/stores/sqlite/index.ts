/**
 * SQLite stores on `node:sqlite`: keys, credits and rate limits in one database file that survives restarts
 * and can be shared with other processes (the `citewise keys` CLI) while the server runs.
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { DatabaseSync } from 'node:sqlite';
import type { CreditStore, IdempotencyStore, KeyStore, RateLimiter, RateLimitOptions } from '../types.ts';
import { createSqliteCreditStore } from './credit-store.ts';
import { openSqliteDatabase } from './database.ts';
import { createSqliteIdempotencyStore } from './idempotency-store.ts';
import { createSqliteKeyStore } from './key-store.ts';
import { createSqliteRateLimiter } from './rate-limiter.ts';
import { normalizeClock } from '../validation.ts';

// Research jobs on this backend (see src/jobs/).
export { createSqliteJobQueue, type SqliteJobQueueOptions } from './job-queue.ts';
export { createSqliteKeyStore } from './key-store.ts';
export { createSqliteCreditStore } from './credit-store.ts';
export type { SqliteCreditStoreOptions } from './credit-store.ts';
export { createSqliteRateLimiter } from './rate-limiter.ts';
export { createSqliteIdempotencyStore } from './idempotency-store.ts';
export type { SqliteRateLimiterOptions } from './rate-limiter.ts';
export type { SqliteStoreOptions } from './connection.ts';
export {
  openSqliteDatabase,
  migrateSqliteDatabase,
  immediateTransaction,
  isSqliteBusy,
  whenUnlocked,
  SQLITE_SCHEMA_VERSION,
} from './database.ts';
export type { OpenSqliteDatabaseOptions } from './database.ts';

/** Options of {@link createSqliteStores}. */
export interface SqliteStoresOptions {
  /** Database file, e.g. `.citewise/citewise.db`; created with its directory if missing. */
  readonly path: string;
  /**
   * How long an operation waits for another process's lock before failing with a 503; the wait is
   * asynchronous (the event loop keeps running). @default 5000
   */
  readonly busyTimeoutMs?: number;
  /** How long settled credit reservations are kept. @default 604_800_000 (7 days) */
  readonly settledRetentionMs?: number;
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** The SQLite stores sharing one connection; `close()` closes it (the stores' own `close` do nothing). */
export interface SqliteStores {
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  /** Requests sent with an Idempotency-Key, shared by every process on the file. */
  readonly idempotency: IdempotencyStore;
  /** A rate limiter on the same database; limiters with different limits keep separate rows. */
  rateLimiter(options?: Partial<RateLimitOptions> & { readonly scope?: string }): RateLimiter;
  /** The underlying connection, for advanced use (e.g. backups). */
  readonly database: DatabaseSync;
  close(): Promise<void>;
}

/**
 * Opens one SQLite database and returns the key store, credit store and a rate-limiter factory on it.
 *
 * @example
 * ```ts
 * const stores = createSqliteStores({ path: '.citewise/citewise.db' });
 * const { key } = await stores.keys.create({ accountId: 'acct_1' });
 * await stores.credits.openAccount('acct_1', 1000);
 * const limiter = stores.rateLimiter({ limit: 60, windowMs: 60_000 });
 * await stores.close();
 * ```
 */
export function createSqliteStores(options: SqliteStoresOptions): SqliteStores {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const now = normalizeClock(options.now);
  const database = openSqliteDatabase({ path: options.path, busyTimeoutMs: options.busyTimeoutMs });
  let open = true;
  try {
    const { busyTimeoutMs } = options;
    const keys = createSqliteKeyStore({ database, now, busyTimeoutMs });
    const credits = createSqliteCreditStore({
      database,
      now,
      busyTimeoutMs,
      settledRetentionMs: options.settledRetentionMs,
    });
    const idempotency = createSqliteIdempotencyStore({ database, now, busyTimeoutMs });
    return {
      keys,
      credits,
      idempotency,
      database,
      rateLimiter: (limits = {}) => createSqliteRateLimiter({ ...limits, database, now, busyTimeoutMs }),
      async close() {
        if (open) database.close();
        open = false;
      },
    };
  } catch (error) {
    database.close();
    throw error;
  }
}
