/** The operator's page: the maintenance switch, and every organization with its grant and suspend forms. */
import { dataTable, html, type Html } from '../html.ts';
import type { ConsolePaths } from '../runtime.ts';
import type { OrganizationRecord, UserRecord } from '../../stores/account-types.ts';
import { creditAccountsSection, grantForm, type CreditAccountRow } from '../credit-accounts.ts';
import { resetLinkSection } from '../password-reset.ts';
import { page } from './layout.ts';

/** An organization as the operator sees it. */
export interface OperatorRow {
  readonly organization: OrganizationRecord;
  readonly credits: number;
  readonly members: number;
}

export function operatorView(
  paths: ConsolePaths,
  user: UserRecord,
  csrf: string,
  maintenance: boolean,
  rows: readonly OperatorRow[],
  more: { others: readonly CreditAccountRow[]; reset?: { email: string; url: string } | undefined },
): Html {
  const { link } = paths;
  const field = html`<input type="hidden" name="_csrf" value="${csrf}" />`;
  return page(paths, {
    title: 'Operator',
    user,
    csrf,
    body: html`<h1>Operator</h1>
      <section class="card" aria-labelledby="maintenance-heading">
        <h2 id="maintenance-heading">Maintenance</h2>
        <p>
          Maintenance is <strong data-testid="maintenance">${maintenance ? 'on' : 'off'}</strong>:
          ${maintenance ? 'every /v1 request answers 503.' : '/v1 answers normally.'}
        </p>
        <form method="post" action="${link('/operator/maintenance')}">
          ${field}<input type="hidden" name="maintenance" value="${maintenance ? 'off' : 'on'}" />
          <button type="submit" class="${maintenance ? '' : 'danger'}">
            ${maintenance ? 'End maintenance' : 'Start maintenance'}
          </button>
        </form>
      </section>
      <section aria-labelledby="orgs-heading">
        <h2 id="orgs-heading">Organizations</h2>
        ${dataTable(
          ['Name', 'Id', 'Members', 'Credits', 'Status', 'Grant credits', { hidden: 'Suspend' }],
          rows.map(
            ({ organization: o, credits: available, members }) =>
              html`<tr>
                <td>${o.name}</td>
                <td><code>${o.id}</code></td>
                <td>${members}</td>
                <td>${available.toLocaleString('en-US')}</td>
                <td>
                  <span class="status ${o.suspendedAt ? 'revoked' : 'active'}"
                    >${o.suspendedAt ? 'suspended' : 'active'}</span
                  >
                </td>
                <td>${grantForm(link(`/operator/${o.id}/grant`), o.id, o.name, field)}</td>
                <td>
                  <form
                    method="post"
                    action="${link(`/operator/${o.id}/${o.suspendedAt ? 'reactivate' : 'suspend'}`)}"
                    class="inline"
                  >
                    ${field}<button
                      type="submit"
                      class="${o.suspendedAt ? 'secondary' : 'danger'}"
                      aria-label="${o.suspendedAt ? 'Reactivate' : 'Suspend'} ${o.name}"
                    >
                      ${o.suspendedAt ? 'Reactivate' : 'Suspend'}
                    </button>
                  </form>
                </td>
              </tr>`,
          ),
        )}
      </section>
      ${creditAccountsSection(more.others, (id) => link(`/operator/${id}/grant`), field)}
      ${resetLinkSection(link('/operator/reset-link'), field, more.reset)}`,
  });
}
