/**
 * Who is asking: a request's session, origin and CSRF checks and its form ({@link contextOf}), and the
 * pages that start and end sessions: sign-up, sign-in, sign-out, the account page (password change) and
 * the choice of organization. Sign-in and sign-up attempts are throttled (sign-in-throttle.ts).
 */
import { auditFrom, auditUserEvent } from './audit.ts';
import type { OrganizationRecord, UserRecord } from '../stores/account-types.ts';
import {
  dummyPasswordHash,
  hashPassword,
  hasPassword,
  passwordProblem,
  verifyPassword,
} from './passwords.ts';
import {
  ConsoleError,
  htmlReply,
  organizationCookie,
  redirect,
  type ConsoleRequest,
  type ConsoleRuntime,
  type Context,
  type OrgContext,
  type Reply,
} from './runtime.ts';
import {
  cookie,
  csrfTokenMatches,
  isSameOrigin,
  ORGANIZATION_COOKIE,
  parseCookies,
  SESSION_COOKIE,
} from './security.ts';
import { accountView, noOrganizationView, signInView, signUpView } from './views/auth.ts';

/** Largest form body a console page accepts. */
const MAX_FORM_BYTES = 64 * 1024;
/**
 * Largest form of the Documents page: a document of the API's 1 MiB limit, as base64 (a PDF) and
 * URL-encoded, with room to spare; the documents API still checks the document's own size.
 */
const MAX_DOCUMENT_FORM_BYTES = 2 * 1024 * 1024;

/** Session, origin and CSRF checks, and the parsed form of a POST. */
export async function contextOf(
  rt: ConsoleRuntime,
  request: ConsoleRequest,
  method: string,
): Promise<Context> {
  const forwarded = (name: string) =>
    rt.trustProxy ? request.header(name)?.split(',')[0]?.trim() : undefined;
  const secure = forwarded('x-forwarded-proto') === 'https' || request.encrypted === true;
  const host = forwarded('x-forwarded-host') ?? request.header('host') ?? 'localhost';
  const origin = `${secure ? 'https' : 'http'}://${host}`;
  // The proxy appends the address it saw: the last entry is the one a client cannot forge.
  const forwardedFor = rt.trustProxy
    ? request.header('x-forwarded-for')?.split(',').at(-1)?.trim()
    : undefined;
  const clientAddress = forwardedFor || request.remoteAddress || 'unknown';
  const sessionToken = parseCookies(request.header('cookie')).get(SESSION_COOKIE) ?? null;
  const session = sessionToken ? await rt.accounts.findSession(sessionToken) : null;
  const user = session ? await rt.accounts.getUser(session.userId) : null;
  let form = new URLSearchParams();
  if (method === 'POST') {
    if (!isSameOrigin((name) => request.header(name), origin)) {
      throw new ConsoleError(403, 'This form was sent from another site; it was refused.');
    }
    const type = request.header('content-type') ?? '';
    const body = Buffer.from(
      await request.readBody(formLimit(request.path)).catch(() => {
        throw new ConsoleError(413, 'This form is too large.');
      }),
    ).toString('utf8');
    if (type.startsWith('application/json')) form = jsonForm(body);
    else if (type.startsWith('application/x-www-form-urlencoded')) form = new URLSearchParams(body);
    if (user && sessionToken) {
      const submitted = form.get('_csrf') ?? request.header('x-csrf-token');
      if (!csrfTokenMatches(sessionToken, submitted ?? undefined)) {
        throw new ConsoleError(403, 'This form has expired. Go back, reload the page and try again.');
      }
    }
  }
  return { request, form, sessionToken: user ? sessionToken : null, user, secure, origin, clientAddress };
}

function formLimit(path: string): number {
  return path.replace(/\/+$/, '') === '/documents' ? MAX_DOCUMENT_FORM_BYTES : MAX_FORM_BYTES;
}

/** A JSON body as form fields (the playground's script sends JSON). */
function jsonForm(body: string): URLSearchParams {
  const form = new URLSearchParams();
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      for (const [name, value] of Object.entries(parsed))
        if (typeof value === 'string') form.set(name, value);
    }
  } catch {
    throw new ConsoleError(400, 'The request body is not valid JSON.');
  }
  return form;
}

/** The signed-in user's organization (the one the cookie picked, else the first); `null` when none. */
export async function organizationContext(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
): Promise<OrgContext | null> {
  const memberships = await rt.accounts.listUserOrganizations(user.id);
  if (memberships.length === 0) return null;
  const chosen = parseCookies(context.request.header('cookie')).get(ORGANIZATION_COOKIE);
  const membership = memberships.find((m) => m.organizationId === chosen) ?? memberships[0]!;
  const organization = await rt.accounts.getOrganization(membership.organizationId);
  if (!organization) return null;
  return {
    ...context,
    user,
    sessionToken: context.sessionToken!,
    organization,
    membership,
    organizations: memberships.map((m) => ({ id: m.organizationId, name: m.organizationName })),
  };
}

