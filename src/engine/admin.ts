/**
 * The engine's administration: API keys and the credit accounts they spend from (`citewise keys create`,
 * {@link SearchEngine.createKey}).
 */
import { randomBytes } from 'node:crypto';
import type { KeyRecord, KeyStore } from '../stores/types.ts';
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
  });
  return { ...created, accountCreated };
}
