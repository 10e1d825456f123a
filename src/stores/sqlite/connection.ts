import type { DatabaseSync } from 'node:sqlite';
import { normaliseClock } from '../validation.ts';
import { migrateSqliteDatabase, openSqliteDatabase } from './database.ts';

/** Options shared by the SQLite store factories. Give either `path` or `database`. */
export interface SqliteStoreOptions {
  /** Database file (created with its directory if missing); the store opens and closes its own connection. */
  readonly path?: string;
  /** An open database to share (e.g. from `openSqliteDatabase`); the store never closes it. */
  readonly database?: DatabaseSync;
  /** With `path`: how long to wait for another process's write lock. @default 5000 */
  readonly busyTimeoutMs?: number;
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** A database handle plus whether the store owns (and so closes) it. */
export interface SqliteConnection {
  readonly db: DatabaseSync;
  readonly now: () => number;
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
  if (options.database !== undefined) {
    if (options.path !== undefined) throw new TypeError('give either path or database, not both');
    const db = options.database;
    migrateSqliteDatabase(db);
    return { db, now, close() {} };
  }
  if (options.path === undefined) throw new TypeError('path (or database) is required');
  const db = openSqliteDatabase({ path: options.path, busyTimeoutMs: options.busyTimeoutMs });
  let open = true;
  return {
    db,
    now,
    close() {
      if (open) db.close();
      open = false;
    },
  };
}
