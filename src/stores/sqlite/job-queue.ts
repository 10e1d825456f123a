/**
 * The SQLite {@link JobQueue}: jobs and their events in the database of the data directory, next to keys
 * and credits. A `kill -9` loses nothing: every change is one `BEGIN IMMEDIATE` transaction, and a job whose
 * worker died is claimed again once its lease lapses. Several processes on the same file (`citewise serve`
 * and `citewise worker`) share the queue.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { connectSqlite, type SqliteStoreOptions } from './connection.ts';
import { immediateTransaction } from './database.ts';
import {
  eventRange,
  pageOf,
  positionOf,
  statusEventData,
  terminalEventData,
  withChecks,
} from '../job-queue-common.ts';
import {
  JobQueueFullError,
  type JobError,
  type JobEvent,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from '../job-queue.ts';

/** Options of {@link createSqliteJobQueue}: a `path` or an open `database` (e.g. the stores'). */
export type SqliteJobQueueOptions = SqliteStoreOptions;

// The tables keep the names they had when the queue served research jobs only, so stored jobs stay readable.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS research_jobs (
  id TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  key_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  input TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  error TEXT,
  credits_used INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT,
  fingerprint TEXT,
  finalized INTEGER NOT NULL DEFAULT 0,
  lease_token TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  last_event INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS research_jobs_idempotency
  ON research_jobs (account, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS research_jobs_by_account ON research_jobs (account, created_at, id);
CREATE INDEX IF NOT EXISTS research_jobs_open ON research_jobs (status, created_at)
  WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS research_jobs_unfinalized ON research_jobs (completed_at)
  WHERE finalized = 0 AND completed_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS research_job_events (
  job_id TEXT NOT NULL,
  id INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (job_id, id)
) STRICT, WITHOUT ROWID;
`;

/** Creates the research job tables if missing (idempotent). */
export function migrateSqliteJobTables(db: DatabaseSync): void {
  db.exec(SCHEMA);
}

interface JobRow {
  id: string;
  account: string;
  key_id: string | null;
  status: JobStatus;
  input: string;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  attempts: number;
  result: string | null;
  error: string | null;
  credits_used: number;
  idempotency_key: string | null;
  fingerprint: string | null;
  finalized: number;
  lease_token: string | null;
  lease_until: number;
  last_event: number;
}

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    account: row.account,
    keyId: row.key_id,
    status: row.status,
    input: JSON.parse(row.input) as unknown,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    attempts: row.attempts,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error: row.error === null ? null : (JSON.parse(row.error) as JobError),
    creditsUsed: row.credits_used,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    finalized: row.finalized === 1,
  };
}

/** Creates a {@link JobQueue} in SQLite. */
export function createSqliteJobQueue<Input = unknown, Result = unknown>(
  options: SqliteJobQueueOptions,
): JobQueue<Input, Result> {
  const connection = connectSqlite(options, migrateSqliteJobTables);
  const { db, now, unlocked } = connection;
  const at = () => Math.floor(now());

  const selectJob = db.prepare('SELECT * FROM research_jobs WHERE id = ?');
  const selectByKey = db.prepare('SELECT * FROM research_jobs WHERE account = ? AND idempotency_key = ?');
  const countQueued = db.prepare(
    "SELECT count(*) AS n FROM research_jobs WHERE account = ? AND status = 'queued'",
  );
  const insertJob = db.prepare(
    `INSERT INTO research_jobs (id, account, key_id, status, input, created_at, idempotency_key, fingerprint)
     VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)`,
  );
  const insertEvent = db.prepare(
    'INSERT INTO research_job_events (job_id, id, type, data, at) VALUES (?, ?, ?, ?, ?)',
  );
  const bumpEvent = db.prepare(
    'UPDATE research_jobs SET last_event = last_event + 1 WHERE id = ? RETURNING last_event',
  );
  // The account running the fewest jobs first (its fair share), then the oldest job. A job whose lease
  // lapsed (its worker died) is claimable again; it still counts as running for its account until then.
  const selectClaimable = db.prepare(
    `SELECT j.id, j.account,
       (SELECT count(*) FROM research_jobs r WHERE r.account = j.account AND r.status = 'running'
          AND r.id <> j.id) AS running
     FROM research_jobs j
     WHERE j.status = 'queued' OR (j.status = 'running' AND j.lease_until <= $now)
     ORDER BY running, j.created_at, j.id
     LIMIT 200`,
  );
  const leaseJob = db.prepare(
    `UPDATE research_jobs SET status = 'running', attempts = attempts + 1,
       started_at = COALESCE(started_at, $now), lease_token = $token, lease_until = $until
     WHERE id = $id RETURNING *`,
  );
  const renewLease = db.prepare(
    "UPDATE research_jobs SET lease_until = ? WHERE id = ? AND lease_token = ? AND status = 'running'",
  );
  const selectHeld = db.prepare(
    "SELECT * FROM research_jobs WHERE id = ? AND lease_token = ? AND status = 'running'",
  );
  const endJob = db.prepare(
    `UPDATE research_jobs SET status = $status, completed_at = $now, result = $result, error = $error,
       credits_used = $credits
     WHERE id = $id RETURNING *`,
  );
  const selectEvents = db.prepare(
    'SELECT id, type, data, at FROM research_job_events WHERE job_id = ? AND id > ? ORDER BY id LIMIT ?',
  );
  const selectUnfinalized = db.prepare(
    `SELECT * FROM research_jobs WHERE finalized = 0 AND completed_at IS NOT NULL AND completed_at < ?
     ORDER BY completed_at LIMIT ?`,
  );
  const setFinalized = db.prepare(
    'UPDATE research_jobs SET finalized = 1 WHERE id = ? AND completed_at IS NOT NULL',
  );

  const rowOf = (id: string) => selectJob.get(id) as JobRow | undefined;

  function append(jobId: string, type: string, data: unknown, time: number): JobEvent {
    const { last_event: id } = bumpEvent.get(jobId) as { last_event: number };
    insertEvent.run(jobId, id, type, JSON.stringify(data ?? null), time);
    return { id, type, data: data ?? null, at: time };
  }

  /** Ends a job in one transaction with its terminal event. */
  function end(
    id: string,
    status: JobStatus,
    values: { result?: unknown; error?: JobError; credits?: number },
    time: number,
  ): JobRecord {
    const row = endJob.get({
      id,
      status,
      now: time,
      result: values.result === undefined ? null : JSON.stringify(values.result),
      error: values.error === undefined ? null : JSON.stringify(values.error),
      credits: values.credits ?? 0,
    }) as unknown as JobRow;
    append(id, status, terminalEventData(status, values.error), time);
    return toRecord(row);
  }

  const transaction = <T>(work: () => T): Promise<T> => unlocked(() => immediateTransaction(db, work));

  return withChecks<Input, Result>({
    async enqueue(input) {
      return transaction(() => {
        if (input.idempotencyKey !== undefined) {
          const existing = selectByKey.get(input.account, input.idempotencyKey) as JobRow | undefined;
          if (existing) return { job: toRecord(existing), created: false };
        }
        if (input.maxQueued !== undefined) {
          const { n } = countQueued.get(input.account) as { n: number };
          if (n >= input.maxQueued) throw new JobQueueFullError(input.account, input.maxQueued);
        }
        const time = at();
        insertJob.run(
          input.id,
          input.account,
          input.keyId ?? null,
          JSON.stringify(input.input ?? null),
          time,
          input.idempotencyKey ?? null,
          input.fingerprint ?? null,
        );
        append(input.id, 'status', statusEventData('queued'), time);
        return { job: toRecord(rowOf(input.id)!), created: true };
      });
    },

    async claim(claimOptions) {
      const cap = claimOptions.maxRunningPerAccount;
      return transaction(() => {
        const time = at();
        const candidates = selectClaimable.all({ now: time }) as { id: string; running: number }[];
        const pick = candidates.find((candidate) => cap === undefined || candidate.running < cap);
        if (!pick) return null;
        const token = randomUUID();
        const row = leaseJob.get({
          id: pick.id,
          now: time,
          token,
          until: time + claimOptions.leaseMs,
        }) as unknown as JobRow;
        append(pick.id, 'status', statusEventData('running', row.attempts), time);
        return { job: toRecord(row), lease: { jobId: pick.id, token } };
      });
    },

    async heartbeat(lease, leaseMs) {
      return unlocked(() => {
        if (Number(renewLease.run(at() + leaseMs, lease.jobId, lease.token).changes) > 0) return 'ok';
        const row = rowOf(lease.jobId);
        return row?.lease_token === lease.token && row.status === 'cancelled' ? 'cancelled' : 'lost';
      });
    },

    async appendEvent(lease, type, data) {
      return transaction(() =>
        selectHeld.get(lease.jobId, lease.token) ? append(lease.jobId, type, data, at()) : null,
      );
    },

    async complete(lease, outcome) {
      return transaction(() =>
        selectHeld.get(lease.jobId, lease.token)
          ? end(lease.jobId, 'completed', { result: outcome.result, credits: outcome.creditsUsed }, at())
          : null,
      );
    },

    async fail(lease, error) {
      return transaction(() =>
        selectHeld.get(lease.jobId, lease.token) ? end(lease.jobId, 'failed', { error }, at()) : null,
      );
    },

    async cancel(id) {
      return transaction(() => {
        const row = rowOf(id);
        if (!row) return null;
        if (row.status !== 'queued' && row.status !== 'running') return toRecord(row);
        return end(id, 'cancelled', {}, at());
      });
    },

    async get(id) {
      const row = await unlocked(() => rowOf(id));
      return row ? toRecord(row) : null;
    },

    async findByIdempotencyKey(account, key) {
      const row = (await unlocked(() => selectByKey.get(account, key))) as JobRow | undefined;
      return row ? toRecord(row) : null;
    },

    async list(listOptions) {
      const after = positionOf(listOptions);
      const params: (string | number)[] = [listOptions.account];
      let sql = 'SELECT * FROM research_jobs WHERE account = ?';
      if (listOptions.status !== undefined) {
        sql += ' AND status = ?';
        params.push(listOptions.status);
      }
      if (after !== null) {
        sql += ' AND (created_at < ? OR (created_at = ? AND id < ?))';
        params.push(after.createdAt, after.createdAt, after.id);
      }
      sql += ' ORDER BY created_at DESC, id DESC LIMIT ?';
      params.push(listOptions.limit + 1);
      const rows = (await unlocked(() => db.prepare(sql).all(...params))) as unknown as JobRow[];
      return pageOf(rows.map(toRecord), listOptions.limit);
    },

    async events(id, range = {}) {
      const { after, limit } = eventRange(range);
      const rows = (await unlocked(() => selectEvents.all(id, after, limit))) as {
        id: number;
        type: string;
        data: string;
        at: number;
      }[];
      return rows.map((row) => ({
        id: row.id,
        type: row.type,
        data: JSON.parse(row.data) as unknown,
        at: row.at,
      }));
    },

    async unfinalized({ endedBefore, limit }) {
      const rows = (await unlocked(() => selectUnfinalized.all(endedBefore, limit))) as unknown as JobRow[];
      return rows.map(toRecord);
    },

    async markFinalized(id) {
      await unlocked(() => setFinalized.run(id));
    },

    async ping() {
      await unlocked(() => db.prepare('SELECT 1').get());
    },

    async close() {
      connection.close();
    },
  });
}
