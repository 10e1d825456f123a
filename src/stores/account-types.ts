/**
 * Store interfaces of the console: accounts (users, organizations, memberships, invitations, sessions,
 * instance settings) and usage (one record per search, and the credit ledger). Implementations: memory,
 * SQLite and PostgreSQL; each passes the conformance suites `describeAccountStore` and `describeUsageStore`
 * of `citewise/testing`.
 *
 * Secrets are never stored in the clear: session and invitation tokens are kept as SHA-256 hashes and
 * passwords as scrypt hashes made by the console (the store only keeps the string it is given).
 * Times are epoch milliseconds.
 */
import type { AuditStore } from './audit.ts';

export type * from './audit.ts';

/** A person who signs in to the console. */
export interface UserRecord {
  readonly id: string;
  /** Lower-cased; unique. */
  readonly email: string;
  /** The password hash string made by the console (`scrypt$…`); never the password. */
  readonly passwordHash: string;
  /** Instance operator: may list organizations, grant credits, suspend, toggle maintenance. */
  readonly operator: boolean;
  readonly createdAt: number;
}

/** An organization: its id is also the credit account its API keys spend from. */
export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  /** When an operator suspended it (its keys get 401); `null` = active. */
  readonly suspendedAt: number | null;
}

/** Roles, most powerful first. Owners and admins manage members and the keys of others. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface MembershipRecord {
  readonly organizationId: string;
  readonly userId: string;
  readonly role: Role;
  readonly createdAt: number;
}

/** A membership with the member's email (member lists). */
export interface MemberView extends MembershipRecord {
  readonly email: string;
}

/** A membership with its organization's name (a user's organizations). */
export interface UserOrganizationView extends MembershipRecord {
  readonly organizationName: string;
}

/** An invitation link to join an organization with a role. The token itself is returned only at creation. */
export interface InvitationRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly role: Role;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** When it was used (an invitation works once); `null` = pending. */
  readonly acceptedAt: number | null;
}

