import {
  auditEntryFromRow,
  auditLimit,
  auditWhere,
  normalizeAuditEntry,
  type AuditRow,
  type AuditStore,
} from '../audit.ts';
import { toNumber, type PostgresConnection } from './connection.ts';

/** The audit log of the PostgreSQL accounts store (table `console_audit`, migration 4). */
export function createPostgresAuditLog(connection: PostgresConnection): AuditStore {
  const { schema: s } = connection;
  const entry = (row: AuditRow<string>) => auditEntryFromRow(row, toNumber);
  return {
    async appendAudit(input) {
      const e = normalizeAuditEntry(input);
      const { rows } = await connection.query<AuditRow<string>>(
        `INSERT INTO ${s}.console_audit (at, actor, action, organization_id, target, ip, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [Date.now(), e.actor, e.action, e.organizationId, e.target, e.ip, e.detail],
      );
      return entry(rows[0]!);
    },
    async listAudit(query = {}) {
      const limit = auditLimit(query);
      const { where, params } = auditWhere(query, (index) => `$${index}`);
      const { rows } = await connection.query<AuditRow<string>>(
        `SELECT * FROM ${s}.console_audit ${where} ORDER BY seq DESC LIMIT $${params.length + 1}`,
        [...params, limit],
      );
      return rows.map(entry);
    },
    async pruneAudit(before) {
      const { rowCount } = await connection.query(`DELETE FROM ${s}.console_audit WHERE at < $1`, [
        Math.floor(before),
      ]);
      return rowCount ?? 0;
    },
  };
}
