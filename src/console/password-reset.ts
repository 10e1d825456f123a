/**
 * Password resets without an email server: the operator makes a one-time link (on the operator page, or
 * with `citewise console reset-password <email>`) and hands it to the member, who opens it and chooses a
 * new password. The link works once, for 24 hours; using it ends every session of the account. Only the
 * hash of its token is kept (an instance-wide setting), so a copy of the database cannot use it. A link
 * also records a fingerprint of the password it was made against: once the password changes (by any reset
 * link, the account page or the CLI), every outstanding link of that user stops working.
 */
import { hashToken, looksLikeToken, newToken } from '../stores/account-common.ts';
import type { AccountStore, UserRecord } from '../stores/account-types.ts';
import { html, type Html } from './html.ts';
import { hashPassword, PASSWORD_MIN_LENGTH, passwordProblem } from './passwords.ts';

/** How long a reset link works. */
export const RESET_LINK_TTL_MS = 24 * 60 * 60 * 1000;

const SETTING_PREFIX = 'password_reset:';

/** The fingerprint of a password hash a reset link is bound to: another password, another fingerprint. */
function passwordFingerprint(user: Pick<UserRecord, 'passwordHash'>): string {
  return hashToken(`password-reset:${user.passwordHash}`);
}

/** Creates a one-time reset link for a user; returns its path (`/reset/<token>`). */
export async function createResetLink(
  accounts: Pick<AccountStore, 'setSetting'>,
  user: Pick<UserRecord, 'id' | 'passwordHash'>,
  now = Date.now(),
): Promise<string> {
  const token = newToken();
  await accounts.setSetting(
    `${SETTING_PREFIX}${hashToken(token)}`,
    JSON.stringify({
      userId: user.id,
      expiresAt: now + RESET_LINK_TTL_MS,
      password: passwordFingerprint(user),
    }),
  );
  return `/reset/${token}`;
}

/**
 * The user a valid, unused, unexpired reset token is for, whose password has not changed since the link
 * was made; `null` otherwise.
 */
export async function resetUser(
  accounts: Pick<AccountStore, 'getSetting' | 'getUser'>,
  token: string,
  now = Date.now(),
): Promise<UserRecord | null> {
  if (!looksLikeToken(token)) return null;
  const stored = await accounts.getSetting(`${SETTING_PREFIX}${hashToken(token)}`);
  if (!stored) return null;
  let parsed: { userId?: unknown; expiresAt?: unknown; password?: unknown };
  try {
    parsed = JSON.parse(stored) as typeof parsed;
  } catch {
    return null;
  }
  if (typeof parsed.userId !== 'string' || typeof parsed.expiresAt !== 'number' || parsed.expiresAt <= now)
    return null;
  const user = await accounts.getUser(parsed.userId);
  // A password set since the link was made (another link, the account page, the CLI) revokes it.
  return user && parsed.password === passwordFingerprint(user) ? user : null;
}

/**
 * Sets the new password of a reset token's user, uses the token up and ends every session of the account.
 * @returns the user, or the problem with the password, or `null` when the token is not valid.
 */
export async function resetPassword(
  accounts: Pick<
    AccountStore,
    'getSetting' | 'getUser' | 'setSetting' | 'setPasswordHash' | 'deleteUserSessions'
  >,
  token: string,
  password: string,
): Promise<UserRecord | { problem: string } | null> {
  const user = await resetUser(accounts, token);
  if (!user) return null;
  const problem = passwordProblem(password);
  if (problem) return { problem };
  await accounts.setSetting(`${SETTING_PREFIX}${hashToken(token)}`, null);
  await setPassword(accounts, user, password);
  return user;
}

/** Replaces a user's password and ends every session of the account (the operator's CLI reset). */
export async function setPassword(
  accounts: Pick<AccountStore, 'setPasswordHash' | 'deleteUserSessions'>,
  user: Pick<UserRecord, 'id'>,
  password: string,
): Promise<void> {
  await accounts.setPasswordHash(user.id, await hashPassword(password));
  await accounts.deleteUserSessions(user.id);
}

/** The operator page's form for a reset link, and the link just made (shown once). */
export function resetLinkSection(
  action: string,
  csrfField: Html,
  made: { email: string; url: string } | undefined,
): Html {
  return html`<section class="card" aria-labelledby="reset-heading">
    <h2 id="reset-heading">Password reset</h2>
    <p class="hint">
      A one-time link (24 hours) for a member who forgot their password: send it to them yourself; opening it
      lets them choose a new password, and signs out every browser of the account.
    </p>
    ${
      made
        ? html`<div class="new-key" role="status">
            <p>Reset link for <strong>${made.email}</strong>, shown only now:</p>
            <p class="copy-row">
              <output id="reset-link" data-testid="reset-link">${made.url}</output>
              <button type="button" class="secondary" data-copy="reset-link">Copy</button>
            </p>
          </div>`
        : ''
    }
    <form method="post" action="${action}" class="row">
      ${csrfField}
      <div class="field">
        <label for="reset-email">Member's email</label>
        <input id="reset-email" name="email" type="email" required maxlength="254" />
      </div>
      <button type="submit" class="secondary">Make reset link</button>
    </form>
  </section>`;
}

/** A labelled field for a new password (`name="password"`), as the account and reset pages ask for it. */
export function newPasswordField(id: string, label: string): Html {
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="password"
      type="password"
      autocomplete="new-password"
      required
      minlength="${PASSWORD_MIN_LENGTH}"
    />`;
}
