import { LRUCache } from 'lru-cache';
import { nonNegativeNumber, positiveInteger } from '../../options.ts';
import { generateApiKey, hashApiKey, isKeyUsable, looksLikeApiKey, newKeyId, newKeyRecord } from '../keys.ts';
import type { CreateKeyInput, KeyRecord, KeyStore } from '../types.ts';
import { assertId, normalizeClock, normalizeCreateKeyInput } from '../validation.ts';
import { normalizeKeyBudget, type KeyBudget } from '../budgets.ts';
import {
  hashTag,
  openRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createRedisKeyStore}. */
export interface RedisKeyStoreOptions extends RedisConnectionOptions {
  /**
   * How long a verified key is served from this process's cache. A key revoked on another instance keeps
   * working here for at most this long (revoking through this store takes effect here at once).
   * `0` disables the cache. @default 5_000
   */
  readonly keyCacheMs?: number;
  /**
   * How long an unknown key is remembered as unknown, so floods of bad keys do not reach Redis. A key created
   * on another instance is accepted here at most this long after its creation. @default 1_000
   */
  readonly negativeCacheMs?: number;
  /** Most keys cached. @default 10_000 */
  readonly keyCacheSize?: number;
  /** Clock for createdAt/revokedAt and expiry checks, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

interface CacheEntry {
  /** The record (revocation included), or null for a key Redis does not know. */
  readonly record: KeyRecord | null;
}

/** Redis keys of the key store: one hash tag, so every script's keys share a Cluster slot. */
function keyStoreKeys(prefix: string) {
  const base = `${prefix}keys${hashTag('keys')}`;
  return {
    records: `${base}:records`,
    revoked: `${base}:revoked`,
    ids: `${base}:ids`,
    order: `${base}:order`,
    seq: `${base}:seq`,
    budgets: `${base}:budgets`,
    account: (accountId: string) => `${base}:account:${accountId}`,
  };
}

/**
 * Creates a {@link KeyStore} in Redis. Only the SHA-256 of a key is stored. `verify` is served from a small
 * bounded in-process LRU cache for `keyCacheMs` (unknown keys for `negativeCacheMs`), so a revocation made
 * on another instance is visible everywhere within `keyCacheMs`; key expiry is checked on every call.
 */
export function createRedisKeyStore(options: RedisKeyStoreOptions): KeyStore {
  const settings = normalizeRedisKeySettings(options, normalizeClock(options.now));
  return buildRedisKeyStore(openRedisConnection(options), settings, true);
}

/** The key cache's settings, checked, with {@link STORE_DEFAULTS} applied. */
export interface RedisKeySettings {
  readonly keyCacheMs: number;
  readonly negativeCacheMs: number;
  readonly keyCacheSize: number;
  readonly now: () => number;
}

/** Checks the key cache's options (of the key store alone or of `createRedisStores`). */
export function normalizeRedisKeySettings(
  options: Pick<RedisKeyStoreOptions, 'keyCacheMs' | 'negativeCacheMs' | 'keyCacheSize'>,
  now: () => number,
): RedisKeySettings {
  return {
    keyCacheMs: nonNegativeNumber('keyCacheMs', options.keyCacheMs, STORE_DEFAULTS.keyCacheMs),
    negativeCacheMs: nonNegativeNumber(
      'negativeCacheMs',
      options.negativeCacheMs,
      STORE_DEFAULTS.negativeCacheMs,
    ),
    keyCacheSize: positiveInteger('keyCacheSize', options.keyCacheSize, STORE_DEFAULTS.keyCacheSize),
    now,
  };
}

