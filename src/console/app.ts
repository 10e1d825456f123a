/**
 * The console: sign-up and sign-in, organization settings (API keys, members), usage and credits, a
 * playground and the operator's page. Server-rendered HTML with one small script (the playground and the
 * copy buttons), served next to `/v1` through the same adapters. It is a client of the engine's stores.
 */
import type { Logger, SearchEngine } from '../engine.ts';
import { FREE_CREDITS } from '../engine.ts';
import { errorBody, toCitewiseError } from '../errors.ts';
import { hashToken, newToken } from '../stores/accounts/common.ts';
import type { ProtocolRequest, ProtocolResponse } from '../http/handler.ts';
import { parseSearchRequest } from '../http/schema.ts';
import type {
  AccountStore,
  MembershipRecord,
  OrganizationRecord,
  Role,
  UsageRecord,
  UsageStore,
  UserRecord,
} from '../stores/accounts/types.ts';
import type { BatchingUsageRecorder } from '../stores/accounts/recorder.ts';
import type { KeyRecord, RateLimitOptions } from '../stores/types.ts';
import { readAsset } from './assets.ts';
import { dataTable, html, type Html } from './html.ts';
import { cancelInvitationsBy, honouredInvitation } from './invitations.ts';
import { createSignInThrottle } from './sign-in-throttle.ts';
import { isConsoleKeyStore, type ConsoleKeyStore } from './keys.ts';
import {
  dummyPasswordHash,
  hashPassword,
  passwordProblem,
  PasswordHashingBusyError,
  verifyPassword,
} from './passwords.ts';
import {
  cookie,
  csrfToken,
  csrfTokenMatches,
  isSameOrigin,
  ORGANIZATION_COOKIE,
  parseCookies,
  SECURITY_HEADERS,
  SESSION_COOKIE,
} from './security.ts';

/** Who may sign up without an invitation. */
export type SignupPolicy = 'open' | 'invite-only';

/** Options of {@link createConsole}. */
export interface ConsoleOptions {
  /** The engine whose keys and credits the console manages; its `keys` must come from `withConsoleKeys`. */
  readonly engine: SearchEngine;
  readonly accounts: AccountStore;
  readonly usage: UsageStore;
  /** The recorder given to the engine's `usage` option; the usage pages flush it before reading. */
  readonly recorder: BatchingUsageRecorder;
  /** `open`: anyone may sign up; `invite-only`: only through an invitation link. @default 'open' */
  readonly signup?: SignupPolicy;
  /** When not empty, sign-up (without an invitation) is limited to these email domains. @default [] */
  readonly signupDomains?: readonly string[];
  /** Credits of a new organization. @default FREE_CREDITS (1000) */
  readonly freeCredits?: number;
  /**
   * Believe `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-For` (set it only behind a reverse
   * proxy that sets them): cookies get `Secure` behind https, throttling sees the client's address.
   * @default false
   */
  readonly trustProxy?: boolean;
  /** Where the console is mounted, e.g. `/console`. @default '' (the root) */
  readonly basePath?: string;
  /** Session lifetime in ms. @default 1_209_600_000 (14 days) */
  readonly sessionTtlMs?: number;
  /** Invitation lifetime in ms. @default 604_800_000 (7 days) */
  readonly invitationTtlMs?: number;
  /**
   * Failed sign-ins of one email, from every address, after which only addresses that have not failed on
   * it may still try (so its owner can sign in). @default { limit: 10, windowMs: 900_000 }
   */
  readonly signInLimitPerAccount?: RateLimitOptions;
  /** Sign-in and sign-up attempts allowed per client address. @default { limit: 50, windowMs: 900_000 } */
  readonly signInLimitPerAddress?: RateLimitOptions;
  /** Failed sign-ins of one email from one client address. @default { limit: 5, windowMs: 900_000 } */
  readonly signInLimitPerAddressAndAccount?: RateLimitOptions;
  /** How often the maintenance switch is read from the account store (other instances' changes). @default 5_000 */
  readonly settingsPollMs?: number;
  /** Console events (sign-ups, failed sign-ins, keys created): ids only, never keys or passwords. @default silent */
  readonly logger?: Logger;
}

/** A request to the console: the protocol request plus the client's address (for throttling). */
export interface ConsoleRequest extends ProtocolRequest {
  /** The TCP peer address. */
  readonly remoteAddress?: string;
  /** Whether the connection itself is TLS. */
  readonly encrypted?: boolean;
}

/** The console. */
export interface Console {
  /** Whether `path` (relative to the mount point) is one of the console's. */
  owns(path: string): boolean;
  /** Handles one request for a path the console owns. Never throws. */
  handle(request: ConsoleRequest): Promise<ProtocolResponse>;
  /** Creates a one-time link that makes whoever opens it (signed in) the instance operator. */
  createSetupLink(): Promise<string>;
  /** Stops the settings poller and flushes usage. */
  close(): Promise<void>;
}

const DAY = 86_400_000;
const SETUP_SETTING = 'operator_setup';
const MAINTENANCE_SETTING = 'maintenance';
const MAX_FORM_BYTES = 64 * 1024;
const ROUTES = [
  '/',
  '/sign-up',
  '/sign-in',
  '/sign-out',
  '/keys',
  '/members',
  '/usage',
  '/usage.csv',
  '/playground',
  '/playground/ask',
  '/account',
  '/operator',
  '/organization',
];
const PREFIXES = [
  '/keys/',
  '/members/',
  '/invitations/',
  '/invite/',
  '/setup/',
  '/console-assets/',
  '/operator/',
];

/** A page's outcome: HTML with a status, or a redirect. */
type Reply = ProtocolResponse;

interface Context {
  readonly request: ConsoleRequest;
  readonly form: URLSearchParams;
  readonly sessionToken: string | null;
  readonly user: UserRecord | null;
  readonly secure: boolean;
  readonly origin: string;
  readonly clientAddress: string;
}

interface OrgContext extends Context {
  readonly user: UserRecord;
  readonly sessionToken: string;
  readonly organization: OrganizationRecord;
  readonly membership: MembershipRecord;
  readonly organizations: { id: string; name: string }[];
}

class ConsoleError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** Password hashing is at its bound (a flood of sign-ins): 429, try again shortly. */
function busyError(error: PasswordHashingBusyError): ConsoleError {
  const seconds = Math.max(1, Math.ceil(error.retryAfterMs / 1000));
  return new ConsoleError(429, 'Too many sign-ins at once. Try again in a few seconds.', {
    'retry-after': String(seconds),
  });
}

