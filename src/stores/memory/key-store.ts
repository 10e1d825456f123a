import { generateApiKey, hashApiKey, isKeyUsable, looksLikeApiKey, newKeyId, newKeyRecord } from '../keys.ts';
import type { CreateKeyInput, KeyRecord, KeyStore } from '../types.ts';
import { assertId, normalizeClock, normalizeCreateKeyInput } from '../validation.ts';
import { normalizeKeyBudget } from '../budgets.ts';

/** Options of {@link createMemoryKeyStore}. */
export interface MemoryKeyStoreOptions {
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** What a memory key store holds for one key: the record and the SHA-256 hash of the raw key. */
export interface StoredKey {
  readonly hash: string;
  readonly record: KeyRecord;
}

/** An in-memory {@link KeyStore}; `dump()` shows exactly what it holds (hashes, never raw keys). */
export interface MemoryKeyStore extends KeyStore {
  /** A copy of every stored key, oldest first. For debugging and tests. */
  dump(): StoredKey[];
}

/**
 * Creates a {@link KeyStore} held in process memory. Keys are lost on restart; use the SQLite store to keep
 * them. Only creation adds entries, so memory grows with the number of keys created, not with requests.
 */
export function createMemoryKeyStore(options: MemoryKeyStoreOptions = {}): MemoryKeyStore {
  const now = normalizeClock(options.now);
  const byHash = new Map<string, KeyRecord>();
  const hashById = new Map<string, string>();

  return {
    async create(input: CreateKeyInput) {
      const fields = normalizeCreateKeyInput(input);
      const key = generateApiKey();
      let id = newKeyId();
      while (hashById.has(id)) id = newKeyId();
      const record = newKeyRecord(id, key, fields, now());
      const hash = hashApiKey(key);
      byHash.set(hash, record);
      hashById.set(id, hash);
      return { key, record: { ...record } };
    },

    async verify(rawKey: string) {
      if (!looksLikeApiKey(rawKey)) return null;
      const record = byHash.get(hashApiKey(rawKey));
      return record && isKeyUsable(record, now) ? { ...record } : null;
    },

    async revoke(id: string) {
      assertId(id, 'key id');
      const hash = hashById.get(id);
      const record = hash === undefined ? undefined : byHash.get(hash);
      if (hash === undefined || !record) return false;
      if (record.revokedAt === null) byHash.set(hash, { ...record, revokedAt: now() });
      return true;
    },

    async setBudget(id, budget) {
      assertId(id, 'key id');
      const normalized = normalizeKeyBudget(budget);
      const hash = hashById.get(id);
      const record = hash === undefined ? undefined : byHash.get(hash);
      if (hash === undefined || !record) return null;
      const { budget: _old, ...rest } = record;
      const updated: KeyRecord = normalized ? { ...rest, budget: normalized } : rest;
      byHash.set(hash, updated);
      return { ...updated };
    },

    async list(accountId?: string) {
      if (accountId !== undefined) assertId(accountId, 'accountId');
      const out: KeyRecord[] = [];
      // Map iteration is insertion order, i.e. oldest first.
      for (const record of byHash.values()) {
        if (accountId === undefined || record.accountId === accountId) out.push({ ...record });
      }
      return out;
    },

    dump() {
      return [...byHash].map(([hash, record]) => ({ hash, record: { ...record } }));
    },

    async ping() {},
    async close() {},
  };
}
