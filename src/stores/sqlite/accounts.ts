/**
 * SQLite account and usage stores, in the same database file as the keys and credits (own tables, created
 * idempotently; versioned in `console_schema`). Safe while another process (the CLI) uses the file.
 */
import type { DatabaseSync } from 'node:sqlite';
import { connectSqlite, type SqliteStoreOptions } from './connection.ts';
import { immediateTransaction } from './database.ts';
import { createSqliteAuditLog, SQLITE_AUDIT_SCHEMA } from './audit.ts';
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
  DailyUsage,
  InvitationRecord,
  KeyUsage,
  MemberView,
  MembershipRecord,
  OrganizationRecord,
  Role,
  SessionRecord,
  UsageRecord,
  UsageStore,
  UserOrganizationView,
  UserRecord,
} from '../account-types.ts';

/** Version of the console tables, kept in `console_schema`. */
export const SQLITE_CONSOLE_SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS console_schema (version INTEGER NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS console_users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  operator INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS console_organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  suspended_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS console_memberships (
  organization_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, user_id)
) STRICT;
CREATE INDEX IF NOT EXISTS console_memberships_by_user ON console_memberships (user_id);
CREATE TABLE IF NOT EXISTS console_invitations (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  accepted_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS console_sessions (
  token_hash TEXT PRIMARY KEY,
  id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS console_sessions_by_user ON console_sessions (user_id);
CREATE TABLE IF NOT EXISTS console_key_creators (
  key_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  user_id TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS console_key_creators_by_org ON console_key_creators (organization_id);
CREATE TABLE IF NOT EXISTS console_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS console_usage (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  account_id TEXT NOT NULL,
  key_id TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('charge', 'refund', 'grant')),
  credits INTEGER NOT NULL CHECK (credits >= 0),
  note TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS console_usage_by_account ON console_usage (account_id, at);
`;

/** Creates the console tables if missing. Idempotent; refuses a newer version. */
export function migrateSqliteConsole(db: DatabaseSync): void {
  immediateTransaction(db, () => {
    db.exec(SCHEMA);
    // 2: the audit log.
    db.exec(SQLITE_AUDIT_SCHEMA);
    const row = db.prepare('SELECT max(version) AS version FROM console_schema').get() as
      { version: number | null } | undefined;
    const version = row?.version ?? 0;
    if (version > SQLITE_CONSOLE_SCHEMA_VERSION) {
      throw new Error(`console schema version ${version} is newer than this citewise supports`);
    }
    if (version < SQLITE_CONSOLE_SCHEMA_VERSION) {
      db.prepare('INSERT INTO console_schema (version) VALUES (?)').run(SQLITE_CONSOLE_SCHEMA_VERSION);
    }
  });
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  operator: number;
  created_at: number;
}
interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
  suspended_at: number | null;
}
interface MembershipRow {
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: number;
}
interface InvitationRow {
  id: string;
  organization_id: string;
  role: Role;
  created_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

const user = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  operator: r.operator === 1,
  createdAt: r.created_at,
});
const organization = (r: OrganizationRow): OrganizationRecord => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  suspendedAt: r.suspended_at,
});
const membership = (r: MembershipRow): MembershipRecord => ({
  organizationId: r.organization_id,
  userId: r.user_id,
  role: r.role,
  createdAt: r.created_at,
});
const invitation = (r: InvitationRow): InvitationRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  role: r.role,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
});

/** Creates an {@link AccountStore} in SQLite (give `path` or a shared `database`). */
export function createSqliteAccountStore(options: SqliteStoreOptions): AccountStore {
  const connection = connectSqlite(options, migrateSqliteConsole);
  const { db, unlocked } = connection;
  const now = () => Math.floor(connection.now());
  type Param = string | number | null;
  /** One statement now, inside a transaction that already holds the lock. */
  const getNow = <T>(sql: string, ...params: Param[]) => db.prepare(sql).get(...params) as T | undefined;
  // Every other statement waits asynchronously while another connection or process holds the lock.
  const get = <T>(sql: string, ...params: Param[]) => unlocked(() => getNow<T>(sql, ...params));
  const all = <T>(sql: string, ...params: Param[]) =>
    unlocked(() => db.prepare(sql).all(...params) as unknown as T[]);
  const run = (sql: string, ...params: Param[]) =>
    unlocked(() => Number(db.prepare(sql).run(...params).changes));
  const INVITATION = 'id, organization_id, role, created_by, created_at, expires_at, accepted_at';

  const store: AccountStore = {
    ...createSqliteAuditLog(db, now, unlocked),
    async createUser({ email, passwordHash, operator = false }) {
      const normalized = normalizeEmail(email);
      assertId(passwordHash, 'passwordHash');
      const id = newId('usr');
      const changes = await run(
        'INSERT INTO console_users (id, email, password_hash, operator, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING',
        id,
        normalized,
        passwordHash,
        operator ? 1 : 0,
        now(),
      );
      return changes === 1 ? store.getUser(id) : null;
    },
    async getUser(id) {
      assertId(id, 'user id');
      const row = await get<UserRow>('SELECT * FROM console_users WHERE id = ?', id);
      return row ? user(row) : null;
    },
    async findUserByEmail(email) {
      const row = await get<UserRow>('SELECT * FROM console_users WHERE email = ?', normalizeEmail(email));
      return row ? user(row) : null;
    },
    async setPasswordHash(userId, passwordHash) {
      assertId(passwordHash, 'passwordHash');
      return (
        (await run('UPDATE console_users SET password_hash = ? WHERE id = ?', passwordHash, userId)) === 1
      );
    },
    async setOperator(userId, operator) {
      return (
        (await run('UPDATE console_users SET operator = ? WHERE id = ?', operator ? 1 : 0, userId)) === 1
      );
    },
    async hasOperator() {
      return (await get('SELECT 1 AS one FROM console_users WHERE operator = 1 LIMIT 1')) !== undefined;
    },

    async createOrganization({ name }) {
      assertId(name, 'organization name');
      const record: OrganizationRecord = { id: newId('org'), name, createdAt: now(), suspendedAt: null };
      await run(
        'INSERT INTO console_organizations (id, name, created_at) VALUES (?, ?, ?)',
        record.id,
        name,
        record.createdAt,
      );
      return record;
    },
    async getOrganization(id) {
      assertId(id, 'organization id');
      const row = await get<OrganizationRow>('SELECT * FROM console_organizations WHERE id = ?', id);
      return row ? organization(row) : null;
    },
    async listOrganizations() {
      return (
        await all<OrganizationRow>('SELECT * FROM console_organizations ORDER BY created_at, rowid')
      ).map(organization);
    },
    async setSuspended(organizationId, suspended) {
      const changes = suspended
        ? await run(
            'UPDATE console_organizations SET suspended_at = COALESCE(suspended_at, ?) WHERE id = ?',
            now(),
            organizationId,
          )
        : await run('UPDATE console_organizations SET suspended_at = NULL WHERE id = ?', organizationId);
      return changes === 1;
    },
    async suspendedOrganizationIds() {
      return (
        await all<{ id: string }>('SELECT id FROM console_organizations WHERE suspended_at IS NOT NULL')
      ).map((r) => r.id);
    },

    async putMembership({ organizationId, userId, role }) {
      assertId(organizationId, 'organization id');
      assertId(userId, 'user id');
      assertRole(role);
      const row = await get<MembershipRow>(
        `INSERT INTO console_memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role RETURNING *`,
        organizationId,
        userId,
        role,
        now(),
      );
      return membership(row!);
    },
    async getMembership(organizationId, userId) {
      const row = await get<MembershipRow>(
        'SELECT * FROM console_memberships WHERE organization_id = ? AND user_id = ?',
        organizationId,
        userId,
      );
      return row ? membership(row) : null;
    },
    async removeMembership(organizationId, userId) {
      return (
        (await run(
          'DELETE FROM console_memberships WHERE organization_id = ? AND user_id = ?',
          organizationId,
          userId,
        )) === 1
      );
    },
    async listMembers(organizationId) {
      return (
        await all<MembershipRow & { email: string }>(
          `SELECT m.*, u.email FROM console_memberships m JOIN console_users u ON u.id = m.user_id
         WHERE m.organization_id = ? ORDER BY m.created_at, m.rowid`,
          organizationId,
        )
      ).map((r): MemberView => ({ ...membership(r), email: r.email }));
    },
    async listUserOrganizations(userId) {
      return (
        await all<MembershipRow & { name: string }>(
          `SELECT m.*, o.name FROM console_memberships m JOIN console_organizations o ON o.id = m.organization_id
         WHERE m.user_id = ? ORDER BY m.created_at, m.rowid`,
          userId,
        )
      ).map((r): UserOrganizationView => ({ ...membership(r), organizationName: r.name }));
    },

    async createInvitation(input) {
      const { token, tokenHash, invitation: i } = mintInvitation(input, now());
      await run(
        `INSERT INTO console_invitations (id, token_hash, organization_id, role, created_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        i.id,
        tokenHash,
        i.organizationId,
        i.role,
        i.createdBy,
        i.createdAt,
        i.expiresAt,
      );
      return { token, invitation: i };
    },
    async findInvitation(token) {
      if (!looksLikeToken(token)) return null;
      const row = await get<InvitationRow>(
        `SELECT ${INVITATION} FROM console_invitations WHERE token_hash = ? AND accepted_at IS NULL AND expires_at > ?`,
        hashToken(token),
        now(),
      );
      return row ? invitation(row) : null;
    },
    async acceptInvitation(token, userId) {
      assertId(userId, 'user id');
      if (!looksLikeToken(token)) return null;
      return unlocked(() =>
        immediateTransaction(db, () => {
          const time = now();
          const row = getNow<InvitationRow>(
            `UPDATE console_invitations SET accepted_at = ?
           WHERE token_hash = ? AND accepted_at IS NULL AND expires_at > ? RETURNING ${INVITATION}`,
            time,
            hashToken(token),
            time,
          );
          if (!row) return null;
          const existing = getNow<MembershipRow>(
            'SELECT * FROM console_memberships WHERE organization_id = ? AND user_id = ?',
            row.organization_id,
            userId,
          );
          const role = existing ? higherRole(existing.role, row.role) : row.role;
          const saved = getNow<MembershipRow>(
            `INSERT INTO console_memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role RETURNING *`,
            row.organization_id,
            userId,
            role,
            time,
          );
          return membership(saved!);
        }),
      );
    },
    async listInvitations(organizationId) {
      return (
        await all<InvitationRow>(
          `SELECT ${INVITATION} FROM console_invitations
         WHERE organization_id = ? AND accepted_at IS NULL AND expires_at > ? ORDER BY created_at, rowid`,
          organizationId,
          now(),
        )
      ).map(invitation);
    },
    async deleteInvitation(organizationId, invitationId) {
      return (
        (await run(
          'DELETE FROM console_invitations WHERE id = ? AND organization_id = ? AND accepted_at IS NULL',
          invitationId,
          organizationId,
        )) === 1
      );
    },

    async createSession({ userId, expiresAt }) {
      assertId(userId, 'user id');
      assertTime(expiresAt, 'expiresAt');
      const token = newToken();
      const session: SessionRecord = {
        id: newId('ses'),
        userId,
        createdAt: now(),
        expiresAt: Math.ceil(expiresAt),
      };
      await run(
        'INSERT INTO console_sessions (token_hash, id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
        hashToken(token),
        session.id,
        userId,
        session.createdAt,
        session.expiresAt,
      );
      return { token, session };
    },
    async findSession(token) {
      if (!looksLikeToken(token)) return null;
      const row = await get<{ id: string; user_id: string; created_at: number; expires_at: number }>(
        'SELECT id, user_id, created_at, expires_at FROM console_sessions WHERE token_hash = ? AND expires_at > ?',
        hashToken(token),
        now(),
      );
      return row
        ? { id: row.id, userId: row.user_id, createdAt: row.created_at, expiresAt: row.expires_at }
        : null;
    },
    async deleteSession(token) {
      if (!looksLikeToken(token)) return false;
      return (await run('DELETE FROM console_sessions WHERE token_hash = ?', hashToken(token))) === 1;
    },
    async deleteUserSessions(userId) {
      // Expired sessions of everyone go too: the table does not grow forever.
      await run('DELETE FROM console_sessions WHERE expires_at <= ?', now());
      return await run('DELETE FROM console_sessions WHERE user_id = ?', userId);
    },

    async recordKeyCreator({ keyId, organizationId, userId }) {
      assertId(keyId, 'key id');
      await run(
        'INSERT OR REPLACE INTO console_key_creators (key_id, organization_id, user_id) VALUES (?, ?, ?)',
        keyId,
        organizationId,
        userId,
      );
    },
    async keyCreators(organizationId) {
      const rows = await all<{ key_id: string; user_id: string }>(
        'SELECT key_id, user_id FROM console_key_creators WHERE organization_id = ?',
        organizationId,
      );
      return new Map(rows.map((r) => [r.key_id, r.user_id]));
    },

    async getSetting(name) {
      assertId(name, 'setting name');
      return (
        (await get<{ value: string }>('SELECT value FROM console_settings WHERE name = ?', name))?.value ??
        null
      );
    },
    async setSetting(name, value) {
      assertId(name, 'setting name');
      if (value === null) await run('DELETE FROM console_settings WHERE name = ?', name);
      else await run('INSERT OR REPLACE INTO console_settings (name, value) VALUES (?, ?)', name, value);
    },
    async close() {
      connection.close();
    },
  };
  return store;
}

