/** The API keys page: the balance, a new key shown once, the form to create one, and the list. */
import { dataTable, html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import type { KeyBudget, KeyRecord } from '../../stores/types.ts';
import { describeBudget, normalizeKeyBudget } from '../../stores/budgets.ts';
import { revokeQuestion } from '../revoke.ts';
import { balanceNote, copyOnce, csrfField, errorNote, formatTime, orgPage } from './layout.ts';

/** The expiries a new key may get, in days (the form's choices). */
export const KEY_EXPIRY_DAYS = ['7', '30', '90', '365'] as const;

/** The form's error for a budget that is not a whole number of credits with a period from the list. */
export const BUDGET_FORM_ERROR = 'Give the budget as a whole number of credits, with a period from the list.';

/**
 * The budget of a create or change form (`budget` credits, `budget_period` day/month/total): `null` when
 * the credits field is empty (no budget), `'invalid'` when it is not a whole number or the period unknown.
 */
export function budgetOfForm(form: URLSearchParams): KeyBudget | null | 'invalid' {
  const credits = (form.get('budget') ?? '').trim();
  if (credits === '') return null;
  if (!/^\d{1,15}$/.test(credits)) return 'invalid';
  try {
    return normalizeKeyBudget({ credits: Number(credits), period: form.get('budget_period') ?? 'day' });
  } catch {
    return 'invalid';
  }
}

/** The budget fields of a form: credits and period, prefilled with `budget`. */
function budgetFields(idPrefix: string, budget: KeyBudget | null | undefined): Html {
  const period = budget?.period ?? 'day';
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${period === value ? 'selected' : ''}>${label}</option>`;
  return html`<div class="field">
      <label for="${idPrefix}-budget">Budget (credits)</label>
      <input
        id="${idPrefix}-budget"
        name="budget"
        inputmode="numeric"
        pattern="[0-9]*"
        maxlength="15"
        placeholder="none"
        value="${budget ? String(budget.credits) : ''}"
      />
    </div>
    <div class="field">
      <label for="${idPrefix}-budget-period">Per</label>
      <select id="${idPrefix}-budget-period" name="budget_period">
        ${option('day', 'Day (UTC)')} ${option('month', 'Month (UTC)')} ${option('total', 'In all')}
      </select>
    </div>`;
}

/** One key as listed. */
export interface KeyRow {
  readonly record: KeyRecord;
  readonly status: 'active' | 'revoked' | 'expired';
  /** The creator's email, `former member`, or `CLI` (made outside the console). */
  readonly createdBy: string;
  readonly lastUsedAt: number | undefined;
  /** Whether the viewer may revoke it. */
  readonly mayRevoke: boolean;
}

/** What the keys page shows. */
export interface KeysPage {
  readonly available: number;
  /** Newest first. */
  readonly rows: readonly KeyRow[];
  /** A key just created, shown once. */
  readonly created?: { readonly key: string } | undefined;
  readonly error?: string | undefined;
  /** What just happened (a key revoked). */
  readonly notice?: string | undefined;
}

export function keysView(paths: ConsolePaths, org: OrgContext, view: KeysPage): Html {
  const { link } = paths;
  const rows = view.rows.map(
    ({ record, status, createdBy, lastUsedAt, mayRevoke }) =>
      html`<tr>
        <td>${record.name ?? '—'}</td>
        <td><code>${record.prefix}…</code></td>
        <td>${createdBy}</td>
        <td>${formatTime(record.createdAt)}</td>
        <td>${lastUsedAt === undefined ? 'never' : formatTime(lastUsedAt)}</td>
        <td>${record.expiresAt ? formatTime(record.expiresAt) : 'never'}</td>
        <td data-testid="key-budget">
          ${record.budget ? describeBudget(record.budget) : 'none'}
          ${
            mayRevoke && status === 'active'
              ? html`<a
                  href="${link(`/keys/${record.id}/budget`)}"
                  aria-label="Change the budget of ${record.name ?? record.prefix}"
                  >Change</a
                >`
              : ''
          }
        </td>
        <td><span class="status ${status}">${status}</span></td>
        <td>
          ${
            mayRevoke
              ? html`<form
                  method="post"
                  action="${link(`/keys/${record.id}/revoke`)}"
                  class="inline"
                  data-confirm="${revokeQuestion(record)}"
                >
                  ${csrfField(org)}
                  <button type="submit" class="danger" aria-label="Revoke ${record.name ?? record.prefix}">
                    Revoke
                  </button>
                </form>`
              : ''
          }
        </td>
      </tr>`,
  );
  const shown = view.created
    ? copyOnce(
        'new-api-key',
        html`<strong>Your new API key.</strong> Copy it now: it is shown only once.`,
        view.created.key,
      )
    : '';
  return orgPage(
    paths,
    org,
    'API keys',
    html`<h1>API keys</h1>
      ${balanceNote(view.available)} ${shown} ${errorNote(view.error)}
      ${view.notice ? html`<p class="notice" role="status" data-testid="key-notice">${view.notice}</p>` : ''}
      <section class="card" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        <form method="post" action="${link('/keys')}" class="row">
          ${csrfField(org)}
          <div class="field">
            <label for="key-name">Name</label>
            <input id="key-name" name="name" required maxlength="100" placeholder="e.g. support bot" />
          </div>
          <div class="field">
            <label for="key-expiry">Expires</label>
            <select id="key-expiry" name="expires">
              <option value="">Never</option>
              <option value="7">In 7 days</option>
              <option value="30">In 30 days</option>
              <option value="90">In 90 days</option>
              <option value="365">In a year</option>
            </select>
          </div>
          ${budgetFields('key', null)}
          <button type="submit">Create key</button>
        </form>
      </section>
      <section aria-labelledby="key-list">
        <h2 id="key-list">Keys of ${org.organization.name}</h2>
        ${dataTable(
          [
            'Name',
            'Key',
            'Created by',
            'Created',
            'Last used',
            'Expires',
            'Budget',
            'Status',
            { hidden: 'Actions' },
          ],
          rows,
          'No keys yet.',
        )}
      </section>`,
  );
}

/** The page that sets, changes or removes one key's budget. */
export function budgetView(paths: ConsolePaths, org: OrgContext, record: KeyRecord, error?: string): Html {
  const name = record.name ?? record.prefix;
  return orgPage(
    paths,
    org,
    `Budget of ${name}`,
    html`<h1>Budget of ${name}</h1>
      ${errorNote(error)}
      <p>
        A key with a budget spends at most that many credits a UTC day, a UTC month or in all, on top of the
        organization's credits; a search past it is refused (433) and costs nothing. Leave the credits empty
        for no budget. Now: <strong>${record.budget ? describeBudget(record.budget) : 'no budget'}</strong>.
      </p>
      <form method="post" action="${paths.link(`/keys/${record.id}/budget`)}" class="row">
        ${csrfField(org)} ${budgetFields('budget', record.budget)}
        <button type="submit">Save budget</button>
      </form>
      <p><a href="${paths.link('/keys')}">Back to API keys</a></p>`,
  );
}