/** @internal Builds the key store on an open connection; `ownsConnection` decides whether close() closes it. */
export function buildRedisKeyStore(
  connection: RedisConnection,
  settings: RedisKeySettings,
  ownsConnection: boolean,
): KeyStore {
  const { keyCacheMs, negativeCacheMs, now } = settings;
  const keys = keyStoreKeys(connection.prefix);
  const cache =
    keyCacheMs > 0 || negativeCacheMs > 0
      ? new LRUCache<string, CacheEntry>({ max: settings.keyCacheSize, ttl: Math.max(keyCacheMs, 1) })
      : null;

  function fromRedis(json: string, revokedAt: string | null, budget: string | null): KeyRecord {
    const { budget: _created, ...stored } = JSON.parse(json) as KeyRecord;
    return {
      ...stored,
      revokedAt: revokedAt ? Number(revokedAt) : null,
      ...(budget ? { budget: JSON.parse(budget) as KeyBudget } : {}),
    };
  }

  async function lookup(hash: string): Promise<KeyRecord | null> {
    const cached = cache?.get(hash);
    if (cached) return cached.record;
    const [json, revokedAt, budget] = await connection.call((client) =>
      Promise.all([
        client.hget(keys.records, hash),
        client.hget(keys.revoked, hash),
        client.hget(keys.budgets, hash),
      ]),
    );
    const record = json ? fromRedis(json, revokedAt, budget) : null;
    const ttl = record ? keyCacheMs : negativeCacheMs;
    if (cache && ttl > 0) cache.set(hash, { record }, { ttl });
    return record;
  }

  const allKeys = () => [keys.records, keys.revoked, keys.ids];

  async function setBudgetOf(id: string, budget: KeyBudget | null): Promise<KeyRecord | null> {
    const found = (await connection.run(
      'citewiseKeySetBudget',
      [...allKeys(), keys.budgets],
      [id, budget ? JSON.stringify(budget) : ''],
    )) as [string, string, string] | null;
    if (!found) return null;
    cache?.delete(found[0]);
    return fromRedis(found[1], found[2] || null, budget ? JSON.stringify(budget) : null);
  }

  return {
    async create(input: CreateKeyInput) {
      const fields = normalizeCreateKeyInput(input);
      const key = generateApiKey();
      const hash = hashApiKey(key);
      for (;;) {
        const record = newKeyRecord(newKeyId(), key, fields, now());
        const created = await connection.run(
          'citewiseKeyCreate',
          [...allKeys(), keys.order, keys.seq, keys.account(fields.accountId)],
          [hash, record.id, JSON.stringify(record)],
        );
        if (created === 1) {
          // The budget lives in its own hash (changeable later); written before the key is handed out.
          if (fields.budget) await setBudgetOf(record.id, fields.budget);
          cache?.delete(hash);
          return { key, record: { ...record } };
        }
      }
    },

    async verify(rawKey: string) {
      if (!looksLikeApiKey(rawKey)) return null;
      const record = await lookup(hashApiKey(rawKey));
      return record && isKeyUsable(record, now) ? { ...record } : null;
    },

    async revoke(id: string) {
      assertId(id, 'key id');
      const hash = await connection.run('citewiseKeyRevoke', allKeys(), [id, now()]);
      if (typeof hash !== 'string') return false;
      cache?.delete(hash);
      return true;
    },

    async setBudget(id: string, budget: KeyBudget | null) {
      assertId(id, 'key id');
      return setBudgetOf(id, normalizeKeyBudget(budget));
    },

    async list(accountId?: string) {
      if (accountId !== undefined) assertId(accountId, 'accountId');
      const order = accountId === undefined ? keys.order : keys.account(accountId);
      const flat = (await connection.run(
        'citewiseKeyList',
        [...allKeys(), order, keys.budgets],
        [],
      )) as string[];
      const out: KeyRecord[] = [];
      for (let i = 0; i < flat.length; i += 3) {
        out.push(fromRedis(flat[i]!, flat[i + 1] || null, flat[i + 2] || null));
      }
      return out;
    },

    async ping() {
      await connection.ping();
    },
    async close() {
      cache?.clear();
      if (ownsConnection) await connection.close();
    },
  };
}
