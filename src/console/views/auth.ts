/**
 * The pages of signing up, signing in and the account, and of the two links that bring someone in: an
 * invitation to an organization and the operator's one-time setup link.
 */
import { html, type Html } from '../html.ts';
import { newPasswordField } from '../password-reset.ts';
import { hasPassword } from '../passwords.ts';
import type { ConsolePaths, Context, SignupPolicy } from '../runtime.ts';
import { csrfToken } from '../security.ts';
import type { InvitationRecord, UserRecord } from '../../stores/account-types.ts';
import { credentialsForm, csrfField, errorNote, page, signUpOrSignIn } from './layout.ts';

/** The sign-up page: the form when sign-up is open, the domains it is limited to. */
export function signUpView(
  paths: ConsolePaths,
  policy: { signup: SignupPolicy; signupDomains: readonly string[]; freeCredits: number },
  error?: string,
): Html {
  const closed =
    policy.signup === 'invite-only'
      ? html`<p>This instance is invite-only: ask a member of your organization for an invitation link.</p>`
      : html``;
  const domains = policy.signupDomains.length
    ? html`<p class="hint">Sign-up is open to addresses at ${policy.signupDomains.join(', ')}.</p>`
    : html``;
  return page(paths, {
    title: 'Sign up',
    user: null,
    body: html`<section class="card narrow">
      <h1>Create your account</h1>
      <p>
        You get an organization with ${policy.freeCredits.toLocaleString('en-US')} free credits. No payment
        card.
      </p>
      ${closed}${domains}${errorNote(error)}
      ${policy.signup === 'open' ? credentialsForm(paths, '/sign-up', 'Sign up', 'signup') : ''}
      <p>Already have an account? <a href="${paths.link('/sign-in')}">Sign in</a></p>
    </section>`,
  });
}

/** The sign-in page: "Sign in with SSO" first when single sign-on is set up, then the password form. */
export function signInView(
  console: ConsolePaths & { signup: SignupPolicy; sso: { options: { organization: string } } | null },
  error?: string,
): Html {
  const sso = console.sso
    ? html`<p>
          <a class="button" href="${console.link('/sso/start')}">Sign in with SSO</a>
        </p>
        <p class="hint">For members of ${console.sso.options.organization}. Or with your email:</p>`
    : '';
  return page(console, {
    title: 'Sign in',
    user: null,
    body: html`<section class="card narrow">
      <h1>Sign in</h1>
      ${errorNote(error)} ${sso} ${credentialsForm(console, '/sign-in', 'Sign in', 'signin')}
      ${
        console.signup === 'open'
          ? html`<p>New here? <a href="${console.link('/sign-up')}">Sign up</a></p>`
          : ''
      }
    </section>`,
  });
}

/** The account page: who is signed in, and the password change form. */
export function accountView(
  paths: ConsolePaths,
  context: Context,
  user: UserRecord,
  message?: { error?: string; done?: string },
): Html {
  return page(paths, {
    title: 'Account',
    user,
    csrf: csrfToken(context.sessionToken!),
    body: html`<section class="card narrow">
      <h1>Account</h1>
      <p>Signed in as <strong>${user.email}</strong>${user.operator ? ' (instance operator)' : ''}.</p>
      ${hasPassword(user.passwordHash) ? passwordForm(paths, context, message) : noPasswordNote}
    </section>`,
  });
}

/** An SSO user's account: no password to change. */
const noPasswordNote = html`<p>You sign in with SSO: this account has no password of its own.</p>`;

function passwordForm(
  paths: ConsolePaths,
  context: Context,
  message?: { error?: string; done?: string },
): Html {
  return html`<h2>Change password</h2>
    <p class="hint">Changing it signs out every other browser.</p>
    ${errorNote(message?.error)}
    ${message?.done ? html`<p class="notice" role="status">${message.done}</p>` : ''}
    <form method="post" action="${paths.link('/account')}" class="stack">
      ${csrfField(context)}
      <label for="current-password">Current password</label>
      <input id="current-password" name="current" type="password" autocomplete="current-password" required />
      ${newPasswordField('new-password', 'New password')}
      <button type="submit">Change password</button>
    </form>`;
}

/** For a signed-in user who belongs to no organization. */
export function noOrganizationView(paths: ConsolePaths, context: Context, user: UserRecord): Html {
  return page(paths, {
    title: 'No organization',
    user,
    csrf: csrfToken(context.sessionToken!),
    body: html`<section class="card narrow">
      <h1>No organization</h1>
      <p>You are not a member of any organization. Ask an owner or admin for an invitation link.</p>
    </section>`,
  });
}

/** An invitation link opened: join (signed in), or sign up or sign in first. */
export function inviteView(
  paths: ConsolePaths,
  context: Context,
  token: string,
  invitation: InvitationRecord,
  organizationName: string | undefined,
  error?: string,
): Html {
  const action = `/invite/${token}`;
  const body = context.user
    ? html`<form method="post" action="${paths.link(action)}" class="stack">
        ${csrfField(context)}
        <p>You are signed in as <strong>${context.user.email}</strong>.</p>
        <button type="submit" name="intent" value="join">
          Join ${organizationName ?? 'the organization'}
        </button>
      </form>`
    : signUpOrSignIn(paths, action, 'invite', ['New to citewise', 'Already have an account']);
  return page(paths, {
    title: 'Invitation',
    user: context.user,
    ...(context.sessionToken ? { csrf: csrfToken(context.sessionToken) } : {}),
    body: html`<section class="card">
      <h1>Join ${organizationName ?? 'an organization'}</h1>
      <p>You were invited as <strong>${invitation.role}</strong>.</p>
      ${errorNote(error)} ${body}
    </section>`,
  });
}

/** The operator's setup link opened: become the operator (signed in), or sign up or sign in first. */
export function setupView(paths: ConsolePaths, context: Context, token: string, error?: string): Html {
  const action = `/setup/${token}`;
  return page(paths, {
    title: 'Operator setup',
    user: context.user,
    ...(context.sessionToken ? { csrf: csrfToken(context.sessionToken) } : {}),
    body: html`<section class="card">
      <h1>Become the operator of this instance</h1>
      <p>
        The operator lists organizations, grants credits, suspends organizations and switches maintenance on
        and off.
      </p>
      ${errorNote(error)}
      ${
        context.user
          ? html`<form method="post" action="${paths.link(action)}">
              ${csrfField(context)}<button type="submit">Become operator</button>
            </form>`
          : signUpOrSignIn(paths, action, 'setup', ['New account', 'Existing account'])
      }
    </section>`,
  });
}
