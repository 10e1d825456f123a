/**
 * The operator page's list of credit accounts that are no organization of the console: the first start's
 * account and those `citewise keys create` made. They are found through the keys that spend from them.
 */
import type { CreditStore, KeyStore } from '../stores/types.ts';
import { dataTable, html, type Html } from './html.ts';

/** A credit account outside the console's organizations. */
export interface CreditAccountRow {
  readonly id: string;
  readonly credits: number;
  /** Keys spending from it, and how many of them are still usable. */
  readonly keys: number;
  readonly activeKeys: number;
}

/** Every account some key spends from that is not one of `organizationIds`, by id. */
export async function otherCreditAccounts(
  keys: Pick<KeyStore, 'list'>,
  credits: Pick<CreditStore, 'balance'>,
  organizationIds: ReadonlySet<string>,
  now = Date.now(),
): Promise<CreditAccountRow[]> {
  const byAccount = new Map<string, { keys: number; activeKeys: number }>();
  for (const record of await keys.list()) {
    if (organizationIds.has(record.accountId)) continue;
    const entry = byAccount.get(record.accountId) ?? { keys: 0, activeKeys: 0 };
    entry.keys++;
    if (record.revokedAt === null && (record.expiresAt === null || record.expiresAt > now))
      entry.activeKeys++;
    byAccount.set(record.accountId, entry);
  }
  const rows = await Promise.all(
    [...byAccount].map(async ([id, counts]) => ({ id, credits: await credits.balance(id), ...counts })),
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The section of the operator page: each account with its credits and a grant form. */
export function creditAccountsSection(
  rows: readonly CreditAccountRow[],
  grantAction: (accountId: string) => string,
  csrfField: Html,
): Html {
  return html`<section aria-labelledby="accounts-heading">
    <h2 id="accounts-heading">Other credit accounts</h2>
    <p class="hint">
      Accounts of keys made outside the console: the first start's and those of
      <code>citewise keys create</code>.
    </p>
    ${dataTable(
      ['Account', 'Keys (active)', 'Credits', 'Grant credits'],
      rows.map(
        (row) =>
          html`<tr>
            <td><code>${row.id}</code></td>
            <td>${row.keys} (${row.activeKeys})</td>
            <td data-testid="account-credits-${row.id}">${row.credits.toLocaleString('en-US')}</td>
            <td>${grantForm(grantAction(row.id), row.id, row.id, csrfField)}</td>
          </tr>`,
      ),
      'No other accounts.',
    )}
  </section>`;
}

/** The operator's form granting credits to one account (`name` is how the button's label names it). */
export function grantForm(action: string, accountId: string, name: string, csrfField: Html): Html {
  return html`<form method="post" action="${action}" class="inline">
    ${csrfField}<label for="grant-${accountId}">Credits</label>
    <input id="grant-${accountId}" name="credits" type="number" min="1" step="1" required class="short" />
    <button type="submit" class="secondary" aria-label="Grant credits to ${name}">Grant</button>
  </form>`;
}
