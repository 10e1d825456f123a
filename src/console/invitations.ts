/**
 * The links that bring someone in: an invitation to join an organization with a role (made on the members
 * page, works once), and the operator's one-time setup link (`citewise console operator-link`, or written
 * at the first start of `serve`). Both let a new user sign up, or an existing one sign in, on the way.
 */
import { auditFrom } from './audit.ts';
import { hashToken, newToken } from '../stores/account-common.ts';
import {
  ConsoleError,
  DAY,
  htmlReply,
  organizationCookie,
  redirect,
  type ConsoleRuntime,
  type Context,
  type Reply,
} from './runtime.ts';
import { honouredInvitation } from './invitation-rules.ts';
import { authenticate, createOrganizationFor, createUserFromForm, startSession } from './session.ts';
import { inviteView, setupView } from './views/auth.ts';

/** The instance setting holding the setup link's token hash and expiry. */
const SETUP_SETTING = 'operator_setup';

const INVITATION_GONE = 'This invitation link is not valid any more. Ask for a new one.';
const SETUP_GONE = 'This setup link is not valid any more.';

/** A sign-up or sign-in on the way that failed: the page again, with its status and message. */
interface Refused {
  readonly status: number;
  readonly error: string;
}

/** `GET /invite/<token>` (and the page again after a `refused` sign-up or sign-in). */
export async function invitePage(
  rt: ConsoleRuntime,
  context: Context,
  token: string,
  refused?: Refused,
): Promise<Reply> {
  const invitation = await honouredInvitation(rt.accounts, token);
  if (!invitation) throw new ConsoleError(404, INVITATION_GONE);
  const organization = await rt.accounts.getOrganization(invitation.organizationId);
  const view = inviteView(rt, context, token, invitation, organization?.name, refused?.error);
  return htmlReply(refused === undefined ? 200 : refused.status, view);
}

/** `POST /invite/<token>`: joins (signing up or in first when needed). */
export async function acceptInvite(rt: ConsoleRuntime, context: Context, token: string): Promise<Reply> {
  let user = context.user;
  const intent = context.form.get('intent');
  if (!(await honouredInvitation(rt.accounts, token))) throw new ConsoleError(404, INVITATION_GONE);
  if (!user) {
    const found =
      intent === 'sign-in' ? await authenticate(rt, context) : await createUserFromForm(rt, context);
    if (found === null)
      return invitePage(rt, context, token, { status: 401, error: 'Email or password is incorrect.' });
    if (typeof found === 'string') return invitePage(rt, context, token, { status: 400, error: found });
    user = found;
  }
  const membership = await rt.accounts.acceptInvitation(token, user.id);
  if (!membership) throw new ConsoleError(404, INVITATION_GONE);
  rt.logger?.info(
    { event: 'console.invitation_accepted', userId: user.id, organizationId: membership.organizationId },
    'console: invitation accepted',
  );
  await auditFrom(
    rt,
    { user, clientAddress: context.clientAddress },
    {
      action: 'member_joined',
      organizationId: membership.organizationId,
      target: user.email,
      detail: `invitation accepted: ${membership.role}`,
    },
  );
  if (!context.user) return startSession(rt, context, user, '/keys');
  // Show the organization just joined.
  return redirect(rt, '/keys', organizationCookie(rt, context, membership.organizationId));
}

/** Makes a one-time setup link (a day) that makes whoever opens it the operator; returns its path. */
export async function createSetupLink(rt: ConsoleRuntime): Promise<string> {
  const token = newToken();
  await rt.accounts.setSetting(SETUP_SETTING, `${hashToken(token)}:${Date.now() + DAY}`);
  return rt.link(`/setup/${token}`);
}

async function setupTokenValid(rt: ConsoleRuntime, token: string): Promise<boolean> {
  const stored = await rt.accounts.getSetting(SETUP_SETTING);
  if (!stored) return false;
  const [hash, expiresAt] = stored.split(':');
  return hash === hashToken(token) && Number(expiresAt) > Date.now();
}

/** `GET /setup/<token>` (and the page again after a `refused` sign-up or sign-in). */
export async function setupPage(
  rt: ConsoleRuntime,
  context: Context,
  token: string,
  refused?: Refused,
): Promise<Reply> {
  if (!(await setupTokenValid(rt, token))) throw new ConsoleError(404, SETUP_GONE);
  const view = setupView(rt, context, token, refused?.error);
  return htmlReply(refused === undefined ? 200 : refused.status, view);
}

/** `POST /setup/<token>`: the user (signed up or in on the way) becomes the operator; the link is used up. */
export async function acceptSetup(rt: ConsoleRuntime, context: Context, token: string): Promise<Reply> {
  if (!(await setupTokenValid(rt, token))) throw new ConsoleError(404, SETUP_GONE);
  let user = context.user;
  if (!user) {
    const found =
      context.form.get('intent') === 'sign-in'
        ? await authenticate(rt, context)
        : await createUserFromForm(rt, context);
    if (found === null)
      return setupPage(rt, context, token, { status: 401, error: 'Email or password is incorrect.' });
    if (typeof found === 'string') return setupPage(rt, context, token, { status: 400, error: found });
    user = found;
    if ((await rt.accounts.listUserOrganizations(user.id)).length === 0)
      await createOrganizationFor(rt, user);
  }
  await rt.accounts.setSetting(SETUP_SETTING, null);
  await rt.accounts.setOperator(user.id, true);
  rt.logger?.info({ event: 'console.operator_created', userId: user.id }, 'console: operator set up');
  await auditFrom(
    rt,
    { user, clientAddress: context.clientAddress },
    {
      action: 'operator_action',
      target: user.email,
      detail: 'became the operator (setup link)',
    },
  );
  return context.user ? redirect(rt, '/operator') : startSession(rt, context, user, '/operator');
}
