/**
 * Single sign-on in the console (OpenID Connect, see oidc.ts): `GET /sso/start` sends the browser to the
 * provider with fresh PKCE, state and nonce (kept in a short-lived HttpOnly cookie of this browser);
 * `GET /sso/callback` checks the answer against them and signs the user in.
 *
 * Who gets in: the provider must vouch for the email (`email_verified`, or Entra ID's `xms_edov`); an
 * unverified or missing email is refused, since the email is what a console account is. The first sign-in
 * creates the user (without a password) and makes them a member of the SSO organization (created, with
 * the free credits, if missing). With an admin group, every sign-in sets the role from the `groups` claim:
 * admin when it holds the group, member otherwise; an owner stays an owner (ownership is given in the
 * console, never by the provider). Without one, new members join as members and roles are managed in the
 * console.
 *
 * The audit log (audit.ts) records a finished SSO sign-in (`sign_in`, detail `sso as <role>`), a refused one
 * (`sign_in_failed`, detail `sso: <reason>`), a member joined and a role the groups claim changed; the
 * service log has them as `console.sso_signin` and `console.sso_failed`.
 */
import type { OrganizationRecord, Role, UserRecord } from '../stores/account-types.ts';
import {
  createOidcRelyingParty,
  SSO_DEFAULTS,
  SsoProviderUnavailableError,
  type FlowChecks,
  type OidcRelyingParty,
  type SsoIdentity,
  type SsoOptions,
} from './oidc.ts';
import { auditFrom } from './audit.ts';
import { NO_PASSWORD } from './passwords.ts';
import { ConsoleError, htmlReply, type ConsoleRuntime, type Context, type Reply } from './runtime.ts';
import { cookie, parseCookies } from './security.ts';
import { startSession } from './session.ts';
import { signInView } from './views/auth.ts';

/** The cookie holding a started sign-in's checks (state, nonce, PKCE verifier) until the callback. */
export const SSO_COOKIE = 'cw_sso';

/** SSO as the console's modules use it. */
export interface SsoRuntime {
  readonly options: SsoOptions;
  readonly relyingParty: OidcRelyingParty;
  /** Whether members of the SSO organization may sign in with a password. */
  readonly passwordSignIn: boolean;
  /** The SSO organization, created when `create` and missing; `null` when missing. */
  organization(rt: ConsoleRuntime, create: boolean): Promise<OrganizationRecord | null>;
  /**
   * Whether `user` may sign in with a password: always, unless password sign-in is off for the SSO
   * organization and the user is a member of it. Instance operators always may (the way in when the
   * provider is down).
   */
  passwordSignInAllowed(rt: ConsoleRuntime, user: UserRecord): Promise<boolean>;
}

/** Sets up SSO for a console mounted at `basePath`; checks the options (TypeError). */
export function createSsoRuntime(options: SsoOptions, basePath: string): SsoRuntime {
  const relyingParty = createOidcRelyingParty(options, basePath);
  const settingName = `sso-organization:${options.organization}`;
  let known: OrganizationRecord | undefined;
  let creating: Promise<OrganizationRecord> | undefined;

  /** The organization the instance setting names, else the oldest of that name. */
  async function find(rt: ConsoleRuntime): Promise<OrganizationRecord | null> {
    const id = await rt.accounts.getSetting(settingName);
    const recorded = id ? await rt.accounts.getOrganization(id) : null;
    if (recorded) return recorded;
    const named = (await rt.accounts.listOrganizations()).find((o) => o.name === options.organization);
    if (named) await rt.accounts.setSetting(settingName, named.id);
    return named ?? null;
  }

  async function create(rt: ConsoleRuntime): Promise<OrganizationRecord> {
    const made = await rt.accounts.createOrganization({ name: options.organization });
    // Two instances at their first SSO sign-in at once: both take the older one (the other stays empty).
    const organization =
      (await rt.accounts.listOrganizations()).find((o) => o.name === options.organization) ?? made;
    await rt.accounts.setSetting(settingName, organization.id);
    if (organization.id !== made.id) return organization;
    await rt.credits.openAccount(organization.id, rt.freeCredits, 'SSO organization');
    rt.logger?.info(
      { event: 'console.sso_organization_created', organizationId: organization.id },
      'console: SSO organization created',
    );
    return organization;
  }

  const passwordSignIn = options.passwordSignIn ?? SSO_DEFAULTS.passwordSignIn;
  const runtime: SsoRuntime = {
    options,
    relyingParty,
    passwordSignIn,
    async organization(rt, allowCreate) {
      if (known) return known;
      const found = await find(rt);
      if (found) return (known = found);
      if (!allowCreate) return null;
      // One creation per process at a time (two first sign-ins at once).
      creating ??= create(rt).finally(() => (creating = undefined));
      return (known = await creating);
    },
    async passwordSignInAllowed(rt, user) {
      if (passwordSignIn || user.operator) return true;
      const organization = await runtime.organization(rt, false);
      return !organization || (await rt.accounts.getMembership(organization.id, user.id)) === null;
    },
  };
  return runtime;
}

