import type { IdempotencyState, IdempotencyStore } from '../types.ts';
import { assertId, assertPositiveMs } from '../validation.ts';
import { claimedStateFromJson } from '../idempotency-state.ts';
import {
  openPostgresConnection,
  type PostgresConnection,
  type PostgresConnectionOptions,
} from './connection.ts';

/** Options of {@link createPostgresIdempotencyStore}. */
export type PostgresIdempotencyStoreOptions = PostgresConnectionOptions;

/** Epoch ms on the database clock, so instances with skewed clocks agree on leases. */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

// How often (per process) expired rows are deleted.
const PURGE_INTERVAL_MS = 60_000;

/**
 * Creates an {@link IdempotencyStore} in PostgreSQL (table `idempotency_requests`, schema migration 2).
 * A claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE expired` statement, so of concurrent begins on any
 * number of instances exactly one wins; leases and replay times run on the database clock.
 */
export function createPostgresIdempotencyStore(options: PostgresIdempotencyStoreOptions): IdempotencyStore {
  return buildPostgresIdempotencyStore(openPostgresConnection(options), true);
}

/** @internal Builds the store on an open connection. */
export function buildPostgresIdempotencyStore(
  connection: PostgresConnection,
  ownsConnection: boolean,
): IdempotencyStore {
  const table = `${connection.schema}.idempotency_requests`;
  let lastPurge = -Infinity;

  async function current(scope: string): Promise<IdempotencyState | undefined> {
    const { rows } = await connection.query<{ fingerprint: string; response: string | null }>(
      `SELECT fingerprint, response FROM ${table} WHERE scope = $1 AND expires_at > ${NOW_MS}`,
      [scope],
    );
    const row = rows[0];
    if (!row) return undefined;
    return claimedStateFromJson(row.fingerprint, row.response);
  }

  return {
    async begin(scope, fingerprint, leaseMs) {
      assertId(scope, 'scope');
      assertId(fingerprint, 'fingerprint');
      assertPositiveMs(leaseMs, 'leaseMs');
      if (Date.now() - lastPurge >= PURGE_INTERVAL_MS) {
        lastPurge = Date.now();
        await connection.query(`DELETE FROM ${table} WHERE expires_at <= ${NOW_MS}`);
      }
      // The row may lapse or be abandoned between the claim and the look: then claim again.
      for (;;) {
        const { rowCount } = await connection.query(
          `INSERT INTO ${table} AS r (scope, fingerprint, response, expires_at)
           VALUES ($1, $2, NULL, ${NOW_MS} + $3)
           ON CONFLICT (scope) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, response = NULL, expires_at = EXCLUDED.expires_at
             WHERE r.expires_at <= ${NOW_MS}`,
          [scope, fingerprint, Math.ceil(leaseMs)],
        );
        if (rowCount === 1) return { state: 'new' };
        const found = await current(scope);
        if (found) return found;
      }
    },
    async complete(scope, response, ttlMs) {
      assertId(scope, 'scope');
      assertPositiveMs(ttlMs, 'ttlMs');
      await connection.query(
        `UPDATE ${table} SET response = $2, expires_at = ${NOW_MS} + $3 WHERE scope = $1`,
        [scope, JSON.stringify(response), Math.ceil(ttlMs)],
      );
    },
    async abandon(scope) {
      assertId(scope, 'scope');
      await connection.query(`DELETE FROM ${table} WHERE scope = $1 AND response IS NULL`, [scope]);
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
