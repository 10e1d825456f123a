/**
 * The audit log: who did what, when, from where, in which organization. Append-only: entries are only
 * added, never changed; only the retention (`pruneAudit`) removes the oldest. Kept in the accounts store
 * (memory, SQLite, PostgreSQL), written through the console's `record(...)` (src/console/audit.ts).
 */
import { MAX_ID_LENGTH } from './validation.ts';

/**
 * What happened. The console and CLI write these; the set may grow (e.g. `sso_sign_in`), so readers treat
 * an unknown action as text.
 */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_reset',
  'password_changed',
  'key_created',
  'key_revoked',
  'member_invited',
  'member_joined',
  'member_removed',
  'role_changed',
  'credits_granted',
  'budget_set',
  'organization_settings_changed',
  'operator_action',
] as const;

/** One of {@link AUDIT_ACTIONS}, or a newer action's name. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number] | (string & {});

/** An entry to append. */
export interface NewAuditEntry {
  /** Who: a user's email, or `cli` / `operator` for the command line and the instance's operator. */
  readonly actor: string;
  readonly action: AuditAction;
  /** The organization it happened in; `null` for instance-wide events (a failed sign-in, maintenance). */
  readonly organizationId?: string | null;
  /** What it was done to: a key id, an email, an organization id, a setting… */
  readonly target?: string | null;
  /** The client's address, when it came over HTTP. */
  readonly ip?: string | null;
  /** A few words more, e.g. `500 credits a day`, `admin → member`, `granted 1000`. */
  readonly detail?: string | null;
}

/** A stored entry. */
export interface AuditEntry {
  /** Increasing with each entry (the order of the log). */
  readonly seq: number;
  /** Epoch ms. */
  readonly at: number;
  readonly actor: string;
  readonly action: AuditAction;
  readonly organizationId: string | null;
  readonly target: string | null;
  readonly ip: string | null;
  readonly detail: string | null;
}

/** Which entries {@link AuditStore.listAudit} returns, newest first. */
export interface AuditQuery {
  /** Only this organization's entries. @default all */
  readonly organizationId?: string;
  /** Only entries at or after this time (epoch ms). */
  readonly since?: number;
  /** Only entries before this time (epoch ms). */
  readonly until?: number;
  /** Only this action. */
  readonly action?: string;
  /** Only this actor. */
  readonly actor?: string;
  /** Only entries with a `seq` below this (the next page). */
  readonly beforeSeq?: number;
  /** Most entries returned. @default 100 */
  readonly limit?: number;
}

/** The audit log's part of the accounts store. */
export interface AuditStore {
  /** Appends one entry (time from the store's clock); returns it. */
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Entries matching `query`, newest first. */
  listAudit(query?: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes the entries older than `before` (epoch ms), the retention; returns how many. */
  pruneAudit(before: number): Promise<number>;
}

/** Most entries one {@link AuditStore.listAudit} returns. */
export const MAX_AUDIT_PAGE = 10_000;

/** Defaults of {@link AuditQuery}. */
export const AUDIT_QUERY_DEFAULTS = {
  /** Entries of one page when `limit` is not given. */
  limit: 100,
} as const;
/** Longest `detail` kept (longer is cut). */
const MAX_DETAIL = 500;

/** Validates and normalizes an entry (`TypeError` / `RangeError`); text fields cut to their maximum. */
export function normalizeAuditEntry(entry: NewAuditEntry): Required<NewAuditEntry> {
  if (typeof entry !== 'object' || entry === null) throw new TypeError('audit entry must be an object');
  const text = (value: unknown, what: string, required: boolean, max = MAX_ID_LENGTH): string | null => {
    if (value === undefined || value === null || value === '') {
      if (required) throw new TypeError(`${what} must be a non-empty string`);
      return null;
    }
    if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
    return value.slice(0, max);
  };
  return {
    actor: text(entry.actor, 'actor', true)!,
    action: text(entry.action, 'action', true, 64)!,
    organizationId: text(entry.organizationId, 'organizationId', false),
    target: text(entry.target, 'target', false),
    ip: text(entry.ip, 'ip', false, 64),
    detail: text(entry.detail, 'detail', false, MAX_DETAIL),
  };
}

/** The page size of a query: `limit` within 1…{@link MAX_AUDIT_PAGE}, default 100. */
export function auditLimit(query: AuditQuery): number {
  const limit = query.limit ?? AUDIT_QUERY_DEFAULTS.limit;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  return Math.min(limit, MAX_AUDIT_PAGE);
}

/** Whether `entry` matches `query` (the memory store's filter; the SQL stores filter in SQL). */
export function matchesAudit(entry: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.organizationId === undefined || entry.organizationId === query.organizationId) &&
    (query.since === undefined || entry.at >= query.since) &&
    (query.until === undefined || entry.at < query.until) &&
    (query.action === undefined || entry.action === query.action) &&
    (query.actor === undefined || entry.actor === query.actor) &&
    (query.beforeSeq === undefined || entry.seq < query.beforeSeq)
  );
}

/** The SQL filter of a query: `WHERE …` clauses and their parameters, numbered from `$1` or as `?`. */
export function auditWhere(
  query: AuditQuery,
  placeholder: (index: number) => string,
): { where: string; params: (string | number)[] } {
  const clauses: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, value: string | number | undefined) => {
    if (value === undefined) return;
    params.push(value);
    clauses.push(sql.replace('?', placeholder(params.length)));
  };
  add('organization_id = ?', query.organizationId);
  add('at >= ?', query.since);
  add('at < ?', query.until);
  add('action = ?', query.action);
  add('actor = ?', query.actor);
  add('seq < ?', query.beforeSeq);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** A row of the SQL audit tables; `Time` is how the driver returns integers. */
export interface AuditRow<Time> {
  seq: Time;
  at: Time;
  actor: string;
  action: string;
  organization_id: string | null;
  target: string | null;
  ip: string | null;
  detail: string | null;
}

/** Maps an {@link AuditRow} to an {@link AuditEntry}. */
export function auditEntryFromRow<Time>(row: AuditRow<Time>, toNumber: (value: Time) => number): AuditEntry {
  return {
    seq: toNumber(row.seq),
    at: toNumber(row.at),
    actor: row.actor,
    action: row.action,
    organizationId: row.organization_id,
    target: row.target,
    ip: row.ip,
    detail: row.detail,
  };
}