/** The SSO cookie: set with a started sign-in's checks, or cleared. */
function flowCookie(rt: ConsoleRuntime, context: Context, checks: FlowChecks | null): string {
  const value = checks ? Buffer.from(JSON.stringify(checks)).toString('base64url') : '';
  return cookie(SSO_COOKIE, value, {
    path: rt.link('/sso/'),
    maxAgeSeconds: checks ? SSO_DEFAULTS.flowTtlMs / 1000 : 0,
    secure: context.secure,
  });
}

function readFlowCookie(context: Context): FlowChecks | null {
  const raw = parseCookies(context.request.header('cookie')).get(SSO_COOKIE);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<FlowChecks>;
    const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
    if (text(parsed.state) && text(parsed.nonce) && text(parsed.verifier))
      return { state: parsed.state, nonce: parsed.nonce, verifier: parsed.verifier };
  } catch {
    // A damaged cookie is the same as none.
  }
  return null;
}

function ssoOf(rt: ConsoleRuntime): SsoRuntime {
  if (!rt.sso) throw new ConsoleError(404, 'This page does not exist.');
  return rt.sso;
}

/** The sign-in page again, with what went wrong (and the SSO cookie cleared). */
function refused(rt: ConsoleRuntime, context: Context, status: number, message: string): Reply {
  return htmlReply(status, signInView(rt, message), { 'set-cookie': flowCookie(rt, context, null) });
}

/** `GET /sso/start`: to the provider, with fresh checks in this browser's SSO cookie. */
export async function ssoStart(rt: ConsoleRuntime, context: Context): Promise<Reply> {
  const sso = ssoOf(rt);
  let started: Awaited<ReturnType<OidcRelyingParty['start']>>;
  try {
    started = await sso.relyingParty.start();
  } catch (error) {
    if (!(error instanceof SsoProviderUnavailableError)) throw error;
    rt.logger?.warn({ err: error, event: 'console.sso_unavailable' }, 'console: SSO provider unreachable');
    return refused(rt, context, 502, 'The sign-in provider cannot be reached. Try again in a minute.');
  }
  return {
    status: 303,
    headers: {
      location: started.url.href,
      'cache-control': 'no-store',
      'set-cookie': flowCookie(rt, context, started.checks),
    },
    body: '',
  };
}

