/**
 * `citewise/postgres`: API keys, credits and Idempotency-Key requests in PostgreSQL (pg), with a durable ledger, for several
 * citewise instances sharing one truth. Rate limits are not kept in PostgreSQL: use the Redis limiter
 * (`citewise/redis`) for a limit shared by all instances, or the memory limiter for one per instance.
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { CreditStore, IdempotencyStore, KeyStore } from '../types.ts';
import { normalizeClock } from '../validation.ts';
import type pg from 'pg';
import { openPostgresConnection, type PostgresConnectionOptions } from './connection.ts';
import { buildPostgresCreditStore, normalizeSettleRetryMs } from './credit-store.ts';
import { buildPostgresIdempotencyStore } from './idempotency-store.ts';
import { buildPostgresKeyStore } from './key-store.ts';

// Research jobs on this backend (see src/jobs/).
export { createPostgresJobQueue, type PostgresJobQueueOptions } from './job-queue.ts';
export { createPostgresKeyStore } from './key-store.ts';
export type { PostgresKeyStoreOptions } from './key-store.ts';
export { createPostgresCreditStore } from './credit-store.ts';
export type { PostgresCreditStoreOptions } from './credit-store.ts';
export { createPostgresIdempotencyStore } from './idempotency-store.ts';
export type { PostgresIdempotencyStoreOptions } from './idempotency-store.ts';
export type { PostgresConnectionOptions } from './connection.ts';
export { MIGRATIONS, POSTGRES_SCHEMA_VERSION, migratePostgres } from './migrations.ts';
export type { Migration } from './migrations.ts';

/** Options of {@link createPostgresStores}. */
export interface PostgresStoresOptions extends PostgresConnectionOptions {
  /** Clock for key timestamps and expiry (credits use the database clock). @default Date.now */
  readonly now?: () => number;
  /** How long commit/refund retry while the database is unreachable. @default 5_000 */
  readonly settleRetryMs?: number;
}

/** The PostgreSQL stores sharing one pool. */
export interface PostgresStores {
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  /** Requests sent with an Idempotency-Key, shared by every instance on this database. */
  readonly idempotency: IdempotencyStore;
  /** Applies pending schema migrations now (the stores also do it on first use unless `migrate: false`). */
  migrate(): Promise<number[]>;
  readonly pool: pg.Pool;
  /** Ends the pool if the stores created it. */
  close(): Promise<void>;
}

/**
 * Creates the PostgreSQL key and credit stores on one pool. Failures to reach the database (refused,
 * reset, shut down, timed out) throw a 503 `CitewiseError` (`service_unavailable`): searches fail closed,
 * and the pool reconnects on the next call once the database is back.
 *
 * @example
 * ```ts
 * import { createPostgresStores } from 'citewise/postgres';
 * const stores = createPostgresStores({ connectionString: process.env.DATABASE_URL });
 * await stores.migrate();
 * const engine = createSearchEngine({ keys: stores.keys, credits: stores.credits });
 * ```
 */
export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const now = normalizeClock(options.now);
  const settleRetryMs = normalizeSettleRetryMs(options.settleRetryMs);
  const connection = openPostgresConnection(options);
  return {
    keys: buildPostgresKeyStore(connection, now, false),
    credits: buildPostgresCreditStore(connection, settleRetryMs, false),
    idempotency: buildPostgresIdempotencyStore(connection, false),
    migrate: () => connection.migrate(),
    pool: connection.pool,
    close: () => connection.close(),
  };
}
