/**
 * The tables of the PostgreSQL job queue (`research_jobs`, `research_job_events` in the stores' schema), the
 * shape of a job row and its conversion to a {@link JobRecord}, and the one statement that appends an event.
 */
import type pg from 'pg';
import type { JobError, JobEvent, JobRecord, JobStatus } from '../job-queue.ts';

/** The database's clock in milliseconds since the epoch: every instance stamps times from the same clock. */
export const NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** The job tables and their indexes in schema `s` (idempotent). */
export function schemaSql(s: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.research_jobs (
  id text PRIMARY KEY,
  account text NOT NULL,
  key_id text,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  input jsonb NOT NULL,
  created_at bigint NOT NULL,
  started_at bigint,
  completed_at bigint,
  attempts integer NOT NULL DEFAULT 0,
  result jsonb,
  error jsonb,
  credits_used bigint NOT NULL DEFAULT 0,
  idempotency_key text,
  fingerprint text,
  finalized boolean NOT NULL DEFAULT false,
  lease_token text,
  lease_until bigint NOT NULL DEFAULT 0,
  last_event integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS research_jobs_idempotency
  ON ${s}.research_jobs (account, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS research_jobs_by_account ON ${s}.research_jobs (account, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS research_jobs_unfinalized ON ${s}.research_jobs (completed_at)
  WHERE NOT finalized AND completed_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${s}.research_job_events (
  job_id text NOT NULL,
  id integer NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (job_id, id)
);`;
}

/** A row of `research_jobs` as `pg` returns it (bigint columns as strings). */
export interface JobRow {
  id: string;
  account: string;
  key_id: string | null;
  status: JobStatus;
  input: unknown;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  attempts: number;
  result: unknown;
  error: JobError | null;
  credits_used: string;
  idempotency_key: string | null;
  fingerprint: string | null;
  finalized: boolean;
  lease_token: string | null;
  lease_until: string;
}

/** The {@link JobRecord} of a job row. */
export function toRecord(row: JobRow): JobRecord {
  const time = (value: string | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    account: row.account,
    keyId: row.key_id,
    status: row.status,
    input: row.input,
    createdAt: Number(row.created_at),
    startedAt: time(row.started_at),
    completedAt: time(row.completed_at),
    attempts: row.attempts,
    result: row.result ?? null,
    error: row.error,
    creditsUsed: Number(row.credits_used),
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    finalized: row.finalized,
  };
}

/** Appends an event to job `id` (numbered after its last) on `client`, inside the caller's transaction. */
export async function appendEventRow(
  client: pg.PoolClient,
  s: string,
  id: string,
  type: string,
  data: unknown,
): Promise<JobEvent> {
  const { rows } = await client.query<{ id: number; at: string }>(
    `WITH bumped AS (UPDATE ${s}.research_jobs SET last_event = last_event + 1 WHERE id = $1 RETURNING last_event)
     INSERT INTO ${s}.research_job_events (job_id, id, type, data, at)
     SELECT $1, last_event, $2, $3::jsonb, ${NOW} FROM bumped RETURNING id, at`,
    [id, type, JSON.stringify(data ?? null)],
  );
  return { id: rows[0]!.id, type, data: data ?? null, at: Number(rows[0]!.at) };
}
