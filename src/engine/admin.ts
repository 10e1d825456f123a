/**
 * The engine's administration: API keys and the credit accounts they spend from (`citewise keys create`,
 * {@link SearchEngine.createKey}).
 */
import { randomBytes } from 'node:crypto';
import { CitewiseError } from '../errors.ts';
import type { KeyBudget, KeyRecord, KeyStore } from '../stores/types.ts';
import type { CreditsService } from './credits.ts';
import { FREE_CREDITS, type CreateKeyOptions } from './options.ts';

/** The ledger note of an account opened with its first key. */
export const ACCOUNT_OPENED_NOTE = 'account opened';

/** Creates an API key, opening its account with `credits` (and a ledger entry) if the account is new. */
export async function createKey(
  keys: KeyStore,
  credits: CreditsService,
  input: CreateKeyOptions,
): Promise<{ key: string; record: KeyRecord; accountCreated: boolean }> {
  const accountId = input.accountId ?? `acct_${randomBytes(6).toString('hex')}`;
  const accountCreated = await credits.openAccount(
    accountId,
    input.credits ?? FREE_CREDITS,
    ACCOUNT_OPENED_NOTE,
  );
  const created = await keys.create({
    accountId,
    name: input.name ?? null,
    expiresAt: input.expiresAt ?? null,
    budget: input.budget ?? null,
  });
  return { ...created, accountCreated };
}

/**
 * Sets (or with `null` removes) key `id`'s budget; returns the updated record, or `null` for an unknown key.
 * Takes effect at the key's next search (a Redis key store's cache: within its `keyCacheMs`).
 */
export async function setKeyBudget(
  keys: KeyStore,
  id: string,
  budget: KeyBudget | null,
): Promise<KeyRecord | null> {
  if (!keys.setBudget) {
    throw new CitewiseError('server_error', 'this key store cannot set budgets (it has no setBudget)');
  }
  return keys.setBudget(id, budget);
}
