/**
 * The key store the engine uses when the console is mounted: the operator's suspension (a suspended
 * organization's keys answer 401) and one-use playground keys, in front of the real key store.
 */
import { randomBytes } from 'node:crypto';
import { nonNegativeInteger } from '../options.ts';
import type { AccountStore } from '../stores/account-types.ts';
import type { KeyRecord, KeyStore } from '../stores/types.ts';

const CONSOLE_KEYS = Symbol('citewise.consoleKeys');

/** Options of {@link withConsoleKeys}. */
export interface ConsoleKeysOptions {
  /**
   * How long the list of suspended organizations is trusted before it is read again (a suspension made
   * on another instance takes effect within this bound; on this instance it is immediate). @default 5_000
   */
  readonly suspensionRefreshMs?: number;
}

/** A {@link KeyStore} that also knows about suspended organizations and playground keys. */
export interface ConsoleKeyStore extends KeyStore {
  readonly [CONSOLE_KEYS]: true;
  /** The wrapped store (create, list and revoke go straight to it). */
  readonly inner: KeyStore;
  /**
   * A secret that authenticates as `record` once, within 60 s, in this process only: the playground
   * searches with it, so the browser never needs the real key. Never leaves the server.
   */
  mintPlaygroundKey(record: KeyRecord): string;
  /** Reads the suspended organizations now (after a local change). */
  refreshSuspended(): Promise<void>;
}

/** Defaults of {@link ConsoleKeysOptions}. */
export const CONSOLE_KEYS_DEFAULTS = {
  suspensionRefreshMs: 5_000,
} as const;

/** Wraps `keys` for the console; give the result to `createSearchEngine({ keys })` and to the console. */
export function withConsoleKeys(
  keys: KeyStore,
  accounts: AccountStore,
  options: ConsoleKeysOptions = {},
): ConsoleKeyStore {
  const refreshMs = nonNegativeInteger(
    'suspensionRefreshMs',
    options.suspensionRefreshMs,
    CONSOLE_KEYS_DEFAULTS.suspensionRefreshMs,
  );
  const playground = new Map<string, { record: KeyRecord; expiresAt: number }>();
  let suspended = new Set<string>();
  let readAt = -Infinity;
  let reading: Promise<void> | null = null;

  function refreshSuspended(): Promise<void> {
    reading ??= accounts
      .suspendedOrganizationIds()
      .then((ids) => {
        suspended = new Set(ids);
        readAt = Date.now();
      })
      .finally(() => (reading = null));
    return reading;
  }

  return {
    [CONSOLE_KEYS]: true,
    inner: keys,
    create: (input) => keys.create(input),
    revoke: (id) => keys.revoke(id),
    list: (accountId) => keys.list(accountId),
    ...(keys.setBudget ? { setBudget: (id, budget) => keys.setBudget!(id, budget) } : {}),
    async verify(rawKey) {
      let record: KeyRecord | null;
      const minted = playground.get(rawKey);
      if (minted) {
        playground.delete(rawKey);
        record = minted.expiresAt > Date.now() ? minted.record : null;
      } else {
        record = await keys.verify(rawKey);
      }
      if (!record) return null;
      if (Date.now() - readAt > refreshMs) await refreshSuspended();
      return suspended.has(record.accountId) ? null : record;
    },
    mintPlaygroundKey(record) {
      const now = Date.now();
      for (const [secret, entry] of playground) if (entry.expiresAt <= now) playground.delete(secret);
      const secret = `cwplay_${randomBytes(32).toString('base64url')}`;
      playground.set(secret, { record, expiresAt: now + 60_000 });
      return secret;
    },
    refreshSuspended,
    close: () => keys.close?.() ?? Promise.resolve(),
  };
}

/** Whether `keys` was made by {@link withConsoleKeys}. */
export function isConsoleKeyStore(keys: KeyStore): keys is ConsoleKeyStore {
  return (keys as Partial<ConsoleKeyStore>)[CONSOLE_KEYS] === true;
}
