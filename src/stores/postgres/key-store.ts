import {
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  KEY_ROW_COLUMNS as COLUMNS,
  keyRecordFromRow,
  keyRowsFrom,
  looksLikeApiKey,
  newKeyId,
  newKeyRecord,
  type KeyRow as SqlKeyRow,
} from '../keys.ts';
import type { CreateKeyInput, KeyRecord, KeyStore } from '../types.ts';
import { assertId, normalizeClock, normalizeCreateKeyInput } from '../validation.ts';
import { normalizeKeyBudget, type KeyBudget } from '../budgets.ts';
import {
  openPostgresConnection,
  toNumber,
  type PostgresConnection,
  type PostgresConnectionOptions,
} from './connection.ts';

/** Options of {@link createPostgresKeyStore}. */
export interface PostgresKeyStoreOptions extends PostgresConnectionOptions {
  /** Clock for createdAt/revokedAt and expiry checks, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** `bigint` columns arrive as strings. */
type KeyRow = SqlKeyRow<string>;

function toRecord(row: KeyRow): KeyRecord {
  return keyRecordFromRow(row, toNumber);
}

/**
 * Creates a {@link KeyStore} in PostgreSQL (table `api_keys`, only SHA-256 hashes). Every `verify` is one
 * indexed query, so a revocation is visible to every instance at once.
 */
export function createPostgresKeyStore(options: PostgresKeyStoreOptions): KeyStore {
  const now = normalizeClock(options.now);
  return buildPostgresKeyStore(openPostgresConnection(options), now, true);
}

/** @internal Builds the key store on an open connection. */
export function buildPostgresKeyStore(
  connection: PostgresConnection,
  now: () => number,
  ownsConnection: boolean,
): KeyStore {
  const { schema } = connection;
  const FROM = keyRowsFrom(`${schema}.`);
  return {
    async create(input: CreateKeyInput) {
      const { accountId, name, expiresAt, budget } = normalizeCreateKeyInput(input);
      const key = generateApiKey();
      const fields = {
        accountId,
        name,
        expiresAt: expiresAt === null ? null : Math.ceil(expiresAt),
        budget,
      };
      for (;;) {
        const record = newKeyRecord(newKeyId(), key, fields, Math.round(now()));
        // One statement: the key and its budget are written together or not at all.
        const { rows } = await connection.query<{ created: string }>(
          `WITH created AS (
             INSERT INTO ${schema}.api_keys (id, hash, account_id, name, prefix, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING id
           ), budget AS (
             INSERT INTO ${schema}.api_key_budgets (key_id, credits, period, updated_at)
             SELECT id, $8, $9, $6 FROM created WHERE $8::bigint IS NOT NULL
           )
           SELECT count(*) AS created FROM created`,
          [
            record.id,
            hashApiKey(key),
            accountId,
            name,
            record.prefix,
            record.createdAt,
            record.expiresAt,
            budget?.credits ?? null,
            budget?.period ?? null,
          ],
        );
        if (toNumber(rows[0]?.created) === 1) return { key, record };
      }
    },

    async setBudget(id: string, budget: KeyBudget | null) {
      assertId(id, 'key id');
      const normalized = normalizeKeyBudget(budget);
      if (normalized) {
        await connection.query(
          `INSERT INTO ${schema}.api_key_budgets (key_id, credits, period, updated_at)
           SELECT id, $2, $3, $4 FROM ${schema}.api_keys WHERE id = $1
           ON CONFLICT (key_id) DO UPDATE SET credits = EXCLUDED.credits, period = EXCLUDED.period,
             updated_at = EXCLUDED.updated_at`,
          [id, normalized.credits, normalized.period, Math.round(now())],
        );
      } else {
        await connection.query(`DELETE FROM ${schema}.api_key_budgets WHERE key_id = $1`, [id]);
      }
      const { rows } = await connection.query<KeyRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = $1`, [id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async verify(rawKey: string) {
      if (!looksLikeApiKey(rawKey)) return null;
      const { rows } = await connection.query<KeyRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.hash = $1`, [
        hashApiKey(rawKey),
      ]);
      const record = rows[0] ? toRecord(rows[0]) : null;
      return record && isKeyUsable(record, now) ? record : null;
    },

    async revoke(id: string) {
      assertId(id, 'key id');
      const { rowCount } = await connection.query(
        `UPDATE ${schema}.api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`,
        [id, Math.round(now())],
      );
      return rowCount === 1;
    },

    async list(accountId?: string) {
      if (accountId !== undefined) assertId(accountId, 'accountId');
      const { rows } =
        accountId === undefined
          ? await connection.query<KeyRow>(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY k.seq`)
          : await connection.query<KeyRow>(
              `SELECT ${COLUMNS} FROM ${FROM} WHERE k.account_id = $1 ORDER BY k.seq`,
              [accountId],
            );
      return rows.map(toRecord);
    },

    async ping() {
      await connection.query('SELECT 1');
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
