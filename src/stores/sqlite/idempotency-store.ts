import type { IdempotencyState, IdempotencyStore } from '../types.ts';
import { assertId, assertPositiveMs } from '../validation.ts';
import { claimedStateFromJson } from '../idempotency-state.ts';
import { connectSqlite, type SqliteStoreOptions } from './connection.ts';
import { immediateTransaction } from './database.ts';

interface Row {
  fingerprint: string;
  response: string | null;
  expires_at: number;
}

// How often (per connection) expired rows are deleted.
const PURGE_INTERVAL_MS = 60_000;

/**
 * Creates an {@link IdempotencyStore} in SQLite (table `idempotency_requests`): shared by every process on
 * the same file. A claim is one `BEGIN IMMEDIATE` transaction, so of concurrent begins exactly one wins.
 */
export function createSqliteIdempotencyStore(options: SqliteStoreOptions): IdempotencyStore {
  const connection = connectSqlite(options);
  const { db, now, unlocked } = connection;
  const select = db.prepare(
    'SELECT fingerprint, response, expires_at FROM idempotency_requests WHERE scope = ?',
  );
  const claim = db.prepare(
    `INSERT INTO idempotency_requests (scope, fingerprint, response, expires_at) VALUES (?, ?, NULL, ?)
     ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, response = NULL,
       expires_at = excluded.expires_at`,
  );
  const complete = db.prepare('UPDATE idempotency_requests SET response = ?, expires_at = ? WHERE scope = ?');
  const abandon = db.prepare('DELETE FROM idempotency_requests WHERE scope = ? AND response IS NULL');
  const purge = db.prepare('DELETE FROM idempotency_requests WHERE expires_at <= ?');
  let lastPurge = -Infinity;

  return {
    async begin(scope, fingerprint, leaseMs): Promise<IdempotencyState> {
      assertId(scope, 'scope');
      assertId(fingerprint, 'fingerprint');
      assertPositiveMs(leaseMs, 'leaseMs');
      return unlocked(() =>
        immediateTransaction(db, (): IdempotencyState => {
          const at = Math.floor(now());
          if (at - lastPurge >= PURGE_INTERVAL_MS) {
            purge.run(at);
            lastPurge = at;
          }
          const row = select.get(scope) as Row | undefined;
          if (!row || row.expires_at <= at) {
            claim.run(scope, fingerprint, Math.ceil(at + leaseMs));
            return { state: 'new' };
          }
          return claimedStateFromJson(row.fingerprint, row.response);
        }),
      );
    },
    async complete(scope, response, ttlMs) {
      assertId(scope, 'scope');
      assertPositiveMs(ttlMs, 'ttlMs');
      const json = JSON.stringify(response);
      await unlocked(() => complete.run(json, Math.ceil(now() + ttlMs), scope));
    },
    async abandon(scope) {
      assertId(scope, 'scope');
      await unlocked(() => abandon.run(scope));
    },
    async close() {
      connection.close();
    },
  };
}
