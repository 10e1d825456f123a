/** The members page: an invitation link just made, the invite form with pending invitations, the list. */
import { dataTable, html, type Html } from '../html.ts';
import type { ConsolePaths, OrgContext } from '../runtime.ts';
import type { InvitationRecord, MemberView } from '../../stores/account-types.ts';
import { copyOnce, csrfField, errorNote, formatTime, orgPage } from './layout.ts';

/** What the members page shows. */
export interface MembersPage {
  readonly members: readonly (MemberView & { readonly removable: boolean })[];
  /** Whether the viewer invites and removes members (owners and admins). */
  readonly manage: boolean;
  readonly invitations: readonly InvitationRecord[];
  /** An invitation link just made, shown once. */
  readonly inviteLink?: string | undefined;
  readonly error?: string | undefined;
}

export function membersView(paths: ConsolePaths, org: OrgContext, view: MembersPage): Html {
  const { link } = paths;
  const rows = view.members.map(
    (m) =>
      html`<tr>
        <td>${m.email}${m.userId === org.user.id ? ' (you)' : ''}</td>
        <td>${m.role}</td>
        <td>${formatTime(m.createdAt)}</td>
        <td>
          ${
            m.removable
              ? html`<form method="post" action="${link(`/members/${m.userId}/remove`)}" class="inline">
                  ${csrfField(org)}
                  <button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button>
                </form>`
              : ''
          }
        </td>
      </tr>`,
  );
  const shown = view.inviteLink
    ? copyOnce(
        'invite-link',
        html`<strong>Invitation link</strong> (works once, for 7 days). Send it to your colleague:`,
        view.inviteLink,
      )
    : '';
  const inviteForm = view.manage
    ? html`<section class="card" aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite a member</h2>
        <p class="hint">No mail is sent: you get a link to pass on.</p>
        <form method="post" action="${link('/members')}" class="row">
          ${csrfField(org)}
          <div class="field">
            <label for="invite-role">Role</label>
            <select id="invite-role" name="role">
              <option value="member">Member: creates and revokes own keys, sees usage</option>
              <option value="admin">Admin: also manages members and all keys</option>
              ${org.membership.role === 'owner' ? html`<option value="owner">Owner: everything</option>` : ''}
            </select>
          </div>
          <button type="submit">Invite</button>
        </form>
        ${view.invitations.length ? pendingInvitations(paths, org, view.invitations, view.members) : ''}
      </section>`
    : html`<p class="hint">Only owners and admins invite and remove members.</p>`;
  return orgPage(
    paths,
    org,
    'Members',
    html`<h1>Members</h1>
      ${shown} ${errorNote(view.error)} ${inviteForm}
      <section aria-labelledby="member-list">
        <h2 id="member-list">Members of ${org.organization.name}</h2>
        ${dataTable(['Email', 'Role', 'Joined', { hidden: 'Actions' }], rows)}
        <p class="hint">Removing a member also revokes the keys they created.</p>
      </section>`,
  );
}

function pendingInvitations(
  paths: ConsolePaths,
  org: OrgContext,
  invitations: readonly InvitationRecord[],
  members: readonly MemberView[],
): Html {
  const creator = (i: InvitationRecord) =>
    members.find((m) => m.userId === i.createdBy)?.email ?? 'a former member';
  return html`<h3>Pending invitations</h3>
    <ul class="plain">
      ${invitations.map(
        (i) =>
          html`<li>
            <span>${i.role}, created by ${creator(i)}, expires ${formatTime(i.expiresAt)}</span>
            <form method="post" action="${paths.link(`/invitations/${i.id}/delete`)}" class="inline">
              ${csrfField(org)}
              <button
                type="submit"
                class="secondary"
                aria-label="Cancel invitation expiring ${formatTime(i.expiresAt)}"
              >
                Cancel
              </button>
            </form>
          </li>`,
      )}
    </ul>`;
}
