import type { DatabaseSync } from 'node:sqlite';
import { nonNegativeInteger } from '../../options.ts';
import { normaliseClock } from '../validation.ts';
import { migrateSqliteDatabase, openSqliteDatabase, whenUnlocked } from './database.ts';

/** Options shared by the SQLite store factories. Give either `path` or `database`. */
export interface SqliteStoreOptions {
  /** Database file (created with its directory if missing); the store opens and closes its own connection. */
  readonly path?: string;
  /** An open database to share (e.g. from `openSqliteDatabase`); the store never closes it. */
  readonly database?: DatabaseSync;
  /**
   * How long an operation waits for another connection's or process's lock before failing with a 503.
   * The wait is asynchronous (the event loop keeps running): the store sets the connection's SQLite
   * `busy_timeout` to 0 and tries again after short pauses.
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

/** Opens or adopts the database named by the options. */
export function connectSqlite(options: SqliteStoreOptions): SqliteConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const now = normaliseClock(options.now);
  const waitMs = nonNegativeInteger('busyTimeoutMs', options.busyTimeoutMs, 5_000);
  const unlocked = <T>(work: () => T): Promise<T> => whenUnlocked(work, waitMs);
  if (options.database !== undefined) {
    if (options.path !== undefined) throw new TypeError('give either path or database, not both');
    const db = options.database;
    migrateSqliteDatabase(db);
    // From here on, lock waits are ours (asynchronous), never SQLite's busy handler (blocking).
    db.exec('PRAGMA busy_timeout = 0');
    return { db, now, unlocked, close() {} };
  }
  if (options.path === undefined) throw new TypeError('path (or database) is required');
  const db = openSqliteDatabase({ path: options.path, busyTimeoutMs: waitMs });
  db.exec('PRAGMA busy_timeout = 0');
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
