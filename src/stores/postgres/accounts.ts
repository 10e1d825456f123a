/**
 * PostgreSQL account and usage stores (schema migration 3): sessions, keys' creators and settings are
 * shared by every instance on the same database, so a user signed in on one instance is signed in on all.
 */
import { createPostgresAuditLog } from './audit.ts';
import {
  openPostgresConnection,
  toNumber,
  type PostgresConnection,
  type PostgresConnectionOptions,
} from './connection.ts';
import { assertId } from '../validation.ts';
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
} from '../account-common.ts';
import type {
  AccountStore,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
  Role,
  UsageRecord,
  UsageStore,
  UserRecord,
} from '../account-types.ts';

/** Options of the PostgreSQL console stores: the connection options of `citewise/postgres`. */
export type PostgresAccountStoreOptions = PostgresConnectionOptions;

type Row = Record<string, unknown>;
const num = (value: unknown): number => toNumber(value);
const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : toNumber(value);

const user = (r: Row): UserRecord => ({
  id: r['id'] as string,
  email: r['email'] as string,
  passwordHash: r['password_hash'] as string,
  operator: r['operator'] === true,
  createdAt: num(r['created_at']),
});
const organization = (r: Row): OrganizationRecord => ({
  id: r['id'] as string,
  name: r['name'] as string,
  createdAt: num(r['created_at']),
  suspendedAt: numOrNull(r['suspended_at']),
});
const membership = (r: Row): MembershipRecord => ({
  organizationId: r['organization_id'] as string,
  userId: r['user_id'] as string,
  role: r['role'] as Role,
  createdAt: num(r['created_at']),
});
const invitation = (r: Row): InvitationRecord => ({
  id: r['id'] as string,
  organizationId: r['organization_id'] as string,
  role: r['role'] as Role,
  createdBy: r['created_by'] as string,
  createdAt: num(r['created_at']),
  expiresAt: num(r['expires_at']),
  acceptedAt: numOrNull(r['accepted_at']),
});
const INVITATION = 'id, organization_id, role, created_by, created_at, expires_at, accepted_at';

/** Creates an {@link AccountStore} in PostgreSQL. */
export function createPostgresAccountStore(options: PostgresAccountStoreOptions): AccountStore {
  return buildPostgresAccountStore(openPostgresConnection(options), true);
}