/** Creates the console on an engine whose key store was wrapped by `withConsoleKeys`. */
export function createConsole(options: ConsoleOptions): Console {
  const { engine, accounts, usage, recorder } = options;
  if (!isConsoleKeyStore(engine.stores.keys)) {
    throw new TypeError('the engine must use withConsoleKeys(keys, accounts) as its key store');
  }
  const keys: ConsoleKeyStore = engine.stores.keys;
  const credits = engine.stores.credits;
  const signup = options.signup ?? 'open';
  if (signup !== 'open' && signup !== 'invite-only')
    throw new TypeError('signup must be "open" or "invite-only"');
  const signupDomains = (options.signupDomains ?? []).map((d) => d.trim().toLowerCase().replace(/^@/, ''));
  const freeCredits = options.freeCredits ?? FREE_CREDITS;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) throw new TypeError('basePath must start with "/"');
  const sessionTtlMs = options.sessionTtlMs ?? 14 * DAY;
  const invitationTtlMs = options.invitationTtlMs ?? 7 * DAY;
  const trustProxy = options.trustProxy ?? false;
  const logger = options.logger;
  const signInThrottle = createSignInThrottle({
    ...(options.signInLimitPerAccount ? { perAccount: options.signInLimitPerAccount } : {}),
    ...(options.signInLimitPerAddress ? { perAddress: options.signInLimitPerAddress } : {}),
    ...(options.signInLimitPerAddressAndAccount
      ? { perAddressAndAccount: options.signInLimitPerAddressAndAccount }
      : {}),
  });
  const link = (path: string) => `${basePath}${path}`;

  // Maintenance is an instance-wide setting: read at start and every few seconds, so a toggle by the
  // operator (here, on another instance, or by the CLI) reaches every instance.
  // At start only "on" is applied: a stored "off" must not override `--maintenance`.
  let lastMaintenance: string | null | undefined;
  const pollSettings = async () => {
    try {
      const value = await accounts.getSetting(MAINTENANCE_SETTING);
      const changed =
        lastMaintenance === undefined ? value === 'on' : value !== lastMaintenance && value !== null;
      if (changed) engine.setMaintenance(value === 'on');
      lastMaintenance = value;
    } catch (error) {
      logger?.warn({ err: error }, 'console: could not read settings');
    }
  };
  void pollSettings();
  const poller = setInterval(() => void pollSettings(), options.settingsPollMs ?? 5_000);
  poller.unref();

  // ---------------------------------------------------------------------------------------------------
  // Request plumbing

  async function handle(request: ConsoleRequest): Promise<ProtocolResponse> {
    try {
      const response = await route(request);
      return { ...response, headers: { ...SECURITY_HEADERS, ...response.headers } };
    } catch (caught) {
      const thrown = caught instanceof PasswordHashingBusyError ? busyError(caught) : caught;
      const status = thrown instanceof ConsoleError ? thrown.status : 500;
      if (!(thrown instanceof ConsoleError)) logger?.error({ err: thrown }, 'console: request failed');
      const message =
        thrown instanceof ConsoleError
          ? thrown.message
          : 'Something went wrong on our side. Please try again.';
      return {
        status,
        headers: {
          ...(thrown instanceof ConsoleError ? thrown.headers : {}),
          ...SECURITY_HEADERS,
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
        },
        body: page({
          title: 'Error',
          user: null,
          body: html`<h1>Error</h1>
            <p role="alert">${message}</p>`,
        }).value,
      };
    }
  }

  async function route(request: ConsoleRequest): Promise<Reply> {
    const path = request.path.replace(/(.)\/+$/, '$1');
    const method = request.method.toUpperCase();
    if (path.startsWith('/console-assets/')) return asset(path.slice('/console-assets/'.length));
    const context = await contextOf(request, method);
    const get = method === 'GET' || method === 'HEAD';
    if (!get && method !== 'POST') throw new ConsoleError(405, 'Method not allowed.');

    if (path === '/') return redirect(context.user ? '/keys' : '/sign-in');
    if (path === '/sign-up') return get ? signUpPage(context) : signUp(context);
    if (path === '/sign-in') return get ? signInPage(context) : signIn(context);
    if (path === '/sign-out' && !get) return signOut(context);
    let match: RegExpExecArray | null;
    if ((match = /^\/invite\/([^/]+)$/.exec(path)))
      return get ? invitePage(context, match[1]!) : acceptInvite(context, match[1]!);
    if ((match = /^\/setup\/([^/]+)$/.exec(path)))
      return get ? setupPage(context, match[1]!) : acceptSetup(context, match[1]!);

    if (!context.user || !context.sessionToken) {
      if (path === '/playground/ask') throw new ConsoleError(401, 'Sign in first.');
      return redirect('/sign-in');
    }
    const user = context.user;
    if (path === '/account') return get ? accountPage(context, user) : changePassword(context, user);
    if (path === '/organization' && !get) return switchOrganization(context, user);
    if (path === '/operator' || path.startsWith('/operator/')) return operator(context, user, path, get);

    const org = await organizationContext(context, user);
    if (!org) return noOrganizationPage(context, user);
    if (path === '/keys') return get ? keysPage(org) : createKey(org);
    if ((match = /^\/keys\/([^/]+)\/revoke$/.exec(path)) && !get) return revokeKey(org, match[1]!);
    if (path === '/members') return get ? membersPage(org) : invite(org);
    if ((match = /^\/members\/([^/]+)\/remove$/.exec(path)) && !get) return removeMember(org, match[1]!);
    if ((match = /^\/invitations\/([^/]+)\/delete$/.exec(path)) && !get)
      return deleteInvitation(org, match[1]!);
    if (path === '/usage' && get) return usagePage(org);
    if (path === '/usage.csv' && get) return usageCsv(org);
    if (path === '/playground' && get) return playgroundPage(org);
    if (path === '/playground/ask' && !get) return ask(org);
    throw new ConsoleError(404, 'This page does not exist.');
  }

  /** Session, origin and CSRF checks, and the parsed form of a POST. */
  async function contextOf(request: ConsoleRequest, method: string): Promise<Context> {
    const forwarded = (name: string) =>
      trustProxy ? request.header(name)?.split(',')[0]?.trim() : undefined;
    const secure = forwarded('x-forwarded-proto') === 'https' || request.encrypted === true;
    const host = forwarded('x-forwarded-host') ?? request.header('host') ?? 'localhost';
    const origin = `${secure ? 'https' : 'http'}://${host}`;
    // The proxy appends the address it saw: the last entry is the one a client cannot forge.
    const forwardedFor = trustProxy
      ? request.header('x-forwarded-for')?.split(',').at(-1)?.trim()
      : undefined;
    const clientAddress = forwardedFor || request.remoteAddress || 'unknown';
    const sessionToken = parseCookies(request.header('cookie')).get(SESSION_COOKIE) ?? null;
    const session = sessionToken ? await accounts.findSession(sessionToken) : null;
    const user = session ? await accounts.getUser(session.userId) : null;
    let form = new URLSearchParams();
    if (method === 'POST') {
      if (!isSameOrigin((name) => request.header(name), origin)) {
        throw new ConsoleError(403, 'This form was sent from another site; it was refused.');
      }
      const type = request.header('content-type') ?? '';
      const body = Buffer.from(
        await request.readBody(MAX_FORM_BYTES).catch(() => {
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

  async function organizationContext(context: Context, user: UserRecord): Promise<OrgContext | null> {
    const memberships = await accounts.listUserOrganizations(user.id);
    if (memberships.length === 0) return null;
    const chosen = parseCookies(context.request.header('cookie')).get(ORGANIZATION_COOKIE);
    const membership = memberships.find((m) => m.organizationId === chosen) ?? memberships[0]!;
    const organization = await accounts.getOrganization(membership.organizationId);
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

  function sessionCookie(context: Context, token: string | null): string {
    return cookie(SESSION_COOKIE, token ?? '', {
      path: basePath || '/',
      maxAgeSeconds: token ? sessionTtlMs / 1000 : 0,
      secure: context.secure,
    });
  }

  async function startSession(context: Context, user: UserRecord, to: string): Promise<Reply> {
    const { token } = await accounts.createSession({ userId: user.id, expiresAt: Date.now() + sessionTtlMs });
    return redirect(to, { 'set-cookie': sessionCookie(context, token) });
  }

  function redirect(to: string, headers: Record<string, string> = {}): Reply {
    return {
      status: 303,
      headers: { location: link(to), 'cache-control': 'no-store', ...headers },
      body: '',
    };
  }

  function htmlReply(status: number, markup: Html, headers: Record<string, string> = {}): Reply {
    return {
      status,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers },
      body: markup.value,
    };
  }

  async function asset(name: string): Promise<Reply> {
    const found = await readAsset(name);
    if (!found) throw new ConsoleError(404, 'No such file.');
    return {
      status: 200,
      headers: { 'content-type': found.type, 'cache-control': 'public, max-age=3600' },
      body: found.body,
    };
  }

  // ---------------------------------------------------------------------------------------------------
  // Layout

  function page(input: {
    title: string;
    user: UserRecord | null;
    org?: OrgContext;
    csrf?: string;
    body: Html;
    scripts?: boolean;
  }): Html {
    const { org, user } = input;
    const nav = user
      ? html`<nav aria-label="Main">
          <ul>
            <li><a href="${link('/keys')}">API keys</a></li>
            <li><a href="${link('/usage')}">Usage</a></li>
            <li><a href="${link('/members')}">Members</a></li>
            <li><a href="${link('/playground')}">Playground</a></li>
            ${user.operator ? html`<li><a href="${link('/operator')}">Operator</a></li>` : ''}
            <li><a href="${link('/account')}">Account</a></li>
          </ul>
          <form method="post" action="${link('/sign-out')}" class="inline">
            <input type="hidden" name="_csrf" value="${input.csrf ?? ''}" />
            <button type="submit" class="secondary">Sign out</button>
          </form>
        </nav>`
      : '';
    const orgBar = org
      ? html`<div class="org-bar">
          <p>
            <span class="muted">Organization</span> <strong>${org.organization.name}</strong>
            <span class="muted">· your role: ${org.membership.role}</span>
          </p>
          ${
            org.organizations.length > 1
              ? html`<form method="post" action="${link('/organization')}" class="inline">
                  <input type="hidden" name="_csrf" value="${input.csrf ?? ''}" />
                  <label for="org-switch">Switch organization</label>
                  <select id="org-switch" name="organization">
                    ${org.organizations.map(
                      (o) =>
                        html`<option value="${o.id}" ${o.id === org.organization.id ? html`selected` : ''}>
                          ${o.name}
                        </option>`,
                    )}
                  </select>
                  <button type="submit" class="secondary">Switch</button>
                </form>`
              : ''
          }
        </div>`
      : '';
    return html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          ${input.csrf ? html`<meta name="csrf-token" content="${input.csrf}" />` : ''}
          <meta name="base-path" content="${basePath}" />
          <title>${input.title} · citewise console</title>
          <link rel="stylesheet" href="${link('/console-assets/console.css')}" />
          ${
            input.scripts
              ? html`<script src="${link('/console-assets/marked.umd.js')}" defer></script>
                  <script src="${link('/console-assets/purify.min.js')}" defer></script>`
              : ''
          }
          <script src="${link('/console-assets/console.js')}" defer></script>
        </head>
        <body>
          <header>
            <a class="brand" href="${link('/')}">citewise <span>console</span></a>
            ${nav}
          </header>
          <main id="main">${orgBar}${input.body}</main>
        </body>
      </html>`;
  }

  function orgPage(org: OrgContext, title: string, body: Html, scripts = false): Html {
    return page({ title, user: org.user, org, csrf: csrfToken(org.sessionToken), body, scripts });
  }

  function csrfField(context: { sessionToken: string | null }): Html {
    return context.sessionToken
      ? html`<input type="hidden" name="_csrf" value="${csrfToken(context.sessionToken)}" />`
      : html``;
  }

  function errorNote(message: string | undefined): Html {
    return message ? html`<p class="error" role="alert">${message}</p>` : html``;
  }

  async function balanceOf(org: OrgContext): Promise<Html> {
    const available = await credits.balance(org.organization.id);
    return html`<p class="balance">
      Available credits: <strong data-testid="available-credits">${available.toLocaleString('en-US')}</strong>
    </p>`;
  }

  // ---------------------------------------------------------------------------------------------------
  // Sign-up, sign-in, sign-out, account

  function credentialsForm(
    action: string,
    button: 'Sign up' | 'Sign in',
    idPrefix: string,
    extra?: Html,
  ): Html {
    const autocomplete = button === 'Sign up' ? 'new-password' : 'current-password';
    return html`<form method="post" action="${link(action)}" class="stack">
      ${extra ?? ''}
      <label for="${idPrefix}-email">Email</label>
      <input id="${idPrefix}-email" name="email" type="email" autocomplete="email" required maxlength="320" />
      <label for="${idPrefix}-password">Password</label>
      <input
        id="${idPrefix}-password"
        name="password"
        type="password"
        autocomplete="${autocomplete}"
        required
        minlength="${button === 'Sign up' ? 10 : 1}"
        maxlength="200"
      />
      ${button === 'Sign up' ? html`<p class="hint">At least 10 characters.</p>` : ''}
      <button type="submit">${button}</button>
    </form>`;
  }

  function signUpPage(context: Context, error?: string, status = 200): Reply {
    if (context.user) return redirect('/keys');
    const closed =
      signup === 'invite-only'
        ? html`<p>This instance is invite-only: ask a member of your organization for an invitation link.</p>`
        : html``;
    const domains = signupDomains.length
      ? html`<p class="hint">Sign-up is open to addresses at ${signupDomains.join(', ')}.</p>`
      : html``;
    return htmlReply(
      status,
      page({
        title: 'Sign up',
        user: null,
        body: html`<section class="card narrow">
          <h1>Create your account</h1>
          <p>
            You get an organization with ${freeCredits.toLocaleString('en-US')} free credits. No payment card.
          </p>
          ${closed}${domains}${errorNote(error)}
          ${signup === 'open' ? credentialsForm('/sign-up', 'Sign up', 'signup') : ''}
          <p>Already have an account? <a href="${link('/sign-in')}">Sign in</a></p>
        </section>`,
      }),
    );
  }

  /** Throttles sign-in and sign-up attempts (see sign-in-throttle.ts); 429 with Retry-After when refused. */
  async function throttle(context: Context, email: string | null): Promise<void> {
    const refused = await signInThrottle.admit(context.clientAddress, email);
    if (refused) {
      const minutes = Math.max(1, Math.ceil(refused.retryAfterMs / 60_000));
      logger?.warn({ event: 'console.throttled', email: email !== null }, 'console: too many attempts');
      throw new ConsoleError(
        429,
        `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        { 'retry-after': String(Math.ceil(refused.retryAfterMs / 1000)) },
      );
    }
  }

  function signupRefusal(email: string): string | null {
    if (signup === 'invite-only') return 'Sign-up needs an invitation link on this instance.';
    const domain = email.split('@')[1] ?? '';
    if (signupDomains.length && !signupDomains.includes(domain)) {
      return `Sign-up is limited to addresses at ${signupDomains.join(', ')}.`;
    }
    return null;
  }

  /** Validates email and password of a sign-up form; returns the user or an error message. */
  async function createUserFromForm(context: Context): Promise<UserRecord | string> {
    const email = (context.form.get('email') ?? '').trim().toLowerCase();
    const password = context.form.get('password') ?? '';
    await throttle(context, null);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320)
      return 'Enter a valid email address.';
    const problem = passwordProblem(password);
    if (problem) return problem;
    const user = await accounts.createUser({ email, passwordHash: await hashPassword(password) });
    return user ?? 'An account with this email already exists. Sign in instead.';
  }

  async function createOrganizationFor(user: UserRecord): Promise<OrganizationRecord> {
    const organization = await accounts.createOrganization({
      name: `${user.email.split('@')[0]}'s organization`,
    });
    await accounts.putMembership({ organizationId: organization.id, userId: user.id, role: 'owner' });
    if (await credits.openAccount(organization.id, freeCredits)) {
      recorder.record({
        at: Date.now(),
        accountId: organization.id,
        keyId: null,
        kind: 'grant',
        credits: freeCredits,
        note: 'sign-up',
      });
    }
    return organization;
  }

  async function signUp(context: Context): Promise<Reply> {
    const email = (context.form.get('email') ?? '').trim().toLowerCase();
    const refusal = signupRefusal(email);
    if (refusal) return signUpPage(context, refusal, 403);
    const user = await createUserFromForm(context);
    if (typeof user === 'string') return signUpPage(context, user, 400);
    const organization = await createOrganizationFor(user);
    logger?.info(
      { event: 'console.signup', userId: user.id, organizationId: organization.id },
      'console: sign-up',
    );
    return startSession(context, user, '/keys');
  }

  function signInPage(context: Context, error?: string, status = 200): Reply {
    if (context.user && !error) return redirect('/keys');
    return htmlReply(
      status,
      page({
        title: 'Sign in',
        user: null,
        body: html`<section class="card narrow">
          <h1>Sign in</h1>
          ${errorNote(error)} ${credentialsForm('/sign-in', 'Sign in', 'signin')}
          ${signup === 'open' ? html`<p>New here? <a href="${link('/sign-up')}">Sign up</a></p>` : ''}
        </section>`,
      }),
    );
  }

  /** Checks email and password; the same answer (and the same work) for an unknown email and a wrong password. */
  async function authenticate(context: Context): Promise<UserRecord | null> {
    const email = (context.form.get('email') ?? '').trim().toLowerCase();
    const password = context.form.get('password') ?? '';
    await throttle(context, email || null);
    if (!email || !password || password.length > 200 || email.length > 320) return null;
    const user = await accounts.findUserByEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    if (!user || !matches) {
      await signInThrottle.failed(context.clientAddress, email);
      logger?.info({ event: 'console.signin_failed' }, 'console: sign-in failed');
      return null;
    }
    return user;
  }

  async function signIn(context: Context): Promise<Reply> {
    const user = await authenticate(context);
    if (!user) return signInPage({ ...context, user: null }, 'Email or password is incorrect.', 401);
    return startSession(context, user, '/keys');
  }

  async function signOut(context: Context): Promise<Reply> {
    if (context.sessionToken) await accounts.deleteSession(context.sessionToken);
    return redirect('/sign-in', { 'set-cookie': sessionCookie(context, null) });
  }

  function accountPage(
    context: Context,
    user: UserRecord,
    message?: { error?: string; done?: string },
    status = 200,
  ): Reply {
    return htmlReply(
      status,
      page({
        title: 'Account',
        user,
        csrf: csrfToken(context.sessionToken!),
        body: html`<section class="card narrow">
          <h1>Account</h1>
          <p>Signed in as <strong>${user.email}</strong>${user.operator ? ' (instance operator)' : ''}.</p>
          <h2>Change password</h2>
          <p class="hint">Changing it signs out every other browser.</p>
          ${errorNote(message?.error)}
          ${message?.done ? html`<p class="notice" role="status">${message.done}</p>` : ''}
          <form method="post" action="${link('/account')}" class="stack">
            ${csrfField(context)}
            <label for="current-password">Current password</label>
            <input
              id="current-password"
              name="current"
              type="password"
              autocomplete="current-password"
              required
            />
            <label for="new-password">New password</label>
            <input
              id="new-password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minlength="10"
            />
            <button type="submit">Change password</button>
          </form>
        </section>`,
      }),
    );
  }

  async function changePassword(context: Context, user: UserRecord): Promise<Reply> {
    const current = context.form.get('current') ?? '';
    const password = context.form.get('password') ?? '';
    await throttle(context, user.email);
    if (!(await verifyPassword(current, user.passwordHash))) {
      await signInThrottle.failed(context.clientAddress, user.email);
      return accountPage(context, user, { error: 'The current password is incorrect.' }, 400);
    }
    const problem = passwordProblem(password);
    if (problem) return accountPage(context, user, { error: problem }, 400);
    await accounts.setPasswordHash(user.id, await hashPassword(password));
    // Every session ends (a thief's included); this browser gets a new one.
    await accounts.deleteUserSessions(user.id);
    logger?.info({ event: 'console.password_changed', userId: user.id }, 'console: password changed');
    return startSession(context, user, '/account');
  }

  async function switchOrganization(context: Context, user: UserRecord): Promise<Reply> {
    const wanted = context.form.get('organization') ?? '';
    const membership = wanted ? await accounts.getMembership(wanted, user.id) : null;
    if (!membership) throw new ConsoleError(403, 'You are not a member of that organization.');
    return redirect('/keys', {
      'set-cookie': cookie(ORGANIZATION_COOKIE, wanted, {
        path: basePath || '/',
        maxAgeSeconds: 365 * 86_400,
        secure: context.secure,
      }),
    });
  }

  function noOrganizationPage(context: Context, user: UserRecord): Reply {
    return htmlReply(
      200,
      page({
        title: 'No organization',
        user,
        csrf: csrfToken(context.sessionToken!),
        body: html`<section class="card narrow">
          <h1>No organization</h1>
          <p>You are not a member of any organization. Ask an owner or admin for an invitation link.</p>
        </section>`,
      }),
    );
  }

  // ---------------------------------------------------------------------------------------------------
  // Invitations and operator setup links

  async function invitePage(context: Context, token: string, error?: string, status = 200): Promise<Reply> {
    const invitation = await honouredInvitation(accounts, token);
    if (!invitation)
      throw new ConsoleError(404, 'This invitation link is not valid any more. Ask for a new one.');
    const organization = await accounts.getOrganization(invitation.organizationId);
    const action = `/invite/${token}`;
    const body = context.user
      ? html`<form method="post" action="${link(action)}" class="stack">
          ${csrfField(context)}
          <p>You are signed in as <strong>${context.user.email}</strong>.</p>
          <button type="submit" name="intent" value="join">
            Join ${organization?.name ?? 'the organization'}
          </button>
        </form>`
      : html`<div class="columns">
          <section aria-labelledby="invite-new">
            <h2 id="invite-new">New to citewise</h2>
            ${credentialsForm(action, 'Sign up', 'invite-signup', html`<input type="hidden" name="intent" value="sign-up" />`)}
          </section>
          <section aria-labelledby="invite-existing">
            <h2 id="invite-existing">Already have an account</h2>
            ${credentialsForm(action, 'Sign in', 'invite-signin', html`<input type="hidden" name="intent" value="sign-in" />`)}
          </section>
        </div>`;
    return htmlReply(
      status,
      page({
        title: 'Invitation',
        user: context.user,
        ...(context.sessionToken ? { csrf: csrfToken(context.sessionToken) } : {}),
        body: html`<section class="card">
          <h1>Join ${organization?.name ?? 'an organization'}</h1>
          <p>You were invited as <strong>${invitation.role}</strong>.</p>
          ${errorNote(error)} ${body}
        </section>`,
      }),
    );
  }

  async function acceptInvite(context: Context, token: string): Promise<Reply> {
    let user = context.user;
    const intent = context.form.get('intent');
    if (!(await honouredInvitation(accounts, token))) {
      throw new ConsoleError(404, 'This invitation link is not valid any more. Ask for a new one.');
    }
    if (!user) {
      const found = intent === 'sign-in' ? await authenticate(context) : await createUserFromForm(context);
      if (found === null) return invitePage(context, token, 'Email or password is incorrect.', 401);
      if (typeof found === 'string') return invitePage(context, token, found, 400);
      user = found;
    }
    const membership = await accounts.acceptInvitation(token, user.id);
    if (!membership)
      throw new ConsoleError(404, 'This invitation link is not valid any more. Ask for a new one.');
    logger?.info(
      { event: 'console.invitation_accepted', userId: user.id, organizationId: membership.organizationId },
      'console: invitation accepted',
    );
    if (!context.user) return startSession(context, user, '/keys');
    // Show the organization just joined.
    const orgCookie = cookie(ORGANIZATION_COOKIE, membership.organizationId, {
      path: basePath || '/',
      maxAgeSeconds: 365 * 86_400,
      secure: context.secure,
    });
    return redirect('/keys', { 'set-cookie': orgCookie });
  }

  async function setupTokenValid(token: string): Promise<boolean> {
    const stored = await accounts.getSetting(SETUP_SETTING);
    if (!stored) return false;
    const [hash, expiresAt] = stored.split(':');
    return hash === hashToken(token) && Number(expiresAt) > Date.now();
  }

  async function setupPage(context: Context, token: string, error?: string, status = 200): Promise<Reply> {
    if (!(await setupTokenValid(token)))
      throw new ConsoleError(404, 'This setup link is not valid any more.');
    const action = `/setup/${token}`;
    return htmlReply(
      status,
      page({
        title: 'Operator setup',
        user: context.user,
        ...(context.sessionToken ? { csrf: csrfToken(context.sessionToken) } : {}),
        body: html`<section class="card">
          <h1>Become the operator of this instance</h1>
          <p>
            The operator lists organizations, grants credits, suspends organizations and switches maintenance
            on and off.
          </p>
          ${errorNote(error)}
          ${
            context.user
              ? html`<form method="post" action="${link(action)}">
                  ${csrfField(context)}<button type="submit">Become operator</button>
                </form>`
              : html`<div class="columns">
                  <section aria-labelledby="setup-new">
                    <h2 id="setup-new">New account</h2>
                    ${credentialsForm(action, 'Sign up', 'setup-signup', html`<input type="hidden" name="intent" value="sign-up" />`)}
                  </section>
                  <section aria-labelledby="setup-existing">
                    <h2 id="setup-existing">Existing account</h2>
                    ${credentialsForm(action, 'Sign in', 'setup-signin', html`<input type="hidden" name="intent" value="sign-in" />`)}
                  </section>
                </div>`
          }
        </section>`,
      }),
    );
  }

  async function acceptSetup(context: Context, token: string): Promise<Reply> {
    if (!(await setupTokenValid(token)))
      throw new ConsoleError(404, 'This setup link is not valid any more.');
    let user = context.user;
    if (!user) {
      const found =
        context.form.get('intent') === 'sign-in'
          ? await authenticate(context)
          : await createUserFromForm(context);
      if (found === null) return setupPage(context, token, 'Email or password is incorrect.', 401);
      if (typeof found === 'string') return setupPage(context, token, found, 400);
      user = found;
      if ((await accounts.listUserOrganizations(user.id)).length === 0) await createOrganizationFor(user);
    }
    await accounts.setSetting(SETUP_SETTING, null);
    await accounts.setOperator(user.id, true);
    logger?.info({ event: 'console.operator_created', userId: user.id }, 'console: operator set up');
    return context.user ? redirect('/operator') : startSession(context, user, '/operator');
  }

  // ---------------------------------------------------------------------------------------------------
  // API keys

  const canManageOthers = (role: Role) => role === 'owner' || role === 'admin';

  async function keysPage(
    org: OrgContext,
    created?: { key: string; record: KeyRecord },
    error?: string,
    status = 200,
  ): Promise<Reply> {
    await recorder.flush();
    const [records, creators, members, perKey] = await Promise.all([
      keys.list(org.organization.id),
      accounts.keyCreators(org.organization.id),
      accounts.listMembers(org.organization.id),
      usage.perKey(org.organization.id, 0),
    ]);
    const emails = new Map(members.map((m) => [m.userId, m.email]));
    const lastUsed = new Map(perKey.map((k) => [k.keyId, k.lastUsedAt]));
    const now = Date.now();
    const rows = [...records].reverse().map((record) => {
      const creator = creators.get(record.id);
      const status = record.revokedAt
        ? 'revoked'
        : record.expiresAt !== null && record.expiresAt <= now
          ? 'expired'
          : 'active';
      const mayRevoke =
        status === 'active' && (canManageOthers(org.membership.role) || creator === org.user.id);
      return html`<tr>
        <td>${record.name ?? '—'}</td>
        <td><code>${record.prefix}…</code></td>
        <td>${creator ? (emails.get(creator) ?? 'former member') : 'CLI'}</td>
        <td>${formatTime(record.createdAt)}</td>
        <td>${lastUsed.has(record.id) ? formatTime(lastUsed.get(record.id)!) : 'never'}</td>
        <td>${record.expiresAt ? formatTime(record.expiresAt) : 'never'}</td>
        <td><span class="status ${status}">${status}</span></td>
        <td>
          ${
            mayRevoke
              ? html`<form method="post" action="${link(`/keys/${record.id}/revoke`)}" class="inline">
                  ${csrfField(org)}
                  <button type="submit" class="danger" aria-label="Revoke ${record.name ?? record.prefix}">
                    Revoke
                  </button>
                </form>`
              : ''
          }
        </td>
      </tr>`;
    });
    const shown = created
      ? html`<div class="new-key" role="status">
          <p><strong>Your new API key.</strong> Copy it now: it is shown only once.</p>
          <p class="copy-row">
            <output data-testid="new-api-key" id="new-api-key">${created.key}</output>
            <button type="button" class="secondary" data-copy="new-api-key">Copy</button>
          </p>
        </div>`
      : '';
    return htmlReply(
      status,
      orgPage(
        org,
        'API keys',
        html`<h1>API keys</h1>
          ${await balanceOf(org)} ${shown} ${errorNote(error)}
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
                'Status',
                { hidden: 'Actions' },
              ],
              rows,
              'No keys yet.',
            )}
          </section>`,
      ),
    );
  }

  async function createKey(org: OrgContext): Promise<Reply> {
    const name = (org.form.get('name') ?? '').trim();
    if (!name || name.length > 100)
      return keysPage(org, undefined, 'Give the key a name of 1–100 characters.', 400);
    const days = org.form.get('expires') ?? '';
    if (days !== '' && !['7', '30', '90', '365'].includes(days))
      return keysPage(org, undefined, 'Pick an expiry from the list.', 400);
    const created = await keys.create({
      accountId: org.organization.id,
      name,
      expiresAt: days ? Date.now() + Number(days) * DAY : null,
    });
    await accounts.recordKeyCreator({
      keyId: created.record.id,
      organizationId: org.organization.id,
      userId: org.user.id,
    });
    logger?.info(
      { event: 'console.key_created', keyId: created.record.id, userId: org.user.id },
      'console: key created',
    );
    return keysPage(org, created, undefined, 201);
  }

  async function revokeKey(org: OrgContext, keyId: string): Promise<Reply> {
    const record = (await keys.list(org.organization.id)).find((k) => k.id === keyId);
    if (!record) throw new ConsoleError(404, 'No such key in this organization.');
    const creator = (await accounts.keyCreators(org.organization.id)).get(keyId);
    if (!canManageOthers(org.membership.role) && creator !== org.user.id) {
      throw new ConsoleError(403, 'Only owners and admins can revoke keys created by others.');
    }
    await keys.revoke(keyId);
    logger?.info({ event: 'console.key_revoked', keyId, userId: org.user.id }, 'console: key revoked');
    return redirect('/keys');
  }

  // ---------------------------------------------------------------------------------------------------
  // Members

  async function membersPage(
    org: OrgContext,
    inviteLink?: string,
    error?: string,
    status = 200,
  ): Promise<Reply> {
    const manage = canManageOthers(org.membership.role);
    const [members, invitations] = await Promise.all([
      accounts.listMembers(org.organization.id),
      manage ? accounts.listInvitations(org.organization.id) : Promise.resolve([]),
    ]);
    const owners = members.filter((m) => m.role === 'owner').length;
    const rows = members.map((m) => {
      const removable =
        manage &&
        m.userId !== org.user.id &&
        (m.role !== 'owner' || org.membership.role === 'owner') &&
        !(m.role === 'owner' && owners <= 1);
      return html`<tr>
        <td>${m.email}${m.userId === org.user.id ? ' (you)' : ''}</td>
        <td>${m.role}</td>
        <td>${formatTime(m.createdAt)}</td>
        <td>
          ${
            removable
              ? html`<form method="post" action="${link(`/members/${m.userId}/remove`)}" class="inline">
                  ${csrfField(org)}
                  <button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button>
                </form>`
              : ''
          }
        </td>
      </tr>`;
    });
    const shown = inviteLink
      ? html`<div class="new-key" role="status">
          <p><strong>Invitation link</strong> (works once, for 7 days). Send it to your colleague:</p>
          <p class="copy-row">
            <output id="invite-link" data-testid="invite-link">${inviteLink}</output>
            <button type="button" class="secondary" data-copy="invite-link">Copy</button>
          </p>
        </div>`
      : '';
    const inviteForm = manage
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
          ${
            invitations.length
              ? html`<h3>Pending invitations</h3>
                  <ul class="plain">
                    ${invitations.map(
                      (i) =>
                        html`<li>
                          ${i.role}, created by
                          ${members.find((m) => m.userId === i.createdBy)?.email ?? 'a former member'},
                          expires ${formatTime(i.expiresAt)}
                          <form method="post" action="${link(`/invitations/${i.id}/delete`)}" class="inline">
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
                  </ul>`
              : ''
          }
        </section>`
      : html`<p class="hint">Only owners and admins invite and remove members.</p>`;
    return htmlReply(
      status,
      orgPage(
        org,
        'Members',
        html`<h1>Members</h1>
          ${shown} ${errorNote(error)} ${inviteForm}
          <section aria-labelledby="member-list">
            <h2 id="member-list">Members of ${org.organization.name}</h2>
            ${dataTable(['Email', 'Role', 'Joined', { hidden: 'Actions' }], rows)}
            <p class="hint">Removing a member also revokes the keys they created.</p>
          </section>`,
      ),
    );
  }

  async function invite(org: OrgContext): Promise<Reply> {
    if (!canManageOthers(org.membership.role))
      throw new ConsoleError(403, 'Only owners and admins can invite members.');
    const role = org.form.get('role') ?? 'member';
    if (!['owner', 'admin', 'member'].includes(role))
      return membersPage(org, undefined, 'Pick a role from the list.', 400);
    if (role === 'owner' && org.membership.role !== 'owner')
      throw new ConsoleError(403, 'Only owners can invite owners.');
    const { token } = await accounts.createInvitation({
      organizationId: org.organization.id,
      role: role as Role,
      createdBy: org.user.id,
      expiresAt: Date.now() + invitationTtlMs,
    });
    return membersPage(org, `${org.origin}${link(`/invite/${token}`)}`, undefined, 201);
  }

  async function removeMember(org: OrgContext, userId: string): Promise<Reply> {
    if (!canManageOthers(org.membership.role))
      throw new ConsoleError(403, 'Only owners and admins can remove members.');
    const target = await accounts.getMembership(org.organization.id, userId);
    if (!target) throw new ConsoleError(404, 'No such member.');
    if (target.role === 'owner' && org.membership.role !== 'owner')
      throw new ConsoleError(403, 'Only owners can remove owners.');
    const owners = (await accounts.listMembers(org.organization.id)).filter((m) => m.role === 'owner');
    if (target.role === 'owner' && owners.length <= 1)
      throw new ConsoleError(409, 'An organization keeps at least one owner.');
    // Their keys stop working first: a removed member must not keep spending the organization's credits.
    const creators = await accounts.keyCreators(org.organization.id);
    for (const [keyId, creator] of creators) if (creator === userId) await keys.revoke(keyId);
    await accounts.removeMembership(org.organization.id, userId);
    // Or they could come back through a link they made (created after this, it is refused when used).
    await cancelInvitationsBy(accounts, org.organization.id, userId);
    logger?.info({ event: 'console.member_removed', userId, by: org.user.id }, 'console: member removed');
    return redirect('/members');
  }

  async function deleteInvitation(org: OrgContext, invitationId: string): Promise<Reply> {
    if (!canManageOthers(org.membership.role))
      throw new ConsoleError(403, 'Only owners and admins manage invitations.');
    await accounts.deleteInvitation(org.organization.id, invitationId);
    return redirect('/members');
  }

  // ---------------------------------------------------------------------------------------------------
  // Usage

  async function usagePage(org: OrgContext): Promise<Reply> {
    await recorder.flush();
    const now = Date.now();
    const today = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate(),
    );
    const since = today - 29 * DAY;
    const [daily, perKey, ledger, keyRecords] = await Promise.all([
      usage.daily(org.organization.id, since, today + DAY),
      usage.perKey(org.organization.id, since),
      usage.ledger(org.organization.id, 50),
      keys.list(org.organization.id),
    ]);
    const names = new Map(keyRecords.map((k) => [k.id, `${k.name ?? '—'} (${k.prefix}…)`]));
    const byDay = new Map(daily.map((d) => [d.day, d]));
    const days = Array.from({ length: 30 }, (_, i) => {
      const day = new Date(since + i * DAY).toISOString().slice(0, 10);
      return byDay.get(day) ?? { day, searches: 0, credits: 0 };
    });
    const totalSearches = days.reduce((sum, d) => sum + d.searches, 0);
    const totalCredits = days.reduce((sum, d) => sum + d.credits, 0);
    return htmlReply(
      200,
      orgPage(
        org,
        'Usage',
        html`<h1>Usage</h1>
          ${await balanceOf(org)}
          <p>
            Last 30 days:
            <strong data-testid="searches-30-days">${totalSearches}</strong>
            ${totalSearches === 1 ? 'search' : 'searches'}, ${totalCredits}
            ${totalCredits === 1 ? 'credit' : 'credits'}.
          </p>
          <section class="card" aria-labelledby="chart-heading">
            <h2 id="chart-heading">Searches and credits per day</h2>
            ${chart(days)}
          </section>
          <section aria-labelledby="per-key-heading">
            <h2 id="per-key-heading">Per key (30 days)</h2>
            ${dataTable(
              ['Key', 'Searches', 'Credits', 'Last used'],
              perKey.map(
                (k) =>
                  html`<tr>
                    <td>${names.get(k.keyId) ?? k.keyId}</td>
                    <td>${k.searches}</td>
                    <td>${k.credits}</td>
                    <td>${formatTime(k.lastUsedAt)}</td>
                  </tr>`,
              ),
              'No searches yet.',
            )}
          </section>
          <section aria-labelledby="ledger-heading">
            <h2 id="ledger-heading">Ledger</h2>
            <p><a href="${link('/usage.csv')}" download>Download CSV</a> (every entry)</p>
            ${dataTable(
              ['Time', 'Entry', 'Credits', 'Key', 'Note'],
              ledger.map(
                (r) =>
                  html`<tr>
                    <td>${formatTime(r.at)}</td>
                    <td>${r.kind}</td>
                    <td>${signed(r)}</td>
                    <td>${r.keyId ? (names.get(r.keyId) ?? r.keyId) : ''}</td>
                    <td>${r.note ?? ''}</td>
                  </tr>`,
              ),
              'No entries yet.',
            )}
          </section>`,
      ),
    );
  }

  async function usageCsv(org: OrgContext): Promise<Reply> {
    await recorder.flush();
    const [ledger, keyRecords] = await Promise.all([
      usage.ledger(org.organization.id),
      keys.list(org.organization.id),
    ]);
    const names = new Map(keyRecords.map((k) => [k.id, k.name ?? '']));
    const lines = [
      ['time', 'entry', 'credits', 'key_id', 'key_name', 'note'],
      ...ledger.map((r) => [
        new Date(r.at).toISOString(),
        r.kind,
        signed(r),
        r.keyId ?? '',
        r.keyId ? (names.get(r.keyId) ?? '') : '',
        r.note ?? '',
      ]),
    ];
    return {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="citewise-usage-${org.organization.id}.csv"`,
        'cache-control': 'no-store',
      },
      body: lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n',
    };
  }

  // ---------------------------------------------------------------------------------------------------
  // Playground

  async function playgroundPage(org: OrgContext): Promise<Reply> {
    const now = Date.now();
    const active = (await keys.list(org.organization.id)).filter(
      (k) => k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now),
    );
    return htmlReply(
      200,
      orgPage(
        org,
        'Playground',
        html`<h1>Playground</h1>
          <p class="hint">
            Searches here are real: each one spends credits of ${org.organization.name} through the selected
            key.
          </p>
          ${
            active.length === 0
              ? html`<p>Create an API key first on the <a href="${link('/keys')}">API keys</a> page.</p>`
              : html`<form
                    id="playground"
                    class="stack card"
                    method="post"
                    action="${link('/playground/ask')}"
                  >
                    ${csrfField(org)}
                    <label for="pg-key">API key</label>
                    <select id="pg-key" name="key">
                      ${active.map((k) => html`<option value="${k.id}" data-prefix="${k.prefix}">${k.name ?? 'unnamed'} (${k.prefix}…)</option>`)}
                    </select>
                    <label for="pg-question">Question</label>
                    <textarea id="pg-question" name="prompt" rows="3" required maxlength="4000"></textarea>
                    <label for="pg-context">Earlier messages (optional, one per line)</label>
                    <textarea id="pg-context" name="context" rows="2" maxlength="20000"></textarea>
                    <label for="pg-type">Response type</label>
                    <select id="pg-type" name="response_type">
                      <option value="markdown">markdown</option>
                      <option value="text">text</option>
                    </select>
                    <div class="row">
                      <button type="submit">Ask</button>
                      <button type="button" class="secondary" id="copy-curl">Copy as curl</button>
                    </div>
                  </form>
                  <section aria-labelledby="answer-heading" class="card">
                    <h2 id="answer-heading">Answer</h2>
                    <p id="pg-status" role="status" class="muted"></p>
                    <div id="pg-answer" class="answer" data-testid="answer"></div>
                    <h3>Sources</h3>
                    <ol id="pg-sources" data-testid="sources"></ol>
                  </section>
                  <section aria-labelledby="curl-heading" class="card">
                    <h2 id="curl-heading">As curl</h2>
                    <p class="hint">
                      The key appears by its first characters only: put your full key in its place.
                    </p>
                    <pre id="pg-curl" data-testid="curl"></pre>
                  </section>`
          }`,
        true,
      ),
    );
  }

  /** Runs a playground search as the selected key, streaming the engine's events as server-sent events. */
  async function ask(org: OrgContext): Promise<Reply> {
    const keyId = org.form.get('key') ?? '';
    const now = Date.now();
    const record = (await keys.list(org.organization.id)).find(
      (k) => k.id === keyId && k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now),
    );
    if (!record) throw new ConsoleError(400, 'Pick an active key of this organization.');
    const context = (org.form.get('context') ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((content) => ({ role: 'user' as const, content }));
    const body = {
      prompt: org.form.get('prompt') ?? '',
      ...(context.length ? { context } : {}),
      response_type: org.form.get('response_type') ?? 'markdown',
    };
    const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;
    let events: AsyncIterable<unknown>;
    try {
      parseSearchRequest(body);
      events = await engine.searchStream(body as never, {
        apiKey: keys.mintPlaygroundKey(record),
        signal: org.request.signal,
      });
    } catch (thrown) {
      const error = toCitewiseError(thrown);
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' },
        body: sse({ type: 'error', status: error.status, error: errorBody(error).error }),
      };
    }
    async function* stream(): AsyncGenerator<string> {
      for await (const event of events) yield sse(event);
    }
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' },
      body: stream(),
    };
  }

  // ---------------------------------------------------------------------------------------------------
  // Operator

  async function operator(context: Context, user: UserRecord, path: string, get: boolean): Promise<Reply> {
    if (!user.operator) throw new ConsoleError(403, 'Only the instance operator can open this page.');
    const csrf = csrfToken(context.sessionToken!);
    if (!get) {
      let match: RegExpExecArray | null;
      if (path === '/operator/maintenance') {
        const on = context.form.get('maintenance') === 'on';
        await accounts.setSetting(MAINTENANCE_SETTING, on ? 'on' : 'off');
        engine.setMaintenance(on);
        lastMaintenance = on ? 'on' : 'off';
        logger?.info({ event: 'console.maintenance', on, by: user.id }, 'console: maintenance switched');
      } else if ((match = /^\/operator\/([^/]+)\/grant$/.exec(path))) {
        const amount = Number(context.form.get('credits'));
        if (!Number.isSafeInteger(amount) || amount < 1 || amount > 1e12)
          throw new ConsoleError(400, 'Grant a whole number of credits from 1.');
        if (!(await accounts.getOrganization(match[1]!)))
          throw new ConsoleError(404, 'No such organization.');
        await grantCredits(match[1]!, amount, `granted by ${user.email}`);
      } else if ((match = /^\/operator\/([^/]+)\/(suspend|reactivate)$/.exec(path))) {
        if (!(await accounts.setSuspended(match[1]!, match[2] === 'suspend')))
          throw new ConsoleError(404, 'No such organization.');
        await keys.refreshSuspended();
        logger?.info(
          { event: `console.${match[2]}`, organizationId: match[1], by: user.id },
          'console: organization status changed',
        );
      } else {
        throw new ConsoleError(404, 'This page does not exist.');
      }
      return redirect('/operator');
    }
    if (path !== '/operator') throw new ConsoleError(404, 'This page does not exist.');
    const organizations = await accounts.listOrganizations();
    const details = await Promise.all(
      organizations.map(async (o) => ({
        organization: o,
        credits: await credits.balance(o.id),
        members: (await accounts.listMembers(o.id)).length,
      })),
    );
    const maintenance = (await accounts.getSetting(MAINTENANCE_SETTING)) === 'on';
    const field = html`<input type="hidden" name="_csrf" value="${csrf}" />`;
    return htmlReply(
      200,
      page({
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
              details.map(
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
                    <td>
                      <form method="post" action="${link(`/operator/${o.id}/grant`)}" class="inline">
                        ${field}<label for="grant-${o.id}">Credits</label>
                        <input
                          id="grant-${o.id}"
                          name="credits"
                          type="number"
                          min="1"
                          step="1"
                          required
                          class="short"
                        />
                        <button type="submit" class="secondary" aria-label="Grant credits to ${o.name}">
                          Grant
                        </button>
                      </form>
                    </td>
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
          </section>`,
      }),
    );
  }

  async function grantCredits(organizationId: string, amount: number, note: string): Promise<void> {
    await credits.grant(organizationId, amount);
    recorder.record({
      at: Date.now(),
      accountId: organizationId,
      keyId: null,
      kind: 'grant',
      credits: amount,
      note,
    });
  }

  return {
    owns(path) {
      const clean = path.replace(/(.)\/+$/, '$1');
      return ROUTES.includes(clean) || PREFIXES.some((prefix) => clean.startsWith(prefix));
    },
    handle,
    async createSetupLink() {
      const token = newToken();
      await accounts.setSetting(SETUP_SETTING, `${hashToken(token)}:${Date.now() + DAY}`);
      return link(`/setup/${token}`);
    },
    async close() {
      clearInterval(poller);
      await recorder.flush();
    },
  };
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