function sessionCookie(rt: ConsoleRuntime, context: Context, token: string | null): string {
  return cookie(SESSION_COOKIE, token ?? '', {
    path: rt.basePath || '/',
    maxAgeSeconds: token ? rt.sessionTtlMs / 1000 : 0,
    secure: context.secure,
  });
}

/** Starts a session for `user` and goes to `to`. */
export async function startSession(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
  to: string,
): Promise<Reply> {
  const { token } = await rt.accounts.createSession({
    userId: user.id,
    expiresAt: Date.now() + rt.sessionTtlMs,
  });
  return redirect(rt, to, { 'set-cookie': sessionCookie(rt, context, token) });
}

/** Throttles sign-in and sign-up attempts (see sign-in-throttle.ts); 429 with Retry-After when refused. */
export async function throttle(rt: ConsoleRuntime, context: Context, email: string | null): Promise<void> {
  const refused = await rt.signInThrottle.admit(context.clientAddress, email);
  if (refused) {
    const minutes = Math.max(1, Math.ceil(refused.retryAfterMs / 60_000));
    rt.logger?.warn({ event: 'console.throttled', email: email !== null }, 'console: too many attempts');
    throw new ConsoleError(
      429,
      `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      { 'retry-after': String(Math.ceil(refused.retryAfterMs / 1000)) },
    );
  }
}

/** Checks email and password; the same answer (and the same work) for an unknown email and a wrong password. */
export async function authenticate(rt: ConsoleRuntime, context: Context): Promise<UserRecord | null> {
  const email = (context.form.get('email') ?? '').trim().toLowerCase();
  const password = context.form.get('password') ?? '';
  await throttle(rt, context, email || null);
  if (!email || !password || password.length > 200 || email.length > 320) return null;
  const user = await rt.accounts.findUserByEmail(email);
  // A user without a password (made by SSO) costs the same work as an unknown email.
  const stored = user && hasPassword(user.passwordHash) ? user.passwordHash : await dummyPasswordHash();
  const matches = (await verifyPassword(password, stored)) && user !== null && hasPassword(user.passwordHash);
  if (!user || !matches) {
    await rt.signInThrottle.failed(context.clientAddress, email);
    rt.logger?.info({ event: 'console.signin_failed' }, 'console: sign-in failed');
    await auditUserEvent(rt, context, user?.id ?? null, {
      action: 'sign_in_failed',
      actor: email,
      target: email,
      detail: 'password',
    });
    return null;
  }
  if (rt.sso && !(await rt.sso.passwordSignInAllowed(rt, user))) {
    rt.logger?.info({ event: 'console.signin_sso_only', userId: user.id }, 'console: password sign-in off');
    await auditUserEvent(rt, context, user.id, {
      action: 'sign_in_failed',
      actor: email,
      target: email,
      detail: 'password sign-in is off: SSO only',
    });
    throw new PasswordSignInOffError(rt.sso.options.organization);
  }
  return user;
}

/** A right password of a member of the SSO organization while password sign-in is off for it. */
export class PasswordSignInOffError extends ConsoleError {
  constructor(organization: string) {
    super(403, `Members of ${organization} sign in with SSO: use "Sign in with SSO".`);
  }
}

/** Validates email and password of a sign-up form; returns the user or an error message. */
export async function createUserFromForm(rt: ConsoleRuntime, context: Context): Promise<UserRecord | string> {
  const email = (context.form.get('email') ?? '').trim().toLowerCase();
  const password = context.form.get('password') ?? '';
  await throttle(rt, context, null);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) return 'Enter a valid email address.';
  const problem = passwordProblem(password);
  if (problem) return problem;
  const user = await rt.accounts.createUser({ email, passwordHash: await hashPassword(password) });
  return user ?? 'An account with this email already exists. Sign in instead.';
}

/** A new user's own organization, owned by them, with the free credits (a sign-up grant in the ledger). */
export async function createOrganizationFor(
  rt: ConsoleRuntime,
  user: UserRecord,
): Promise<OrganizationRecord> {
  const organization = await rt.accounts.createOrganization({
    name: `${user.email.split('@')[0]}'s organization`,
  });
  await rt.accounts.putMembership({ organizationId: organization.id, userId: user.id, role: 'owner' });
  await rt.credits.openAccount(organization.id, rt.freeCredits, 'sign-up');
  return organization;
}

function signupRefusal(rt: ConsoleRuntime, email: string): string | null {
  if (rt.signup === 'invite-only') return 'Sign-up needs an invitation link on this instance.';
  const domain = email.split('@')[1] ?? '';
  if (rt.signupDomains.length && !rt.signupDomains.includes(domain)) {
    return `Sign-up is limited to addresses at ${rt.signupDomains.join(', ')}.`;
  }
  return null;
}

