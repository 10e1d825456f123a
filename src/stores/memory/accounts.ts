/**
 * In-memory account and usage stores: the library default of the console, and the reference the
 * conformance suites are written against. Everything is lost on restart.
 */
import { createMemoryAuditLog } from './audit.ts';
import { assertId, normalizeClock } from '../validation.ts';
import {
  assertRole,
  assertTime,
  assertUsageRecords,
  hashToken,
  higherRole,
  looksLikeToken,
  mintInvitation,
  newId,
  newToken,
  normalizeEmail,
  utcDay,
} from '../account-common.ts';
import type {
  AccountStore,
  DailyUsage,
  InvitationRecord,
  KeyUsage,
  MembershipRecord,
  OrganizationRecord,
  SessionRecord,
  UsageRecord,
  UsageStore,
  UserRecord,
} from '../account-types.ts';

/** Options of the memory stores. */
export interface MemoryAccountStoreOptions {
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** Creates an {@link AccountStore} in process memory. */
export function createMemoryAccountStore(options: MemoryAccountStoreOptions = {}): AccountStore {
  const now = normalizeClock(options.now);
  const users = new Map<string, UserRecord>();
  const organizations = new Map<string, OrganizationRecord>();
  const memberships = new Map<string, MembershipRecord>(); // `${org} ${user}`
  const invitations = new Map<string, InvitationRecord & { hash: string }>();
  const sessions = new Map<string, SessionRecord>(); // by token hash
  const keyCreators = new Map<string, { organizationId: string; userId: string }>();
  const settings = new Map<string, string>();
  const memberKey = (organizationId: string, userId: string) => `${organizationId} ${userId}`;

  const store: AccountStore = {
    ...createMemoryAuditLog(now),
    async createUser({ email, passwordHash, operator = false }) {
      const normalized = normalizeEmail(email);
      assertId(passwordHash, 'passwordHash');
      for (const user of users.values()) if (user.email === normalized) return null;
      const user: UserRecord = {
        id: newId('usr'),
        email: normalized,
        passwordHash,
        operator,
        createdAt: now(),
      };
      users.set(user.id, user);
      return { ...user };
    },
    async getUser(id) {
      assertId(id, 'user id');
      const user = users.get(id);
      return user ? { ...user } : null;
    },
    async findUserByEmail(email) {
      const normalized = normalizeEmail(email);
      for (const user of users.values()) if (user.email === normalized) return { ...user };
      return null;
    },
    async setPasswordHash(userId, passwordHash) {
      assertId(passwordHash, 'passwordHash');
      const user = users.get(userId);
      if (!user) return false;
      users.set(userId, { ...user, passwordHash });
      return true;
    },
    async setOperator(userId, operator) {
      const user = users.get(userId);
      if (!user) return false;
      users.set(userId, { ...user, operator });
      return true;
    },
    async hasOperator() {
      return [...users.values()].some((user) => user.operator);
    },

    async createOrganization({ name }) {
      assertId(name, 'organization name');
      const organization: OrganizationRecord = {
        id: newId('org'),
        name,
        createdAt: now(),
        suspendedAt: null,
      };
      organizations.set(organization.id, organization);
      return { ...organization };
    },
    async getOrganization(id) {
      assertId(id, 'organization id');
      const organization = organizations.get(id);
      return organization ? { ...organization } : null;
    },
    async listOrganizations() {
      return [...organizations.values()].map((organization) => ({ ...organization }));
    },
    async setSuspended(organizationId, suspended) {
      const organization = organizations.get(organizationId);
      if (!organization) return false;
      const suspendedAt = suspended ? (organization.suspendedAt ?? now()) : null;
      organizations.set(organizationId, { ...organization, suspendedAt });
      return true;
    },
    async suspendedOrganizationIds() {
      return [...organizations.values()].filter((o) => o.suspendedAt !== null).map((o) => o.id);
    },

    async putMembership({ organizationId, userId, role }) {
      assertId(organizationId, 'organization id');
      assertId(userId, 'user id');
      assertRole(role);
      const existing = memberships.get(memberKey(organizationId, userId));
      const membership: MembershipRecord = {
        organizationId,
        userId,
        role,
        createdAt: existing?.createdAt ?? now(),
      };
      memberships.set(memberKey(organizationId, userId), membership);
      return { ...membership };
    },
    async getMembership(organizationId, userId) {
      const membership = memberships.get(memberKey(organizationId, userId));
      return membership ? { ...membership } : null;
    },
    async removeMembership(organizationId, userId) {
      return memberships.delete(memberKey(organizationId, userId));
    },
    async listMembers(organizationId) {
      return [...memberships.values()]
        .filter((m) => m.organizationId === organizationId)
        .map((m) => ({ ...m, email: users.get(m.userId)?.email ?? '' }));
    },
    async listUserOrganizations(userId) {
      return [...memberships.values()]
        .filter((m) => m.userId === userId)
        .map((m) => ({ ...m, organizationName: organizations.get(m.organizationId)?.name ?? '' }));
    },

    async createInvitation(input) {
      const { token, tokenHash, invitation } = mintInvitation(input, now());
      invitations.set(invitation.id, { ...invitation, hash: tokenHash });
      return { token, invitation };
    },
    async findInvitation(token) {
      const found = pendingByToken(token);
      return found ? withoutHash(found) : null;
    },
    async acceptInvitation(token, userId) {
      assertId(userId, 'user id');
      const found = pendingByToken(token);
      if (!found) return null;
      invitations.set(found.id, { ...found, acceptedAt: now() });
      const existing = memberships.get(memberKey(found.organizationId, userId));
      return store.putMembership({
        organizationId: found.organizationId,
        userId,
        role: existing ? higherRole(existing.role, found.role) : found.role,
      });
    },
    async listInvitations(organizationId) {
      const time = now();
      return [...invitations.values()]
        .filter((i) => i.organizationId === organizationId && i.acceptedAt === null && i.expiresAt > time)
        .map(withoutHash);
    },
    async deleteInvitation(organizationId, invitationId) {
      const found = invitations.get(invitationId);
      if (!found || found.organizationId !== organizationId || found.acceptedAt !== null) return false;
      return invitations.delete(invitationId);
    },

    async createSession({ userId, expiresAt }) {
      assertId(userId, 'user id');
      assertTime(expiresAt, 'expiresAt');
      const token = newToken();
      const session: SessionRecord = { id: newId('ses'), userId, createdAt: now(), expiresAt };
      sessions.set(hashToken(token), session);
      return { token, session: { ...session } };
    },
    async findSession(token) {
      if (!looksLikeToken(token)) return null;
      const session = sessions.get(hashToken(token));
      return session && session.expiresAt > now() ? { ...session } : null;
    },
    async deleteSession(token) {
      if (!looksLikeToken(token)) return false;
      return sessions.delete(hashToken(token));
    },
    async deleteUserSessions(userId) {
      let count = 0;
      for (const [hash, session] of sessions) {
        if (session.userId === userId) {
          sessions.delete(hash);
          count++;
        }
      }
      return count;
    },

    async recordKeyCreator({ keyId, organizationId, userId }) {
      assertId(keyId, 'key id');
      keyCreators.set(keyId, { organizationId, userId });
    },
    async keyCreators(organizationId) {
      const out = new Map<string, string>();
      for (const [keyId, owner] of keyCreators)
        if (owner.organizationId === organizationId) out.set(keyId, owner.userId);
      return out;
    },

    async getSetting(name) {
      assertId(name, 'setting name');
      return settings.get(name) ?? null;
    },
    async setSetting(name, value) {
      assertId(name, 'setting name');
      if (value === null) settings.delete(name);
      else settings.set(name, value);
    },
    async close() {},
  };

  function pendingByToken(token: string) {
    if (!looksLikeToken(token)) return undefined;
    const hash = hashToken(token);
    const time = now();
    for (const invitation of invitations.values()) {
      if (invitation.hash === hash && invitation.acceptedAt === null && invitation.expiresAt > time)
        return invitation;
    }
    return undefined;
  }
  return store;
}

function withoutHash({ hash: _hash, ...invitation }: InvitationRecord & { hash: string }): InvitationRecord {
  return invitation;
}

/** Creates a {@link UsageStore} in process memory (it grows with every search: for tests and demos). */
export function createMemoryUsageStore(): UsageStore {
  const records: UsageRecord[] = [];
  return {
    async append(batch) {
      assertUsageRecords(batch);
      for (const record of batch) records.push({ ...record });
    },
    async daily(accountId, since, until) {
      const days = new Map<string, { searches: number; credits: number }>();
      for (const r of records) {
        if (r.accountId !== accountId || r.kind !== 'charge' || r.at < since || r.at >= until) continue;
        const day = days.get(utcDay(r.at)) ?? { searches: 0, credits: 0 };
        day.searches++;
        day.credits += r.credits;
        days.set(utcDay(r.at), day);
      }
      return [...days]
        .map(([day, totals]): DailyUsage => ({ day, ...totals }))
        .sort((a, b) => a.day.localeCompare(b.day));
    },
    async perKey(accountId, since) {
      const keys = new Map<string, { searches: number; credits: number; lastUsedAt: number }>();
      for (const r of records) {
        if (r.accountId !== accountId || r.keyId === null || r.kind === 'grant' || r.at < since) continue;
        const key = keys.get(r.keyId) ?? { searches: 0, credits: 0, lastUsedAt: 0 };
        if (r.kind === 'charge') {
          key.searches++;
          key.credits += r.credits;
        }
        key.lastUsedAt = Math.max(key.lastUsedAt, r.at);
        keys.set(r.keyId, key);
      }
      return [...keys]
        .map(([keyId, totals]): KeyUsage => ({ keyId, ...totals }))
        .sort((a, b) => b.lastUsedAt - a.lastUsedAt);
    },
    async ledger(accountId, limit) {
      const out = records.filter((r) => r.accountId === accountId).reverse();
      return (limit === undefined ? out : out.slice(0, limit)).map((r) => ({ ...r }));
    },
    async close() {},
  };
}
