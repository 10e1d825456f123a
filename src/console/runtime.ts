/**
 * What every module of the console works with: the {@link ConsoleRuntime} (the engine, the stores, the
 * credits service and the resolved options), a request's {@link Context}, the console's error, and the two
 * kinds of reply (a page, a redirect). Built once by {@link createConsole} (app.ts).
 */
import type { AuditLog } from './audit.ts';
import type { CreditsService } from '../engine/credits.ts';
import type { Logger, SearchEngine } from '../engine/index.ts';
import type { ProtocolRequest, ProtocolResponse } from '../http/handler.ts';
import type { BatchingUsageRecorder } from '../stores/usage-recorder.ts';
import type {
  AccountStore,
  MembershipRecord,
  OrganizationRecord,
  UsageStore,
  UserRecord,
} from '../stores/account-types.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';
import type { SsoRuntime } from './sso.ts';
import type { Html } from './html.ts';
import type { ConsoleKeyStore } from './keys.ts';
import { cookie, ORGANIZATION_COOKIE } from './security.ts';

/** Who may sign up without an invitation. */
export type SignupPolicy = 'open' | 'invite-only';

/** A request to the console: the protocol request plus the client's address (for throttling). */
export interface ConsoleRequest extends ProtocolRequest {
  /** The TCP peer address. */
  readonly remoteAddress?: string;
  /** Whether the connection itself is TLS. */
  readonly encrypted?: boolean;
}

/** Where the console is mounted: what every page's links need. */
export interface ConsolePaths {
  /** The mount path without a trailing slash, e.g. `/console`; `''` at the root. */
  readonly basePath: string;
  /** A console path below the mount point: `link('/keys')` → `/console/keys`. */
  readonly link: (path: string) => string;
}

/** The console's engine, stores and resolved options, shared by its modules. */
export interface ConsoleRuntime extends ConsolePaths {
  readonly engine: SearchEngine;
  readonly accounts: AccountStore;
  readonly usage: UsageStore;
  /** The usage recorder (the ledger's writer); pages that read usage flush it first. */
  readonly recorder: BatchingUsageRecorder;
  readonly keys: ConsoleKeyStore;
  /** Grants (sign-up, the operator's), written to the ledger. */
  readonly credits: CreditsService;
  readonly signup: SignupPolicy;
  /** Lower-case email domains sign-up is limited to; empty: any. */
  readonly signupDomains: readonly string[];
  readonly freeCredits: number;
  readonly trustProxy: boolean;
  /** The console's public base URL (`publicUrl`), without a trailing slash; `undefined`: the request's. */
  readonly publicUrl: string | undefined;
  readonly sessionTtlMs: number;
  readonly invitationTtlMs: number;
  /** Sign-in and sign-up attempts per email and per client address. */
  /** Sign-in and sign-up throttling (sign-in-throttle.ts). */
  readonly signInThrottle: SignInThrottle;
  /** Switches maintenance on every instance (operator.ts). */
  readonly maintenance: { set(on: boolean): Promise<void> };
  readonly logger: Logger | undefined;
  /** The audit log: who did what (see audit.ts). */
  readonly audit: AuditLog;
  /** Single sign-on (sso.ts), or `null` without it. */
  readonly sso: SsoRuntime | null;
}

/** One day in ms. */
export const DAY = 86_400_000;

/** A page's outcome: HTML with a status, or a redirect. */
export type Reply = ProtocolResponse;

/** A request as the handlers see it: its session, its form, where it came from. */
export interface Context {
  readonly request: ConsoleRequest;
  readonly form: URLSearchParams;
  readonly sessionToken: string | null;
  readonly user: UserRecord | null;
  readonly secure: boolean;
  readonly origin: string;
  readonly clientAddress: string;
}

/** A signed-in request within the organization the user picked. */
export interface OrgContext extends Context {
  readonly user: UserRecord;
  readonly sessionToken: string;
  readonly organization: OrganizationRecord;
  readonly membership: MembershipRecord;
  readonly organizations: { id: string; name: string }[];
}

/** A failure shown to the user as an error page with this status and message. */
export class ConsoleError extends Error {
  readonly status: number;
  /** Headers of the error page, e.g. `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/**
 * The absolute URL of a console path, for a link handed to someone (invitation, reset, setup): below the
 * configured public URL when there is one, never a `Host` header's; else below the origin of the request.
 */
export function absoluteLink(rt: ConsoleRuntime, context: Pick<Context, 'origin'>, path: string): string {
  return `${rt.publicUrl ?? context.origin}${rt.link(path)}`;
}

/** A 303 to a console path. */
export function redirect(paths: ConsolePaths, to: string, headers: Record<string, string> = {}): Reply {
  return {
    status: 303,
    headers: { location: paths.link(to), 'cache-control': 'no-store', ...headers },
    body: '',
  };
}

/** A page. */
export function htmlReply(status: number, markup: Html, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: markup.value,
  };
}

/** The cookie that picks the organization shown (a year). */
export function organizationCookie(
  paths: ConsolePaths,
  context: Context,
  organizationId: string,
): Record<string, string> {
  return {
    'set-cookie': cookie(ORGANIZATION_COOKIE, organizationId, {
      path: paths.basePath || '/',
      maxAgeSeconds: 365 * 86_400,
      secure: context.secure,
    }),
  };
}
