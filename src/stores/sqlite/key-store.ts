import {
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  KEY_ROW_COLUMNS as COLUMNS,
  keyPrefix,
  keyRecordFromRow,
  keyRowsFrom,
  looksLikeApiKey,
  newKeyId,
  newKeyRecord,
  type KeyRow as SqlKeyRow,
} from '../keys.ts';
import type { CreateKeyInput, KeyRecord, KeyStore } from '../types.ts';
import { assertId, normalizeCreateKeyInput } from '../validation.ts';
import { normalizeKeyBudget, type KeyBudget } from '../budgets.ts';
import { immediateTransaction } from './database.ts';
import { connectSqlite, pingSqlite } from './connection.ts';
import type { SqliteStoreOptions } from './connection.ts';

/** SQLite integers arrive as numbers. */
type KeyRow = SqlKeyRow<number>;

const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

function toRecord(row: KeyRow): KeyRecord {
  return keyRecordFromRow(row, (time) => time);
}

/**
 * Creates a {@link KeyStore} in SQLite. Only the SHA-256 hash of each key is stored. Each operation is a
 * single statement, hence atomic, and safe while another process (the CLI) uses the same file.
 * Times are stored as whole milliseconds (`expiresAt` rounded up).
 */
export function createSqliteKeyStore(options: SqliteStoreOptions): KeyStore {
  const connection = connectSqlite(options);
  const { db, now, unlocked } = connection;
  const insert = db.prepare(
    `INSERT INTO api_keys (id, key_hash, account_id, name, prefix, created_at, expires_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
  );
  const FROM = keyRowsFrom();
  const byHash = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.key_hash = ?`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?`);
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?');
  const listAll = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY k.created_at, k.rowid`);
  const listByAccount = db.prepare(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE k.account_id = ? ORDER BY k.created_at, k.rowid`,
  );
  const putBudget = db.prepare(
    `INSERT INTO api_key_budgets (key_id, credits, period, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key_id) DO UPDATE SET credits = excluded.credits, period = excluded.period,
       updated_at = excluded.updated_at`,
  );
  const dropBudget = db.prepare('DELETE FROM api_key_budgets WHERE key_id = ?');
  const writeBudget = (id: string, budget: KeyBudget | null, at: number) =>
    budget ? putBudget.run(id, budget.credits, budget.period, at) : dropBudget.run(id);

  return {
    async create(input: CreateKeyInput) {
      const normalized = normalizeCreateKeyInput(input);
      const expiresAt = normalized.expiresAt === null ? null : Math.ceil(normalized.expiresAt);
      const key = generateApiKey();
      const createdAt = Math.floor(now());
      for (let attempt = 0; ; attempt++) {
        const id = newKeyId();
        try {
          await unlocked(() =>
            immediateTransaction(db, () => {
              insert.run(
                id,
                hashApiKey(key),
                normalized.accountId,
                normalized.name,
                keyPrefix(key),
                createdAt,
                expiresAt,
              );
              if (normalized.budget) writeBudget(id, normalized.budget, createdAt);
            }),
          );
        } catch (error) {
          // A 48-bit id collision is rare but possible; draw another id.
          if (attempt < 5 && (error as { errcode?: number }).errcode === SQLITE_CONSTRAINT_PRIMARYKEY)
            continue;
          throw error;
        }
        return { key, record: newKeyRecord(id, key, { ...normalized, expiresAt }, createdAt) };
      }
    },

    async verify(rawKey: string) {
      if (!looksLikeApiKey(rawKey)) return null;
      const row = (await unlocked(() => byHash.get(hashApiKey(rawKey)))) as KeyRow | undefined;
      const record = row ? toRecord(row) : null;
      return record && isKeyUsable(record, now) ? record : null;
    },

    async revoke(id: string) {
      assertId(id, 'key id');
      return unlocked(() => Number(revoke.run(Math.floor(now()), id).changes) > 0);
    },

    async setBudget(id: string, budget: KeyBudget | null) {
      assertId(id, 'key id');
      const normalized = normalizeKeyBudget(budget);
      const row = (await unlocked(() =>
        immediateTransaction(db, () => {
          if (!byId.get(id)) return undefined;
          writeBudget(id, normalized, Math.floor(now()));
          return byId.get(id);
        }),
      )) as KeyRow | undefined;
      return row ? toRecord(row) : null;
    },

    async list(accountId?: string) {
      if (accountId !== undefined) assertId(accountId, 'accountId');
      const rows = (await unlocked(() =>
        accountId === undefined ? listAll.all() : listByAccount.all(accountId),
      )) as unknown as KeyRow[];
      return rows.map(toRecord);
    },

    async ping() {
      pingSqlite(db);
    },
    async close() {
      connection.close();
    },
  };
}