/** Creates a {@link UsageStore} in SQLite (give `path` or a shared `database`). */
export function createSqliteUsageStore(options: SqliteStoreOptions): UsageStore {
  const connection = connectSqlite(options, migrateSqliteConsole);
  const { db, unlocked } = connection;
  const insert = db.prepare(
    'INSERT INTO console_usage (at, account_id, key_id, kind, credits, note) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return {
    async append(records) {
      assertUsageRecords(records);
      if (records.length === 0) return;
      await unlocked(() =>
        immediateTransaction(db, () => {
          for (const r of records)
            insert.run(Math.floor(r.at), r.accountId, r.keyId, r.kind, r.credits, r.note);
        }),
      );
    },
    async daily(accountId, since, until) {
      return db
        .prepare(
          `SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') AS day, count(*) AS searches, sum(credits) AS credits
           FROM console_usage WHERE account_id = ? AND kind = 'charge' AND at >= ? AND at < ?
           GROUP BY day ORDER BY day`,
        )
        .all(accountId, since, until) as unknown as DailyUsage[];
    },
    async perKey(accountId, since) {
      return (
        db
          .prepare(
            `SELECT key_id AS keyId, sum(kind = 'charge') AS searches,
                    sum(CASE WHEN kind = 'charge' THEN credits ELSE 0 END) AS credits, max(at) AS lastUsedAt
             FROM console_usage WHERE account_id = ? AND key_id IS NOT NULL AND kind <> 'grant' AND at >= ?
             GROUP BY key_id ORDER BY lastUsedAt DESC`,
          )
          .all(accountId, since) as unknown as KeyUsage[]
      ).map((r) => ({ ...r }));
    },
    async ledger(accountId, limit) {
      const rows = db
        .prepare(
          `SELECT at, account_id, key_id, kind, credits, note FROM console_usage WHERE account_id = ?
           ORDER BY at DESC, seq DESC LIMIT ?`,
        )
        .all(accountId, limit ?? -1) as unknown as {
        at: number;
        account_id: string;
        key_id: string | null;
        kind: UsageRecord['kind'];
        credits: number;
        note: string | null;
      }[];
      return rows.map((r) => ({
        at: r.at,
        accountId: r.account_id,
        keyId: r.key_id,
        kind: r.kind,
        credits: r.credits,
        note: r.note,
      }));
    },
    async close() {
      connection.close();
    },
  };
}
