import { auditLimit, matchesAudit, normalizeAuditEntry, type AuditEntry, type AuditStore } from '../audit.ts';

/** The audit log of the memory accounts store: an array, oldest first. */
export function createMemoryAuditLog(now: () => number): AuditStore {
  const entries: AuditEntry[] = [];
  let seq = 0;
  return {
    async appendAudit(input) {
      const entry: AuditEntry = { seq: ++seq, at: now(), ...normalizeAuditEntry(input) };
      entries.push(entry);
      return { ...entry };
    },
    async listAudit(query = {}) {
      const limit = auditLimit(query);
      const out: AuditEntry[] = [];
      for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
        if (matchesAudit(entries[i]!, query)) out.push({ ...entries[i]! });
      }
      return out;
    },
    async pruneAudit(before) {
      const keep = entries.findIndex((entry) => entry.at >= before);
      const removed = keep === -1 ? entries.length : keep;
      entries.splice(0, removed);
      return removed;
    },
  };
}