/** `GET /sign-up`: the form (signed-in users go to their keys). */
export function signUpPage(rt: ConsoleRuntime, context: Context): Reply {
  if (context.user) return redirect(rt, '/keys');
  return htmlReply(200, signUpView(rt, rt));
}

/** `POST /sign-up`: a user, their organization with the free credits, and a session. */
export async function signUp(rt: ConsoleRuntime, context: Context): Promise<Reply> {
  const email = (context.form.get('email') ?? '').trim().toLowerCase();
  // A signed-in user goes to their keys, as from the form's page.
  const refuse = (status: number, error: string) =>
    context.user ? redirect(rt, '/keys') : htmlReply(status, signUpView(rt, rt, error));
  const refusal = signupRefusal(rt, email);
  if (refusal) return refuse(403, refusal);
  const user = await createUserFromForm(rt, context);
  if (typeof user === 'string') return refuse(400, user);
  const organization = await createOrganizationFor(rt, user);
  rt.logger?.info(
    { event: 'console.signup', userId: user.id, organizationId: organization.id },
    'console: sign-up',
  );
  await auditFrom(
    rt,
    { user, clientAddress: context.clientAddress },
    {
      action: 'member_joined',
      organizationId: organization.id,
      target: user.email,
      detail: `signed up: owner, ${rt.freeCredits} credits`,
    },
  );
  return startSession(rt, context, user, '/keys');
}

/** `GET /sign-in`: the form (signed-in users go to their keys). */
export function signInPage(rt: ConsoleRuntime, context: Context): Reply {
  if (context.user) return redirect(rt, '/keys');
  return htmlReply(200, signInView(rt));
}

/** `POST /sign-in`. */
export async function signIn(rt: ConsoleRuntime, context: Context): Promise<Reply> {
  let user: UserRecord | null;
  try {
    user = await authenticate(rt, context);
  } catch (error) {
    if (error instanceof PasswordSignInOffError) return htmlReply(403, signInView(rt, error.message));
    throw error;
  }
  if (!user) return htmlReply(401, signInView(rt, 'Email or password is incorrect.'));
  await auditUserEvent(rt, { user, clientAddress: context.clientAddress }, user.id, {
    action: 'sign_in',
    target: user.email,
    detail: 'password',
  });
  return startSession(rt, context, user, '/keys');
}

/**
 * `POST /sign-out`: ends the console session (an SSO user's session at the provider is the provider's:
 * "Sign in with SSO" may then sign them in again without a password prompt).
 */
export async function signOut(rt: ConsoleRuntime, context: Context): Promise<Reply> {
  if (context.sessionToken) await rt.accounts.deleteSession(context.sessionToken);
  if (context.user) {
    await auditUserEvent(rt, context, context.user.id, { action: 'sign_out', target: context.user.email });
  }
  return redirect(rt, '/sign-in', { 'set-cookie': sessionCookie(rt, context, null) });
}

/** `GET /account`. */
export function accountPage(rt: ConsoleRuntime, context: Context, user: UserRecord): Reply {
  return htmlReply(200, accountView(rt, context, user));
}

/** `POST /account`: a new password ends every session, and this browser gets a new one. */
export async function changePassword(rt: ConsoleRuntime, context: Context, user: UserRecord): Promise<Reply> {
  const current = context.form.get('current') ?? '';
  const password = context.form.get('password') ?? '';
  await throttle(rt, context, user.email);
  if (!(await verifyPassword(current, user.passwordHash))) {
    await rt.signInThrottle.failed(context.clientAddress, user.email);
    return htmlReply(400, accountView(rt, context, user, { error: 'The current password is incorrect.' }));
  }
  const problem = passwordProblem(password);
  if (problem) return htmlReply(400, accountView(rt, context, user, { error: problem }));
  await rt.accounts.setPasswordHash(user.id, await hashPassword(password));
  // Every session ends (a thief's included); this browser gets a new one.
  await rt.accounts.deleteUserSessions(user.id);
  rt.logger?.info({ event: 'console.password_changed', userId: user.id }, 'console: password changed');
  await auditUserEvent(rt, context, user.id, { action: 'password_changed', target: user.email });
  return startSession(rt, context, user, '/account');
}

/** `POST /organization`: shows another organization of the user's. */
export async function switchOrganization(
  rt: ConsoleRuntime,
  context: Context,
  user: UserRecord,
): Promise<Reply> {
  const wanted = context.form.get('organization') ?? '';
  const membership = wanted ? await rt.accounts.getMembership(wanted, user.id) : null;
  if (!membership) throw new ConsoleError(403, 'You are not a member of that organization.');
  return redirect(rt, '/keys', organizationCookie(rt, context, wanted));
}

/** The page of a signed-in user without an organization. */
export function noOrganizationPage(rt: ConsoleRuntime, context: Context, user: UserRecord): Reply {
  return htmlReply(200, noOrganizationView(rt, context, user));
}
