/** The Audit page (filters, the entries, a CSV link) and the audit CSV. */
import { dataTable, html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import type { UserRecord } from '../../stores/account-types.ts';
import { AUDIT_ACTIONS, type AuditEntry } from '../../stores/audit.ts';
import { formatTime, orgPage, page } from './layout.ts';
import { csvCell } from './usage.ts';

/** The filters of the page, as given in its query string (dates as `YYYY-MM-DD`, UTC). */
export interface AuditFilters {
  readonly action?: string;
  readonly actor?: string;
  readonly since?: string;
  readonly until?: string;
  /** The operator's organization filter: an id, or absent for every organization. */
  readonly organization?: string;
}

/** What the page shows. */
export interface AuditPage {
  readonly filters: AuditFilters;
  readonly entries: readonly AuditEntry[];
  /** Whether more entries match than are shown. */
  readonly more: boolean;
  /** The query string of the CSV link (the same filters). */
  readonly query: string;
  /** The operator's view: every organization, with an organization column and filter. */
  readonly operator: boolean;
  /** Organization id → name, for the operator's column and filter. */
  readonly organizations: ReadonlyMap<string, string>;
  readonly error?: string | undefined;
}

export function auditView(
  paths: ConsolePaths,
  viewer: { org: OrgContext | null; user: UserRecord; csrf: string },
  view: AuditPage,
): Html {
  const { link } = paths;
  const { filters, operator } = view;
  const rows = view.entries.map(
    (e) =>
      html`<tr>
        <td><time datetime="${new Date(e.at).toISOString()}">${formatTime(e.at)}</time></td>
        <td>${e.actor}</td>
        <td><code>${e.action}</code></td>
        <td>${e.target ?? ''}</td>
        <td>${e.detail ?? ''}</td>
        ${operator ? html`<td>${e.organizationId ? (view.organizations.get(e.organizationId) ?? e.organizationId) : '—'}</td>` : ''}
        <td>${e.ip ?? ''}</td>
      </tr>`,
  );
  const option = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}" ${selected === value ? 'selected' : ''}>${label}</option>`;
  const columns = [
    'Time (UTC)',
    'Actor',
    'Action',
    'Target',
    'Detail',
    ...(operator ? ['Organization'] : []),
    'IP',
  ];
  const body = html`<h1>Audit log</h1>
    <p>
      Who did what: sign-ins, keys, members, credits, budgets and the operator's actions
      ${operator ? 'in every organization' : html`in <strong>${viewer.org?.organization.name ?? ''}</strong>`},
      newest first.
    </p>
    ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
    <form method="get" action="${link('/audit')}" class="row" aria-label="Filter the audit log">
      <div class="field">
        <label for="audit-action">Action</label>
        <select id="audit-action" name="action">
          ${option('', 'Any', filters.action ?? '')} ${AUDIT_ACTIONS.map((a) => option(a, a, filters.action))}
        </select>
      </div>
      <div class="field">
        <label for="audit-actor">Actor</label>
        <input
          id="audit-actor"
          name="actor"
          value="${filters.actor ?? ''}"
          placeholder="email, cli or operator"
        />
      </div>
      <div class="field">
        <label for="audit-since">From</label>
        <input id="audit-since" name="since" type="date" value="${filters.since ?? ''}" />
      </div>
      <div class="field">
        <label for="audit-until">To</label>
        <input id="audit-until" name="until" type="date" value="${filters.until ?? ''}" />
      </div>
      ${
        operator
          ? html`<div class="field">
              <label for="audit-organization">Organization</label>
              <select id="audit-organization" name="organization">
                ${option('', 'All', filters.organization ?? '')}
                ${[...view.organizations].map(([id, name]) => option(id, name, filters.organization))}
              </select>
            </div>`
          : ''
      }
      <button type="submit">Filter</button>
    </form>
    <p><a href="${link(`/audit.csv${view.query ? `?${view.query}` : ''}`)}" download>Download CSV</a></p>
    <section aria-labelledby="audit-entries">
      <h2 id="audit-entries">Entries</h2>
      ${dataTable(columns, rows, 'No entries match.')}
      ${view.more ? html`<p>Only the newest ${view.entries.length} are shown; the CSV has more.</p>` : ''}
    </section>`;
  return viewer.org
    ? orgPage(paths, viewer.org, 'Audit log', body)
    : page(paths, { title: 'Audit log', user: viewer.user, body, csrf: viewer.csrf });
}

/** The entries as CSV (formula-looking cells defused). */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const lines = [
    ['time', 'actor', 'action', 'organization', 'target', 'detail', 'ip'],
    ...entries.map((e) => [
      new Date(e.at).toISOString(),
      e.actor,
      e.action,
      e.organizationId ?? '',
      e.target ?? '',
      e.detail ?? '',
      e.ip ?? '',
    ]),
  ];
  return lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
