import type { DatabaseSync } from 'node:sqlite';
import {
  auditEntryFromRow,
  auditLimit,
  auditWhere,
  normalizeAuditEntry,
  type AuditRow,
  type AuditStore,
} from '../audit.ts';

/**
 * The audit log's table (console schema version 2). Append-only: a trigger refuses every UPDATE; only the
 * retention deletes the oldest rows.
 */
export const SQLITE_AUDIT_SCHEMA = `
CREATE TABLE IF NOT EXISTS console_audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  organization_id TEXT,
  target TEXT,
  ip TEXT,
  detail TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS console_audit_by_organization ON console_audit (organization_id, seq);
CREATE INDEX IF NOT EXISTS console_audit_by_time ON console_audit (at);
CREATE TRIGGER IF NOT EXISTS console_audit_append_only BEFORE UPDATE ON console_audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`;

/** The audit log of the SQLite accounts store; `unlocked` waits out another process's write lock. */
export function createSqliteAuditLog(
  db: DatabaseSync,
  now: () => number,
  unlocked: <T>(work: () => T) => Promise<T>,
): AuditStore {
  const insert = db.prepare(
    `INSERT INTO console_audit (at, actor, action, organization_id, target, ip, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const prune = db.prepare('DELETE FROM console_audit WHERE at < ?');
  return {
    async appendAudit(input) {
      const e = normalizeAuditEntry(input);
      const row = (await unlocked(() =>
        insert.get(now(), e.actor, e.action, e.organizationId, e.target, e.ip, e.detail),
      )) as unknown as AuditRow<number>;
      return auditEntryFromRow(row, (value) => value);
    },
    async listAudit(query = {}) {
      const limit = auditLimit(query);
      const { where, params } = auditWhere(query, () => '?');
      const rows = (await unlocked(() =>
        db.prepare(`SELECT * FROM console_audit ${where} ORDER BY seq DESC LIMIT ?`).all(...params, limit),
      )) as unknown as AuditRow<number>[];
      return rows.map((row) => auditEntryFromRow(row, (value) => value));
    },
    async pruneAudit(before) {
      return unlocked(() => Number(prune.run(Math.floor(before)).changes));
    },
  };
}