/** @internal Builds the account store on an open connection. */
export function buildPostgresAccountStore(
  connection: PostgresConnection,
  ownsConnection: boolean,
): AccountStore {
  const { schema: s } = connection;
  const now = () => Date.now();
  const rows = async (sql: string, params: unknown[] = []) => (await connection.query<Row>(sql, params)).rows;
  const count = async (sql: string, params: unknown[] = []) =>
    (await connection.query(sql, params)).rowCount ?? 0;

  const store: AccountStore = {
    ...createPostgresAuditLog(connection),
    async createUser({ email, passwordHash, operator = false }) {
      const normalized = normalizeEmail(email);
      assertId(passwordHash, 'passwordHash');
      const [row] = await rows(
        `INSERT INTO ${s}.console_users (id, email, password_hash, operator, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING *`,
        [newId('usr'), normalized, passwordHash, operator, now()],
      );
      return row ? user(row) : null;
    },
    async getUser(id) {
      assertId(id, 'user id');
      const [row] = await rows(`SELECT * FROM ${s}.console_users WHERE id = $1`, [id]);
      return row ? user(row) : null;
    },
    async findUserByEmail(email) {
      const [row] = await rows(`SELECT * FROM ${s}.console_users WHERE email = $1`, [normalizeEmail(email)]);
      return row ? user(row) : null;
    },
    async setPasswordHash(userId, passwordHash) {
      assertId(passwordHash, 'passwordHash');
      return (
        (await count(`UPDATE ${s}.console_users SET password_hash = $2 WHERE id = $1`, [
          userId,
          passwordHash,
        ])) === 1
      );
    },
    async setOperator(userId, operator) {
      return (
        (await count(`UPDATE ${s}.console_users SET operator = $2 WHERE id = $1`, [userId, operator])) === 1
      );
    },
    async hasOperator() {
      return (await rows(`SELECT 1 FROM ${s}.console_users WHERE operator LIMIT 1`)).length > 0;
    },

    async createOrganization({ name }) {
      assertId(name, 'organization name');
      const [row] = await rows(
        `INSERT INTO ${s}.console_organizations (id, name, created_at) VALUES ($1, $2, $3) RETURNING *`,
        [newId('org'), name, now()],
      );
      return organization(row!);
    },
    async getOrganization(id) {
      assertId(id, 'organization id');
      const [row] = await rows(`SELECT * FROM ${s}.console_organizations WHERE id = $1`, [id]);
      return row ? organization(row) : null;
    },
    async listOrganizations() {
      return (await rows(`SELECT * FROM ${s}.console_organizations ORDER BY seq`)).map(organization);
    },
    async setSuspended(organizationId, suspended) {
      const sql = suspended
        ? `UPDATE ${s}.console_organizations SET suspended_at = COALESCE(suspended_at, $2) WHERE id = $1`
        : `UPDATE ${s}.console_organizations SET suspended_at = NULL WHERE id = $1`;
      return (await count(sql, suspended ? [organizationId, now()] : [organizationId])) === 1;
    },
    async suspendedOrganizationIds() {
      return (await rows(`SELECT id FROM ${s}.console_organizations WHERE suspended_at IS NOT NULL`)).map(
        (r) => r['id'] as string,
      );
    },

    async putMembership({ organizationId, userId, role }) {
      assertId(organizationId, 'organization id');
      assertId(userId, 'user id');
      assertRole(role);
      const [row] = await rows(
        `INSERT INTO ${s}.console_memberships (organization_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role RETURNING *`,
        [organizationId, userId, role, now()],
      );
      return membership(row!);
    },
    async getMembership(organizationId, userId) {
      const [row] = await rows(
        `SELECT * FROM ${s}.console_memberships WHERE organization_id = $1 AND user_id = $2`,
        [organizationId, userId],
      );
      return row ? membership(row) : null;
    },
    async removeMembership(organizationId, userId) {
      const sql = `DELETE FROM ${s}.console_memberships WHERE organization_id = $1 AND user_id = $2`;
      return (await count(sql, [organizationId, userId])) === 1;
    },
    async listMembers(organizationId) {
      return (
        await rows(
          `SELECT m.*, u.email FROM ${s}.console_memberships m JOIN ${s}.console_users u ON u.id = m.user_id
           WHERE m.organization_id = $1 ORDER BY m.seq`,
          [organizationId],
        )
      ).map((r) => ({ ...membership(r), email: r['email'] as string }));
    },
    async listUserOrganizations(userId) {
      return (
        await rows(
          `SELECT m.*, o.name FROM ${s}.console_memberships m
           JOIN ${s}.console_organizations o ON o.id = m.organization_id WHERE m.user_id = $1 ORDER BY m.seq`,
          [userId],
        )
      ).map((r) => ({ ...membership(r), organizationName: r['name'] as string }));
    },

    async createInvitation(input) {
      const { token, tokenHash, invitation: i } = mintInvitation(input, now());
      const [row] = await rows(
        `INSERT INTO ${s}.console_invitations (id, token_hash, organization_id, role, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${INVITATION}`,
        [i.id, tokenHash, i.organizationId, i.role, i.createdBy, i.createdAt, i.expiresAt],
      );
      return { token, invitation: invitation(row!) };
    },
    async findInvitation(token) {
      if (!looksLikeToken(token)) return null;
      const [row] = await rows(
        `SELECT ${INVITATION} FROM ${s}.console_invitations
         WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2`,
        [hashToken(token), now()],
      );
      return row ? invitation(row) : null;
    },
    async acceptInvitation(token, userId) {
      assertId(userId, 'user id');
      if (!looksLikeToken(token)) return null;
      const time = now();
      // The conditional UPDATE is the once-only check: a second concurrent accept finds accepted_at set.
      const [row] = await rows(
        `UPDATE ${s}.console_invitations SET accepted_at = $3
         WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2 RETURNING ${INVITATION}`,
        [hashToken(token), time, time],
      );
      if (!row) return null;
      const accepted = invitation(row);
      const existing = await store.getMembership(accepted.organizationId, userId);
      return store.putMembership({
        organizationId: accepted.organizationId,
        userId,
        role: existing ? higherRole(existing.role, accepted.role) : accepted.role,
      });
    },
    async listInvitations(organizationId) {
      return (
        await rows(
          `SELECT ${INVITATION} FROM ${s}.console_invitations
           WHERE organization_id = $1 AND accepted_at IS NULL AND expires_at > $2 ORDER BY seq`,
          [organizationId, now()],
        )
      ).map(invitation);
    },
    async deleteInvitation(organizationId, invitationId) {
      const sql = `DELETE FROM ${s}.console_invitations WHERE id = $1 AND organization_id = $2 AND accepted_at IS NULL`;
      return (await count(sql, [invitationId, organizationId])) === 1;
    },

    async createSession({ userId, expiresAt }) {
      assertId(userId, 'user id');
      assertTime(expiresAt, 'expiresAt');
      const token = newToken();
      const session = { id: newId('ses'), userId, createdAt: now(), expiresAt: Math.ceil(expiresAt) };
      await count(
        `INSERT INTO ${s}.console_sessions (token_hash, id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [hashToken(token), session.id, userId, session.createdAt, session.expiresAt],
      );
      return { token, session };
    },
    async findSession(token) {
      if (!looksLikeToken(token)) return null;
      const [row] = await rows(
        `SELECT id, user_id, created_at, expires_at FROM ${s}.console_sessions WHERE token_hash = $1 AND expires_at > $2`,
        [hashToken(token), now()],
      );
      return row
        ? {
            id: row['id'] as string,
            userId: row['user_id'] as string,
            createdAt: num(row['created_at']),
            expiresAt: num(row['expires_at']),
          }
        : null;
    },
    async deleteSession(token) {
      if (!looksLikeToken(token)) return false;
      return (
        (await count(`DELETE FROM ${s}.console_sessions WHERE token_hash = $1`, [hashToken(token)])) === 1
      );
    },
    async deleteUserSessions(userId) {
      await count(`DELETE FROM ${s}.console_sessions WHERE expires_at <= $1`, [now()]);
      return count(`DELETE FROM ${s}.console_sessions WHERE user_id = $1`, [userId]);
    },

    async recordKeyCreator({ keyId, organizationId, userId }) {
      assertId(keyId, 'key id');
      await count(
        `INSERT INTO ${s}.console_key_creators (key_id, organization_id, user_id) VALUES ($1, $2, $3)
         ON CONFLICT (key_id) DO UPDATE SET organization_id = EXCLUDED.organization_id, user_id = EXCLUDED.user_id`,
        [keyId, organizationId, userId],
      );
    },
    async keyCreators(organizationId) {
      const found = await rows(
        `SELECT key_id, user_id FROM ${s}.console_key_creators WHERE organization_id = $1`,
        [organizationId],
      );
      return new Map(found.map((r) => [r['key_id'] as string, r['user_id'] as string]));
    },

    async getSetting(name) {
      assertId(name, 'setting name');
      const [row] = await rows(`SELECT value FROM ${s}.console_settings WHERE name = $1`, [name]);
      return row ? (row['value'] as string) : null;
    },
    async setSetting(name, value) {
      assertId(name, 'setting name');
      if (value === null) await count(`DELETE FROM ${s}.console_settings WHERE name = $1`, [name]);
      else
        await count(
          `INSERT INTO ${s}.console_settings (name, value) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`,
          [name, value],
        );
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
  return store;
}

/** Creates a {@link UsageStore} in PostgreSQL. */
export function createPostgresUsageStore(options: PostgresAccountStoreOptions): UsageStore {
  return buildPostgresUsageStore(openPostgresConnection(options), true);
}

/** @internal Builds the usage store on an open connection. */
export function buildPostgresUsageStore(connection: PostgresConnection, ownsConnection: boolean): UsageStore {
  const { schema: s } = connection;
  return {
    async append(records) {
      assertUsageRecords(records);
      if (records.length === 0) return;
      // One multi-row INSERT per batch: one round trip, one transaction.
      await connection.query(
        `INSERT INTO ${s}.console_usage (at, account_id, key_id, kind, credits, note)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[])`,
        [
          records.map((r) => Math.floor(r.at)),
          records.map((r) => r.accountId),
          records.map((r) => r.keyId),
          records.map((r) => r.kind),
          records.map((r) => r.credits),
          records.map((r) => r.note),
        ],
      );
    },
    async daily(accountId, since, until) {
      const { rows } = await connection.query<Row>(
        `SELECT to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                count(*) AS searches, sum(credits) AS credits
         FROM ${s}.console_usage WHERE account_id = $1 AND kind = 'charge' AND at >= $2 AND at < $3
         GROUP BY day ORDER BY day`,
        [accountId, Math.floor(since), Math.ceil(until)],
      );
      return rows.map((r) => ({
        day: r['day'] as string,
        searches: num(r['searches']),
        credits: num(r['credits']),
      }));
    },
    async perKey(accountId, since) {
      const { rows } = await connection.query<Row>(
        `SELECT key_id, count(*) FILTER (WHERE kind = 'charge') AS searches,
                COALESCE(sum(credits) FILTER (WHERE kind = 'charge'), 0) AS credits, max(at) AS last_used_at
         FROM ${s}.console_usage WHERE account_id = $1 AND key_id IS NOT NULL AND kind <> 'grant' AND at >= $2
         GROUP BY key_id ORDER BY last_used_at DESC`,
        [accountId, Math.floor(since)],
      );
      return rows.map((r) => ({
        keyId: r['key_id'] as string,
        searches: num(r['searches']),
        credits: num(r['credits']),
        lastUsedAt: num(r['last_used_at']),
      }));
    },
    async ledger(accountId, limit) {
      const { rows } = await connection.query<Row>(
        `SELECT at, account_id, key_id, kind, credits, note FROM ${s}.console_usage WHERE account_id = $1
         ORDER BY at DESC, seq DESC LIMIT $2`,
        [accountId, limit ?? null],
      );
      return rows.map((r): UsageRecord => ({
        at: num(r['at']),
        accountId: r['account_id'] as string,
        keyId: (r['key_id'] as string | null) ?? null,
        kind: r['kind'] as UsageRecord['kind'],
        credits: num(r['credits']),
        note: (r['note'] as string | null) ?? null,
      }));
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
