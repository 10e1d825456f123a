import type { DatabaseSync } from 'node:sqlite';
import { nonNegativeInteger } from '../../options.ts';
import { normalizeClock } from '../validation.ts';
import { migrateSqliteDatabase, openSqliteDatabase, whenUnlocked } from './database.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options shared by the SQLite store factories. Give either `path` or `database`. */
export interface SqliteStoreOptions {
  /** Database file (created with its directory if missing); the store opens and closes its own connection. */
  readonly path?: string;
  /** An open database to share (e.g. from `openSqliteDatabase`); the store never closes it. */
  readonly database?: DatabaseSync;
  /**
   * How long an operation waits for another connection's or process's lock before failing with a 503.
   * The wait is asynchronous (the event loop keeps running): the store sets the connection's SQLite
   * `busy_timeout` to 0 and tries again after short pauses. Only creating the store (its schema migration)
   * waits inside SQLite, blocking, for at most this long.
   * @default 5000
   */
  readonly busyTimeoutMs?: number;
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** A database handle plus whether the store owns (and so closes) it. */
export interface SqliteConnection {
  readonly db: DatabaseSync;
  readonly now: () => number;
  /** Runs synchronous SQLite work, waiting asynchronously while the database is locked. */
  readonly unlocked: <T>(work: () => T) => Promise<T>;
  close(): void;
}

/** Throws when the database cannot be read (closed, or its file unreadable): the stores' `ping`. */
export function pingSqlite(db: DatabaseSync): void {
  db.prepare('SELECT count(*) FROM sqlite_master').get();
}

/**
 * Opens or adopts the database named by the options and brings its schema up to date: the stores' tables,
 * plus `migrateMore` (e.g. the console's tables) if given.
 */
export function connectSqlite(
  options: SqliteStoreOptions,
  migrateMore?: (db: DatabaseSync) => void,
): SqliteConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const now = normalizeClock(options.now);
  const waitMs = nonNegativeInteger(
    'busyTimeoutMs',
    options.busyTimeoutMs,
    STORE_DEFAULTS.sqliteBusyTimeoutMs,
  );
  const unlocked = <T>(work: () => T): Promise<T> => whenUnlocked(work, waitMs);
  const { database: adopted, path } = options;
  let db: DatabaseSync;
  if (adopted !== undefined) {
    if (path !== undefined) throw new TypeError('give either path or database, not both');
    db = adopted;
  } else {
    if (path === undefined) throw new TypeError('path (or database) is required');
    db = openSqliteDatabase({ path, busyTimeoutMs: waitMs });
  }
  try {
    // Migrating waits inside SQLite (blocking, at most waitMs) for a process starting on the same file at the
    // same moment. A shared database's busy_timeout may already be 0 (another store set it below): reset it.
    db.exec(`PRAGMA busy_timeout = ${waitMs}`);
    if (adopted !== undefined) migrateSqliteDatabase(db);
    migrateMore?.(db);
    // From here on, lock waits are ours (asynchronous), never SQLite's busy handler (blocking).
    db.exec('PRAGMA busy_timeout = 0');
  } catch (error) {
    if (adopted === undefined) db.close();
    throw error;
  }
  if (adopted !== undefined) return { db, now, unlocked, close() {} };
  let open = true;
  return {
    db,
    now,
    unlocked,
    close() {
      if (open) db.close();
      open = false;
    },
  };
}
