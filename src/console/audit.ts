/**
 * The audit log as the console and the CLI write it: one small `record(...)` call per event (who, what,
 * where, to what, from which address), kept in the accounts store, pruned after the retention. Writing
 * never fails the action it records: a failure is logged (and the action stays done).
 */
import type { Logger } from '../engine/options.ts';
import type { AuditEntry, AuditQuery, AuditStore, NewAuditEntry } from '../stores/audit.ts';

/** Defaults of {@link AuditLogOptions}. */
export const AUDIT_DEFAULTS = {
  /** Days an entry is kept; 0 keeps entries forever. */
  retentionDays: 365,
  /** How often, at most, one process deletes entries past the retention (on the next `record`). */
  pruneIntervalMs: 3_600_000,
  /** Entries `citewise audit` prints when `--limit` is not given. */
  cliLimit: 1_000,
} as const;

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  /** Days an entry is kept; `0` keeps entries forever. @default 365 */
  readonly retentionDays?: number;
  /** Where a failed write is reported. @default silent */
  readonly logger?: Logger | undefined;
  /** Clock in epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** The audit log: record an event, read entries. */
export interface AuditLog {
  /**
   * Appends one entry: `actor` (a user's email, or `cli` / `operator`), `action` (see `AUDIT_ACTIONS`),
   * and where known `organizationId`, `target`, `ip`, `detail`. Never rejects: a failure is logged.
   */
  record(event: NewAuditEntry): Promise<void>;
  /** Entries matching `query`, newest first. */
  list(query?: AuditQuery): Promise<AuditEntry[]>;
}

const DAY_MS = 86_400_000;

/** Creates the {@link AuditLog} over an accounts store's audit part. */
export function createAuditLog(store: AuditStore, options: AuditLogOptions = {}): AuditLog {
  const retentionDays = options.retentionDays ?? AUDIT_DEFAULTS.retentionDays;
  if (!Number.isSafeInteger(retentionDays) || retentionDays < 0) {
    throw new RangeError('retentionDays must be a non-negative integer');
  }
  const now = options.now ?? Date.now;
  let prunedAt = -Infinity;

  async function prune(): Promise<void> {
    const at = now();
    if (retentionDays === 0 || at - prunedAt < AUDIT_DEFAULTS.pruneIntervalMs) return;
    prunedAt = at;
    await store.pruneAudit(at - retentionDays * DAY_MS);
  }

  return {
    async record(event) {
      try {
        await store.appendAudit(event);
        await prune();
      } catch (error) {
        options.logger?.error({ err: error, action: event.action }, 'audit: entry not written');
      }
    },
    list: (query) => store.listAudit(query),
  };
}

/** The request an event comes from: its signed-in user (the actor) and the client's address. */
interface EventSource {
  readonly user: { readonly email: string } | null;
  readonly clientAddress: string;
}

/**
 * Records an event of a console request: the actor is the signed-in user's email (or `event.actor`), the
 * IP the client's address. E.g. `auditFrom(rt, context, { action: 'sign_out' })`.
 */
export function auditFrom(
  rt: { readonly audit: AuditLog },
  source: EventSource,
  event: Omit<NewAuditEntry, 'actor' | 'ip'> & { readonly actor?: string },
): Promise<void> {
  return rt.audit.record({
    ...event,
    actor: event.actor ?? source.user?.email ?? 'anonymous',
    ip: source.clientAddress,
  });
}

/**
 * Records a user's event (signing in or out, a password reset) in each organization the user belongs to,
 * so that each one's admins see it; once without an organization when the user has none.
 */
export async function auditUserEvent(
  rt: {
    readonly audit: AuditLog;
    readonly accounts: { listUserOrganizations(userId: string): Promise<{ organizationId: string }[]> };
  },
  source: EventSource,
  userId: string | null,
  event: Omit<NewAuditEntry, 'actor' | 'ip' | 'organizationId'> & { readonly actor?: string },
): Promise<void> {
  const organizations = userId ? await rt.accounts.listUserOrganizations(userId).catch(() => []) : [];
  const ids = organizations.length ? organizations.map((o) => o.organizationId) : [null];
  for (const organizationId of ids) await auditFrom(rt, source, { ...event, organizationId });
}
