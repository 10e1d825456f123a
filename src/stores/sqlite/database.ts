/**
 * Opens the SQLite database shared by the SQLite stores: WAL journal (readers never block the writer),
 * a busy timeout (a second process such as the CLI waits for the lock instead of failing), and the schema,
 * created idempotently and versioned with `PRAGMA user_version`.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { CitewiseError } from '../../errors.ts';
import { nonNegativeInteger } from '../../options.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Schema version written to `PRAGMA user_version`. */
export const SQLITE_SCHEMA_VERSION = 3;

/** Options of {@link openSqliteDatabase}. */
export interface OpenSqliteDatabaseOptions {
  /** Database file; its directory is created if missing. `':memory:'` for a private in-memory database. */
  readonly path: string;
  /** How long a statement waits for another connection's write lock before failing. @default 5000 */
  readonly busyTimeoutMs?: number;
}

// Each entry migrates from version `index` to `index + 1`. Statements are idempotent so that a database
// created by hand or half-migrated by a crashed process still converges.
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL,
    name TEXT,
    prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER
  ) STRICT;
  CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys (account_id);

  CREATE TABLE IF NOT EXISTS credit_accounts (
    account TEXT PRIMARY KEY,
    available INTEGER NOT NULL CHECK (available >= 0),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE IF NOT EXISTS credit_reservations (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount >= 0),
    status TEXT NOT NULL CHECK (status IN ('held', 'committed', 'refunded', 'lapsed')),
    charged INTEGER CHECK (charged IS NULL OR (charged >= 0 AND charged <= amount)),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    settled_at INTEGER
  ) STRICT;
  CREATE INDEX IF NOT EXISTS credit_reservations_held ON credit_reservations (expires_at) WHERE status = 'held';
  CREATE INDEX IF NOT EXISTS credit_reservations_settled ON credit_reservations (settled_at) WHERE status <> 'held';

  CREATE TABLE IF NOT EXISTS rate_limits (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    tat REAL NOT NULL,
    PRIMARY KEY (scope, key)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS rate_limits_by_tat ON rate_limits (tat);
  `,
  // 2: requests sent with an Idempotency-Key (claim while running, response once done).
  `
  CREATE TABLE IF NOT EXISTS idempotency_requests (
    scope TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    response TEXT,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS idempotency_requests_by_expiry ON idempotency_requests (expires_at);
  `,
  // 3: budgets per key: each key's budget, each key's spend in its budget's window, the holds that spend it.
  `
  CREATE TABLE IF NOT EXISTS api_key_budgets (
    key_id TEXT PRIMARY KEY,
    credits INTEGER NOT NULL CHECK (credits >= 0),
    period TEXT NOT NULL CHECK (period IN ('day', 'month', 'total')),
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS credit_budgets (
    account TEXT NOT NULL,
    key_id TEXT NOT NULL,
    budget_window TEXT NOT NULL,
    spent INTEGER NOT NULL CHECK (spent >= 0),
    PRIMARY KEY (account, key_id)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS credit_budget_holds (
    reservation_id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    budget_window TEXT NOT NULL
  ) STRICT;
  `,
];

/**
 * Opens (creating if needed) the stores' database: WAL mode, `busy_timeout`, `synchronous=NORMAL` (durable
 * across process crashes; WAL keeps it consistent across power loss), and the schema at
 * {@link SQLITE_SCHEMA_VERSION}. Throws if the file was written by a newer schema version.
 *
 * The database holds password hashes, emails and the ledger: a new file is created readable by its owner
 * only (0600; SQLite gives its `-wal` and `-shm` files the same mode), in a directory created 0700.
 * Existing files and directories keep their modes (`citewise serve` warns when they are wider).
 */
export function openSqliteDatabase(options: OpenSqliteDatabaseOptions): DatabaseSync {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { path } = options;
  if (typeof path !== 'string' || path.length === 0) throw new TypeError('path must be a non-empty string');
  const busyTimeoutMs = nonNegativeInteger(
    'busyTimeoutMs',
    options.busyTimeoutMs,
    STORE_DEFAULTS.sqliteBusyTimeoutMs,
  );
  if (path !== ':memory:' && !path.startsWith('file:')) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Created here, empty (a valid new database), so that SQLite opens it with this mode and not 0644.
    closeSync(openSync(path, 'a', 0o600));
  }

  const db = new DatabaseSync(path);
  try {
    // busy_timeout first, so that even switching to WAL waits for a concurrently starting process.
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    migrateSqliteDatabase(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Brings the schema to {@link SQLITE_SCHEMA_VERSION} in one immediate transaction. Idempotent. */
export function migrateSqliteDatabase(db: DatabaseSync): void {
  immediateTransaction(db, () => {
    const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
    const version = row?.user_version ?? 0;
    if (version > SQLITE_SCHEMA_VERSION) {
      throw new Error(
        `database schema version ${version} is newer than this citewise supports (${SQLITE_SCHEMA_VERSION})`,
      );
    }
    for (let next = version; next < SQLITE_SCHEMA_VERSION; next++) db.exec(MIGRATIONS[next]!);
    // Also re-run the current version's idempotent DDL: cheap, and repairs a dropped index.
    if (version === SQLITE_SCHEMA_VERSION) db.exec(MIGRATIONS[SQLITE_SCHEMA_VERSION - 1]!);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
  });
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so a read-check-write in
 * `fn` cannot interleave with another connection or process. Rolls back if `fn` throws.
 */
export function immediateTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // (`db.isTransaction` would say whether SQLite already rolled back, but needs Node ≥ 22.16.)
    try {
      db.exec('ROLLBACK');
    } catch {
      // Already rolled back by SQLite (e.g. after SQLITE_FULL); the original error is what matters.
    }
    throw error;
  }
}

/** SQLite's primary result code for "another connection holds the lock" (extended codes keep it in the low byte). */
const SQLITE_BUSY = 5;

/** Whether `error` is SQLite's `database is locked` (SQLITE_BUSY or one of its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === SQLITE_BUSY;
}

/** Longest single pause between two tries for a lock, in ms. */
const MAX_LOCK_PAUSE_MS = 25;

/**
 * Runs synchronous SQLite `work`, and while another connection or process holds the lock (SQLITE_BUSY),
 * tries again after a short asynchronous pause instead of blocking the event loop in SQLite's busy handler.
 * The pause is random up to a cap that doubles from 2 ms to 25 ms ("full jitter"): waiters that pause in
 * lockstep keep missing the moments the lock is free, and one that always pauses longest starves while
 * busier processes take the lock back to back. After `waitMs` it gives up with a 503 `service_unavailable`.
 * Only for work that changed nothing when it failed busy: a single statement, or a whole `BEGIN IMMEDIATE`
 * transaction.
 */
export async function whenUnlocked<T>(work: () => T, waitMs: number): Promise<T> {
  const giveUpAt = performance.now() + waitMs;
  for (let cap = 2; ; cap = Math.min(cap * 2, MAX_LOCK_PAUSE_MS)) {
    try {
      return work();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const pause = 1 + Math.random() * (cap - 1);
      if (performance.now() + pause > giveUpAt) {
        throw new CitewiseError('service_unavailable', `database is locked for more than ${waitMs} ms`, {
          description: 'Service Unavailable: the database is busy, retry shortly',
          retryAfterMs: 1_000,
          cause: error,
        });
      }
      await sleep(pause);
    }
  }
}
