/**
 * API key helpers shared by every KeyStore: key generation, hashing, display prefixes, ids and a cheap
 * format check. Keys look like `cw_` followed by 40 base62 characters (≈238 bits of entropy).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { KeyBudget, KeyRecord } from './types.ts';

/** Every raw API key starts with this. */
export const API_KEY_PREFIX = 'cw_';
/** Number of random base62 characters after {@link API_KEY_PREFIX}. */
export const API_KEY_RANDOM_LENGTH = 40;
/** Length of the display prefix returned by {@link keyPrefix}. */
export const KEY_PREFIX_LENGTH = 8;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Bytes at or above 248 (= 4 × 62) are rejected so that `byte % 62` is uniform.
const UNBIASED_BYTE_LIMIT = 248;
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}}$`);

/** Generates a new raw API key: `cw_` + 40 uniformly random base62 characters from `crypto.randomBytes`. */
export function generateApiKey(): string {
  let out = API_KEY_PREFIX;
  while (out.length < API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte >= UNBIASED_BYTE_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH) break;
    }
  }
  return out;
}

/** Hex SHA-256 of a raw key: the only form in which stores keep keys. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

/** The first {@link KEY_PREFIX_LENGTH} characters of a raw key (e.g. `cw_7Hq2x`), safe to display. */
export function keyPrefix(rawKey: string): string {
  return rawKey.slice(0, KEY_PREFIX_LENGTH);
}

/** A new key id: `key_` + 12 random hex characters. Ids are public; they name keys for listing and revocation. */
export function newKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}

/**
 * Cheap format check (`cw_` + 40 base62 characters) so that malformed keys are rejected without a store
 * lookup. Accepts `unknown` so callers can pass untrusted input directly.
 */
export function looksLikeApiKey(rawKey: unknown): rawKey is string {
  return typeof rawKey === 'string' && API_KEY_PATTERN.test(rawKey);
}

/** The fields of a new key that come from the caller, normalized (see `normalizeCreateKeyInput`). */
export interface NewKeyFields {
  readonly accountId: string;
  readonly name: string | null;
  readonly expiresAt: number | null;
  readonly budget?: KeyBudget | null;
}

/** The record of a freshly created, unrevoked key; stores round `createdAt`/`expiresAt` as they keep them. */
export function newKeyRecord(id: string, rawKey: string, fields: NewKeyFields, createdAt: number): KeyRecord {
  return {
    id,
    accountId: fields.accountId,
    name: fields.name,
    prefix: keyPrefix(rawKey),
    createdAt,
    expiresAt: fields.expiresAt,
    revokedAt: null,
    ...(fields.budget ? { budget: fields.budget } : {}),
  };
}

/** True while a key is neither revoked nor expired; the clock is read only for a key that can expire. */
export function isKeyUsable(record: KeyRecord, now: () => number): boolean {
  if (record.revokedAt !== null) return false;
  return record.expiresAt === null || now() < record.expiresAt;
}

/** A row of the SQL `api_keys` tables (SQLite, PostgreSQL); `Time` is how the driver returns integers. */
export interface KeyRow<Time> {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  created_at: Time;
  expires_at: Time | null;
  revoked_at: Time | null;
  budget_credits: Time | null;
  budget_period: string | null;
}

/** The columns of {@link KeyRow}, for `SELECT … FROM` {@link keyRowsFrom} (keys `k`, budgets `b`). */
export const KEY_ROW_COLUMNS =
  'k.id, k.account_id, k.name, k.prefix, k.created_at, k.expires_at, k.revoked_at, ' +
  'b.credits AS budget_credits, b.period AS budget_period';

/** The SQL key tables, each key with its budget if it has one; `schema` is a quoted schema and dot, or ''. */
export function keyRowsFrom(schema = ''): string {
  return `${schema}api_keys k LEFT JOIN ${schema}api_key_budgets b ON b.key_id = k.id`;
}

/** Maps a {@link KeyRow} to a {@link KeyRecord}; `toTime` converts the driver's integers (e.g. bigint strings). */
export function keyRecordFromRow<Time>(row: KeyRow<Time>, toTime: (value: Time) => number): KeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: toTime(row.created_at),
    expiresAt: row.expires_at === null ? null : toTime(row.expires_at),
    revokedAt: row.revoked_at === null ? null : toTime(row.revoked_at),
    ...(row.budget_credits === null || row.budget_period === null
      ? {}
      : {
          budget: {
            credits: toTime(row.budget_credits),
            period: row.budget_period as KeyBudget['period'],
          },
        }),
  };
}
