/**
 * The console: sign-up and sign-in, organization settings (API keys, members), usage and credits, a
 * playground and the operator's page. Server-rendered HTML with one small script (the playground and the
 * copy buttons), served next to `/v1` through the same adapters. It is a client of the engine's stores.
 *
 * The rooms: routes.ts (which handler answers a path), session.ts (who is asking: sessions, CSRF, sign-up
 * and sign-in), invitations.ts (invitation and operator setup links), organization.ts (keys, members,
 * usage, playground), operator.ts (the operator page, the maintenance switch) and views/ (the HTML).
 */
import { AUDIT_DEFAULTS, createAuditLog, type AuditLog } from './audit.ts';
import { createCreditsService } from '../engine/credits.ts';
import { FREE_CREDITS, type Logger, type SearchEngine } from '../engine/index.ts';
import type { ProtocolResponse } from '../http/handler.ts';
import { normalizePublicUrl } from '../pipeline/search/corpus-url.ts';
import type { BatchingUsageRecorder } from '../stores/usage-recorder.ts';
import type { AccountStore, UsageStore } from '../stores/account-types.ts';
import type { RateLimitOptions } from '../stores/types.ts';
import { html } from './html.ts';
import { createSetupLink } from './invitations.ts';
import { isConsoleKeyStore } from './keys.ts';
import { createMaintenanceSync } from './operator.ts';
import { PasswordHashingBusyError } from './passwords.ts';
import { createSignInThrottle, SIGN_IN_THROTTLE_DEFAULTS } from './sign-in-throttle.ts';
import type { SsoOptions } from './oidc.ts';
import { createSsoRuntime } from './sso.ts';
import { ownsPath, route } from './routes.ts';
import { ConsoleError, DAY, type ConsoleRequest, type ConsoleRuntime, type SignupPolicy } from './runtime.ts';
import { SECURITY_HEADERS } from './security.ts';
import { page } from './views/layout.ts';

export type { ConsoleRequest, SignupPolicy } from './runtime.ts';
export type { SsoOptions } from './oidc.ts';

/** Defaults of {@link ConsoleOptions}. */
export const CONSOLE_DEFAULTS = {
  signup: 'open',
  /** Credits of a new organization (the engine's free allowance). */
  freeCredits: FREE_CREDITS,
  trustProxy: false,
  basePath: '',
  /** 14 days. */
  sessionTtlMs: 14 * DAY,
  /** 7 days. */
  invitationTtlMs: 7 * DAY,
  signInLimitPerAccount: SIGN_IN_THROTTLE_DEFAULTS.perAccount,
  signInLimitPerAddress: SIGN_IN_THROTTLE_DEFAULTS.perAddress,
  signInLimitPerAddressAndAccount: SIGN_IN_THROTTLE_DEFAULTS.perAddressAndAccount,
  settingsPollMs: 5_000,
  auditRetentionDays: AUDIT_DEFAULTS.retentionDays,
} as const satisfies Readonly<Record<string, unknown>>;

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
  /**
   * The base URL people reach the service at (`citewise serve --public-url`), e.g.
   * `https://search.example.com`: every link the console hands out (invitations, password resets, the
   * operator's setup link) is built below it, never from a request's `Host` header. Without it, links use
   * the origin of the request that made them. @default undefined
   */
  readonly publicUrl?: string;
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
  /** Days the audit log keeps an entry; 0 keeps entries forever. @default 365 */
  readonly auditRetentionDays?: number;
  /**
   * Single sign-on with an OpenID Connect provider: a "Sign in with SSO" button on the sign-in page, the
   * callback at `<publicUrl><basePath>/sso/callback`. See docs/console.md. @default none (passwords only)
   */
  readonly sso?: SsoOptions;
}

/** The console. */
export interface Console {
  /** Whether `path` (relative to the mount point) is one of the console's. */
  owns(path: string): boolean;
  /** Handles one request for a path the console owns. Never throws. */
  handle(request: ConsoleRequest): Promise<ProtocolResponse>;
  /** Creates a one-time link that makes whoever opens it (signed in) the instance operator. */
  createSetupLink(): Promise<string>;
  /** The audit log (the SSO sign-in and other ways in record their events here too). */
  readonly audit: AuditLog;
  /** Stops the settings poller and flushes usage. */
  close(): Promise<void>;
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
  const defaults = CONSOLE_DEFAULTS;
  const signup = options.signup ?? defaults.signup;
  if (signup !== 'open' && signup !== 'invite-only')
    throw new TypeError('signup must be "open" or "invite-only"');
  const basePath = (options.basePath ?? defaults.basePath).replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) throw new TypeError('basePath must start with "/"');
  const logger = options.logger;
  const maintenance = createMaintenanceSync(
    engine,
    accounts,
    options.settingsPollMs ?? defaults.settingsPollMs,
    logger,
  );
  const rt: ConsoleRuntime = {
    engine,
    accounts,
    usage,
    recorder,
    keys: engine.stores.keys,
    // Grants (sign-up, the operator's) go through the credits service, which writes them to the ledger.
    credits: createCreditsService({ store: engine.stores.credits, ledger: recorder }),
    signup,
    signupDomains: (options.signupDomains ?? []).map((d) => d.trim().toLowerCase().replace(/^@/, '')),
    freeCredits: options.freeCredits ?? defaults.freeCredits,
    trustProxy: options.trustProxy ?? defaults.trustProxy,
    publicUrl: options.publicUrl === undefined ? undefined : normalizePublicUrl(options.publicUrl),
    sessionTtlMs: options.sessionTtlMs ?? defaults.sessionTtlMs,
    invitationTtlMs: options.invitationTtlMs ?? defaults.invitationTtlMs,
    signInThrottle: createSignInThrottle({
      perAccount: options.signInLimitPerAccount ?? defaults.signInLimitPerAccount,
      perAddress: options.signInLimitPerAddress ?? defaults.signInLimitPerAddress,
      perAddressAndAccount:
        options.signInLimitPerAddressAndAccount ?? defaults.signInLimitPerAddressAndAccount,
    }),
    maintenance,
    logger,
    audit: createAuditLog(accounts, {
      retentionDays: options.auditRetentionDays ?? defaults.auditRetentionDays,
      logger,
    }),
    basePath,
    link: (path) => `${basePath}${path}`,
    sso: options.sso ? createSsoRuntime(options.sso, basePath) : null,
  };

  /** Every request: its route's reply with the security headers, or the error page. Never throws. */
  async function handle(request: ConsoleRequest): Promise<ProtocolResponse> {
    try {
      const response = await route(rt, request);
      return { ...response, headers: { ...SECURITY_HEADERS, ...response.headers } };
    } catch (caught) {
      const thrown = caught instanceof PasswordHashingBusyError ? busyError(caught) : caught;
      const known = thrown instanceof ConsoleError;
      if (!known) logger?.error({ err: thrown }, 'console: request failed');
      return {
        status: known ? thrown.status : 500,
        headers: {
          ...(known ? thrown.headers : {}),
          ...SECURITY_HEADERS,
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
        },
        body: page(rt, {
          title: 'Error',
          user: null,
          body: html`<h1>Error</h1>
            <p role="alert">
              ${known ? thrown.message : 'Something went wrong on our side. Please try again.'}
            </p>`,
        }).value,
      };
    }
  }

  return {
    owns: ownsPath,
    handle,
    createSetupLink: () => createSetupLink(rt),
    audit: rt.audit,
    async close() {
      maintenance.close();
      await recorder.flush();
    },
  };
}