/** A signed-in browser. The token is in the cookie; the store keeps its hash. */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Accounts of the console. Every method is atomic on its own. */
export interface AccountStore extends AuditStore {
  /** Creates a user; returns `null` when the email is taken (compared lower-cased). */
  createUser(input: { email: string; passwordHash: string; operator?: boolean }): Promise<UserRecord | null>;
  getUser(id: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** Replaces the password hash; returns `false` for an unknown user. */
  setPasswordHash(userId: string, passwordHash: string): Promise<boolean>;
  /** Grants or removes the operator flag; returns `false` for an unknown user. */
  setOperator(userId: string, operator: boolean): Promise<boolean>;
  /** Whether any user is an operator. */
  hasOperator(): Promise<boolean>;

  createOrganization(input: { name: string }): Promise<OrganizationRecord>;
  getOrganization(id: string): Promise<OrganizationRecord | null>;
  /** Every organization, oldest first. */
  listOrganizations(): Promise<OrganizationRecord[]>;
  /** Suspends (`true`) or reactivates an organization; returns `false` when unknown. */
  setSuspended(organizationId: string, suspended: boolean): Promise<boolean>;
  /** Ids of the suspended organizations (read often: keep it one query). */
  suspendedOrganizationIds(): Promise<string[]>;

  /** Adds a member, or changes the role of an existing one. */
  putMembership(input: { organizationId: string; userId: string; role: Role }): Promise<MembershipRecord>;
  getMembership(organizationId: string, userId: string): Promise<MembershipRecord | null>;
  /** Returns `false` when the user was not a member. */
  removeMembership(organizationId: string, userId: string): Promise<boolean>;
  /** Members of an organization, oldest first. */
  listMembers(organizationId: string): Promise<MemberView[]>;
  /** Organizations of a user, oldest membership first. */
  listUserOrganizations(userId: string): Promise<UserOrganizationView[]>;

  /** Creates an invitation; the raw `token` is returned only here. */
  createInvitation(input: {
    organizationId: string;
    role: Role;
    createdBy: string;
    expiresAt: number;
  }): Promise<{ token: string; invitation: InvitationRecord }>;
  /** The pending, unexpired invitation of a raw token, or `null`. */
  findInvitation(token: string): Promise<InvitationRecord | null>;
  /**
   * Uses a pending, unexpired invitation: marks it accepted and makes `userId` a member (an existing
   * member keeps the higher of the two roles). Exactly one concurrent caller wins; others get `null`.
   */
  acceptInvitation(token: string, userId: string): Promise<MembershipRecord | null>;
  /** Pending (unaccepted, unexpired) invitations of an organization. */
  listInvitations(organizationId: string): Promise<InvitationRecord[]>;
  /** Deletes a pending invitation of the organization; returns `false` when none. */
  deleteInvitation(organizationId: string, invitationId: string): Promise<boolean>;

  /** Starts a session; the raw `token` (for the cookie) is returned only here. */
  createSession(input: {
    userId: string;
    expiresAt: number;
  }): Promise<{ token: string; session: SessionRecord }>;
  /** The unexpired session of a raw token, or `null`. */
  findSession(token: string): Promise<SessionRecord | null>;
  /** Ends one session; returns `false` if it did not exist. */
  deleteSession(token: string): Promise<boolean>;
  /** Ends every session of a user (after a password change); returns how many. */
  deleteUserSessions(userId: string): Promise<number>;

  /** Which console user created an API key (keys made elsewhere have none). */
  recordKeyCreator(input: { keyId: string; organizationId: string; userId: string }): Promise<void>;
  /** Key id → creating user id, for the keys of one organization. */
  keyCreators(organizationId: string): Promise<Map<string, string>>;

  /** An instance-wide setting (e.g. maintenance), or `null`. */
  getSetting(name: string): Promise<string | null>;
  /** Sets (or with `null` removes) an instance-wide setting. */
  setSetting(name: string, value: string | null): Promise<void>;
  close?(): Promise<void>;
}

/** Kinds of usage records: a search settled (charged or refunded), or credits granted. */
export type UsageKind = 'charge' | 'refund' | 'grant';

/** One usage record: a settled search or a grant. Appended, never changed. */
export interface UsageRecord {
  readonly at: number;
  /** The organization (credit account). */
  readonly accountId: string;
  /** The API key of a search; `null` for grants. */
  readonly keyId: string | null;
  readonly kind: UsageKind;
  /** Credits: spent by a charge, returned by a refund, added by a grant. Non-negative. */
  readonly credits: number;
  /** A short note, e.g. `sign-up` or `granted by ops@example.com`. */
  readonly note: string | null;
}

/** Searches and credits of one UTC day. */
export interface DailyUsage {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  /** Searches charged that day. */
  readonly searches: number;
  /** Credits charged that day. */
  readonly credits: number;
}

/** Searches and credits of one key. */
export interface KeyUsage {
  readonly keyId: string;
  readonly searches: number;
  readonly credits: number;
  /** Time of the key's last search (charged or refunded). */
  readonly lastUsedAt: number;
}

/** Usage records per organization. Appends come in batches (see `createUsageRecorder`). */
export interface UsageStore {
  /** Appends records (one transaction per call). */
  append(records: readonly UsageRecord[]): Promise<void>;
  /** Days with charged searches in `[since, until)`, oldest first; days without any are left out. */
  daily(accountId: string, since: number, until: number): Promise<DailyUsage[]>;
  /** Usage per key since `since` (all time with 0), most recently used first. */
  perKey(accountId: string, since: number): Promise<KeyUsage[]>;
  /** Records of the account, newest first; at most `limit` (all when omitted). */
  ledger(accountId: string, limit?: number): Promise<UsageRecord[]>;
  close?(): Promise<void>;
}

/** A settled search, as the engine reports it to its optional `usage` recorder. */
export interface SearchUsage {
  readonly accountId: string;
  readonly keyId: string;
  /** `charge` when the search was charged, `refund` when its credits were returned. */
  readonly kind: 'charge' | 'refund';
  readonly credits: number;
}

/** Credits added to an account (opened with an allowance, or granted), as the credits service reports it. */
export interface GrantUsage {
  readonly accountId: string;
  readonly credits: number;
  /** Why, e.g. `sign-up` or `granted by ops@example.com`. */
  readonly note: string;
}

/**
 * The ledger as the credits service writes it: settled searches and grants. Must return at once (the
 * search does not wait for it).
 */
export interface UsageRecorder {
  recordSearch(usage: SearchUsage): void;
  /** Credits added to an account; a recorder without it keeps searches only. */
  recordGrant?(grant: GrantUsage): void;
}