/** `GET /sso/callback`: checks the provider's answer, then signs the user in to the SSO organization. */
export async function ssoCallback(rt: ConsoleRuntime, context: Context): Promise<Reply> {
  const sso = ssoOf(rt);
  const checks = readFlowCookie(context);
  const query = context.request.query ? `?${context.request.query}` : '';
  // `actor`: who failed to sign in, once the provider has said (an unverified email, say).
  const fail = async (status: number, message: string, reason: string, error?: unknown, actor?: string) => {
    // The library's message and code only: its error's details may hold the ID token's claims.
    const detail =
      error instanceof Error ? { error: error.message, code: (error as { code?: unknown }).code } : {};
    rt.logger?.warn({ event: 'console.sso_failed', reason, ...detail }, 'console: SSO sign-in refused');
    await auditFrom(rt, context, {
      action: 'sign_in_failed',
      actor: actor ?? 'anonymous',
      organizationId: null,
      target: actor ?? null,
      detail: `sso: ${reason}`,
    });
    return refused(rt, context, status, message);
  };
  if (!checks) {
    return fail(
      400,
      `This sign-in was not started in this browser, or took longer than ${SSO_DEFAULTS.flowTtlMs / 60_000} minutes. Sign in again.`,
      'no-flow-cookie',
    );
  }
  const providerError = new URLSearchParams(query).get('error');
  if (providerError) {
    return fail(403, 'The sign-in provider did not sign you in. Sign in again.', `provider:${providerError}`);
  }
  let identity: SsoIdentity;
  try {
    identity = await sso.relyingParty.finish(query, checks);
  } catch (error) {
    if (error instanceof SsoProviderUnavailableError)
      return fail(
        502,
        'The sign-in provider cannot be reached. Try again in a minute.',
        'unavailable',
        error,
      );
    // A state or nonce that does not match, a code already used, a bad ID token: never a session.
    return fail(400, 'The sign-in could not be verified. Sign in again.', 'verification', error);
  }
  if (!identity.email) {
    return fail(
      403,
      'The sign-in provider sent no email address, so you cannot sign in with it.',
      'no-email',
    );
  }
  if (!identity.emailVerified) {
    return fail(
      403,
      `The sign-in provider has not verified ${identity.email}, so you cannot sign in with it. Ask your administrator.`,
      'email-not-verified',
      undefined,
      identity.email,
    );
  }
  const { user, organization, role } = await joinSsoOrganization(
    rt,
    sso,
    {
      ...identity,
      email: identity.email,
    },
    context,
  );
  await auditFrom(rt, context, {
    action: 'sign_in',
    actor: user.email,
    organizationId: organization.id,
    target: user.email,
    detail: `sso as ${role}`,
  });
  rt.logger?.info(
    { event: 'console.sso_signin', userId: user.id, organizationId: organization.id, role },
    'console: SSO sign-in',
  );
  // One Set-Cookie per reply: the session's. The spent flow cookie expires on its own (its code is
  // single-use at the provider).
  return startSession(rt, context, user, '/keys');
}

/**
 * The user of a verified email (created without a password on first sign-in), a member of the SSO
 * organization with the role the groups claim gives (see the module comment).
 */
export async function joinSsoOrganization(
  rt: ConsoleRuntime,
  sso: SsoRuntime,
  identity: SsoIdentity & { email: string },
  source: { readonly clientAddress: string },
): Promise<{ user: UserRecord; organization: OrganizationRecord; role: Role }> {
  const organization = (await sso.organization(rt, true))!;
  let user = await rt.accounts.findUserByEmail(identity.email);
  if (!user) {
    // Two first sign-ins at once: one creates, the other finds.
    user =
      (await rt.accounts.createUser({ email: identity.email, passwordHash: NO_PASSWORD })) ??
      (await rt.accounts.findUserByEmail(identity.email));
    if (!user) throw new Error('the SSO user could not be created');
    rt.logger?.info({ event: 'console.sso_user_created', userId: user.id }, 'console: SSO user created');
  }
  const current = await rt.accounts.getMembership(organization.id, user.id);
  const role = roleFromGroups(sso.options.adminGroup, identity.groups, current?.role);
  if (current?.role !== role) {
    await rt.accounts.putMembership({ organizationId: organization.id, userId: user.id, role });
    await auditFrom(
      rt,
      { user, clientAddress: source.clientAddress },
      {
        action: current ? 'role_changed' : 'member_joined',
        organizationId: organization.id,
        target: user.email,
        detail: current ? `sso groups: ${current.role} → ${role}` : `sso as ${role}`,
      },
    );
  }
  return { user, organization, role };
}

/** See the module comment: owners stay owners; otherwise the admin group decides, when there is one. */
export function roleFromGroups(
  adminGroup: string | undefined,
  groups: readonly string[],
  current: Role | undefined,
): Role {
  if (current === 'owner') return 'owner';
  if (adminGroup === undefined) return current ?? 'member';
  return groups.includes(adminGroup) ? 'admin' : 'member';
}