function formatTime(time: number): string {
  return new Date(time).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

function signed(record: UsageRecord): string {
  if (record.kind === 'grant') return `+${record.credits}`;
  if (record.kind === 'charge') return `-${record.credits}`;
  return `0 (${record.credits} returned)`;
}

/**
 * A CSV cell, quoted, with formula-looking text defused (spreadsheets would run `=…`, `+…`, `-…`, `@…`):
 * a cell that starts with one of those, a tab or a carriage return gets a leading `'`, unless the whole
 * cell is a number (`-1`, `+1000`). `-1+HYPERLINK(…)` starts like a number but is a formula.
 */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^[-+]?\d+(?:\.\d+)?$/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** A bar chart of searches per day (SVG, no script), with the numbers in a table for screen readers. */
function chart(days: readonly { day: string; searches: number; credits: number }[]): Html {
  const max = Math.max(1, ...days.map((d) => d.searches));
  const width = 600;
  const height = 140;
  const barWidth = width / days.length;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${width} ${height + 20}" role="img" aria-label="Searches per day over the last 30 days">
      ${days.map((d, i) => {
        const barHeight = Math.round((d.searches / max) * height);
        return html`<rect
          x="${(i * barWidth + 2).toFixed(1)}"
          y="${height - barHeight}"
          width="${(barWidth - 4).toFixed(1)}"
          height="${barHeight}"
          class="bar"
          ><title>${d.day}: ${d.searches} searches, ${d.credits} credits</title></rect
        >`;
      })}
      <text x="0" y="${height + 16}" class="axis">${days[0]?.day ?? ''}</text>
      <text x="${width}" y="${height + 16}" class="axis" text-anchor="end">${days.at(-1)?.day ?? ''}</text>
    </svg>
    <details>
      <summary>Numbers per day</summary>
      ${dataTable(
        ['Day', 'Searches', 'Credits'],
        days
          .filter((d) => d.searches > 0)
          .map(
            (d) =>
              html`<tr>
                <td>${d.day}</td>
                <td>${d.searches}</td>
                <td>${d.credits}</td>
              </tr>`,
          ),
      )}
    </details>
  </figure>`;
}
