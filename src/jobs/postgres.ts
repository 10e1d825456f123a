/**
 * The PostgreSQL {@link JobQueue} on pg-boss: several instances (`citewise serve`, `citewise worker`) share
 * one queue. pg-boss delivers jobs (`fetch`, with a per-account `groupConcurrency`: the fair share), expects
 * a heartbeat from the worker of each running job (`touch`), and its monitor puts back a job whose heartbeat
 * stopped (its worker died) for another worker to take. The job records and their events live in tables of
 * the stores' schema; a job is stored and offered to pg-boss in one transaction, and each claim, end and
 * event is one statement or transaction, so a worker that lost its job can change nothing.
 *
 * `pg-boss` (and `pg`) are optional peer dependencies, loaded when the queue is first used.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type * as PgBossModule from 'pg-boss';
import type { Job as BossJob, PgBoss } from 'pg-boss';
import { positiveInteger } from '../options.ts';
import {
  openPostgresConnection,
  toPostgresError,
  type PostgresConnection,
} from '../stores/postgres/connection.ts';
import { JOBS_DEFAULTS } from './options.ts';
import { endersOf, eventRange, pageOf, positionOf, withChecks } from './common.ts';
import {
  JobQueueFullError,
  type JobError,
  type JobEvent,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from './types.ts';

/** Options of {@link createPostgresJobQueue}. */
export interface PostgresJobQueueOptions {
  /** `postgres://user:password@host:5432/db`. */
  readonly connectionString: string;
  /** Schema of the job tables (the stores'); pg-boss keeps its own in `<schema>_boss`. @default 'citewise' */
  readonly schema?: string;
  /** Name of the pg-boss queue (instances working the same jobs use the same). @default 'research' */
  readonly name?: string;
  /**
   * How long pg-boss waits for a running job's heartbeat before giving the job to another worker, in seconds
   * (pg-boss needs at least 10). @default 30
   */
  readonly heartbeatSeconds?: number;
  /** How often pg-boss's monitor looks for jobs without a heartbeat, in seconds. @default 5 */
  readonly monitorSeconds?: number;
}

/** Longest a job may stay active in pg-boss before it is given again, whatever its heartbeat (2 h). */
const EXPIRE_SECONDS = 7_200;

const NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

function schemaSql(s: string): string {
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

interface JobRow {
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

function toRecord(row: JobRow): JobRecord {
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

/** Creates a {@link JobQueue} on PostgreSQL with pg-boss. Connects on first use. */
export function createPostgresJobQueue(options: PostgresJobQueueOptions): JobQueue {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const schemaName = options.schema ?? 'citewise';
  const name = options.name ?? 'research';
  if (!/^[\w.-]{1,100}$/.test(name)) throw new TypeError('name must be 1–100 letters, digits, _ . or -');
  const heartbeatSeconds = positiveInteger(
    'heartbeatSeconds',
    options.heartbeatSeconds,
    JOBS_DEFAULTS.heartbeatSeconds,
  );
  if (heartbeatSeconds < 10) throw new RangeError('heartbeatSeconds must be at least 10 (pg-boss)');
  const monitorSeconds = positiveInteger(
    'monitorSeconds',
    options.monitorSeconds,
    JOBS_DEFAULTS.monitorSeconds,
  );
  const connection: PostgresConnection = openPostgresConnection({
    connectionString: options.connectionString,
    schema: schemaName,
    migrate: false,
    maxConnections: 5,
  });
  const s = connection.schema;
  const held = new Map<string, BossJob>();
  let started: Promise<PgBoss> | undefined;
  let closed = false;

  /** The tables, then pg-boss and its queue. */
  function boss(): Promise<PgBoss> {
    started ??= (async () => {
      await transaction(async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
          `citewise-jobs-schema:${schemaName}`,
        ]);
        await client.query(schemaSql(s));
      });
      const { PgBoss } = await loadPgBoss();
      const instance = new PgBoss({
        connectionString: options.connectionString,
        schema: `${schemaName}_boss`,
        max: 3,
        superviseIntervalSeconds: monitorSeconds,
        monitorIntervalSeconds: monitorSeconds,
      });
      instance.on('error', () => {});
      await instance.start();
      if (!(await instance.getQueue(name))) {
        await instance
          .createQueue(name, {
            heartbeatSeconds,
            expireInSeconds: EXPIRE_SECONDS,
            retryLimit: 1_000_000,
            retryDelay: 0,
          })
          .catch(async (error: unknown) => {
            // Another instance created it at the same moment.
            if (!(await instance.getQueue(name))) throw error;
          });
      }
      return instance;
    })().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  }

  /**
   * Runs `work` in one transaction. A connection lost on the way (the database restarting) is reported
   * through the error thrown, as a 503, never as an unhandled 'error' event that would end the process;
   * the broken client is discarded rather than returned to the pool.
   */
  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await connection.pool.connect();
    } catch (error) {
      throw toPostgresError(error);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: unknown) => (broken ??= rollback as Error));
      // Our own refusals stay as they are; the database's failures become 503 where they mean "unreachable".
      throw error instanceof JobQueueFullError || error instanceof TypeError ? error : toPostgresError(error);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  const query = async <R extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []) => {
    await boss();
    return connection.query<R>(sql, params);
  };

  async function append(client: pg.PoolClient, id: string, type: string, data: unknown): Promise<JobEvent> {
    const { rows } = await client.query<{ id: number; at: string }>(
      `WITH bumped AS (UPDATE ${s}.research_jobs SET last_event = last_event + 1 WHERE id = $1 RETURNING last_event)
       INSERT INTO ${s}.research_job_events (job_id, id, type, data, at)
       SELECT $1, last_event, $2, $3::jsonb, ${NOW} FROM bumped RETURNING id, at`,
      [id, type, JSON.stringify(data ?? null)],
    );
    return { id: rows[0]!.id, type, data: data ?? null, at: Number(rows[0]!.at) };
  }

  async function get(id: string): Promise<JobRecord | null> {
    const { rows } = await query<JobRow>(`SELECT * FROM ${s}.research_jobs WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Ends a job as its lease holder (or cancels it: `token` null) with its terminal event. */
  async function end(
    id: string,
    token: string | null,
    status: JobStatus,
    values: { result?: unknown; error?: JobError; credits?: number },
  ): Promise<JobRecord | null> {
    await boss();
    return transaction(async (client) => {
      const { rows } = await client.query<JobRow>(
        `UPDATE ${s}.research_jobs SET status = $3, completed_at = ${NOW}, result = $4::jsonb, error = $5::jsonb,
           credits_used = $6
         WHERE id = $1 AND (CASE WHEN $2::text IS NULL THEN status IN ('queued', 'running')
                                  ELSE status = 'running' AND lease_token = $2 END)
         RETURNING *`,
        [
          id,
          token,
          status,
          values.result === undefined ? null : JSON.stringify(values.result),
          values.error === undefined ? null : JSON.stringify(values.error),
          values.credits ?? 0,
        ],
      );
      if (!rows[0]) return null;
      await append(client, id, status, values.error ? { status, error: values.error } : { status });
      return toRecord(rows[0]);
    });
  }

  /** Tells pg-boss a job is done with (its attempt may already be gone: then nothing happens). */
  async function release(token: string): Promise<void> {
    const delivered = held.get(token);
    held.delete(token);
    if (delivered) await (await boss()).complete(name, delivered).catch(() => {});
  }

  return withChecks({
    ...endersOf(end, release),

    async enqueue(input) {
      const instance = await boss();
      return transaction(async (client) => {
        // One account's enqueues one at a time: the cap of waiting jobs holds across instances.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`citewise-jobs:${input.account}`]);
        if (input.idempotencyKey !== undefined) {
          const { rows } = await client.query<JobRow>(
            `SELECT * FROM ${s}.research_jobs WHERE account = $1 AND idempotency_key = $2`,
            [input.account, input.idempotencyKey],
          );
          if (rows[0]) return { job: toRecord(rows[0]), created: false };
        }
        if (input.maxQueued !== undefined) {
          const { rows } = await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM ${s}.research_jobs WHERE account = $1 AND status = 'queued'`,
            [input.account],
          );
          if (Number(rows[0]!.n) >= input.maxQueued)
            throw new JobQueueFullError(input.account, input.maxQueued);
        }
        await client.query(
          `INSERT INTO ${s}.research_jobs (id, account, key_id, status, input, created_at, idempotency_key, fingerprint)
           VALUES ($1, $2, $3, 'queued', $4::jsonb, ${NOW}, $5, $6)`,
          [
            input.id,
            input.account,
            input.keyId ?? null,
            JSON.stringify(input.input ?? null),
            input.idempotencyKey ?? null,
            input.fingerprint ?? null,
          ],
        );
        await append(client, input.id, 'status', { status: 'queued' });
        // Offered in the same transaction: a job is never stored without its offer, nor offered unstored.
        await instance.send(
          name,
          { id: input.id },
          { group: { id: input.account }, db: { executeSql: (text, values) => client.query(text, values) } },
        );
        const { rows } = await client.query<JobRow>(`SELECT * FROM ${s}.research_jobs WHERE id = $1`, [
          input.id,
        ]);
        return { job: toRecord(rows[0]!), created: true };
      });
    },

    async claim(claimOptions) {
      const instance = await boss();
      const cap = claimOptions.maxRunningPerAccount;
      for (let tries = 0; tries < 20; tries++) {
        const [delivered] = await instance.fetch<{ id: string }>(name, cap ? { groupConcurrency: cap } : {});
        if (!delivered) return null;
        const id = delivered.data.id;
        const token = randomUUID();
        const claimed = await transaction(async (client) => {
          const { rows } = await client.query<JobRow>(
            `UPDATE ${s}.research_jobs SET status = 'running', attempts = attempts + 1,
               started_at = COALESCE(started_at, ${NOW}), lease_token = $2, lease_until = ${NOW} + $3
             WHERE id = $1 AND (status = 'queued' OR (status = 'running' AND lease_until <= ${NOW}))
             RETURNING *`,
            [id, token, claimOptions.leaseMs],
          );
          if (!rows[0]) return null;
          await append(client, id, 'status', { status: 'running', attempt: rows[0].attempts });
          return toRecord(rows[0]);
        });
        if (claimed) {
          held.set(token, delivered);
          return { job: claimed, lease: { jobId: id, token } };
        }
        const { rows } = await query<{ account: string; lease_until: string }>(
          `SELECT account, lease_until FROM ${s}.research_jobs WHERE id = $1 AND status = 'running'`,
          [id],
        );
        if (rows[0]) {
          // Its last worker's lease has not lapsed yet: offer it again when it does.
          const startAfter = new Date(Number(rows[0].lease_until) + 1);
          await instance.send(name, { id }, { group: { id: rows[0].account }, startAfter });
        }
        await instance.complete(name, delivered).catch(() => {});
      }
      return null;
    },

    async heartbeat(lease, leaseMs) {
      const { rows } = await query<{ status: JobStatus; lease_token: string | null; renewed: boolean }>(
        `WITH renewed AS (
           UPDATE ${s}.research_jobs SET lease_until = ${NOW} + $3
           WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id)
         SELECT status, lease_token, EXISTS (SELECT 1 FROM renewed) AS renewed
         FROM ${s}.research_jobs WHERE id = $1`,
        [lease.jobId, lease.token, leaseMs],
      );
      const row = rows[0];
      const state = row?.renewed
        ? 'ok'
        : row?.lease_token === lease.token && row.status === 'cancelled'
          ? 'cancelled'
          : 'lost';
      const delivered = held.get(lease.token);
      if (state === 'ok') {
        if (delivered) await (await boss()).touch(name, delivered).catch(() => {});
      } else {
        await release(lease.token);
      }
      return state;
    },

    async appendEvent(lease, type, data) {
      await boss();
      return transaction(async (client) => {
        const { rows } = await client.query(
          `SELECT 1 FROM ${s}.research_jobs WHERE id = $1 AND lease_token = $2 AND status = 'running' FOR UPDATE`,
          [lease.jobId, lease.token],
        );
        return rows.length ? append(client, lease.jobId, type, data) : null;
      });
    },

    async cancel(id) {
      // A queued job's offer is dropped when a worker is handed it; a running one's at its next heartbeat.
      return (await end(id, null, 'cancelled', {})) ?? get(id);
    },

    get,

    async findByIdempotencyKey(account, key) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE account = $1 AND idempotency_key = $2`,
        [account, key],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async list(listOptions) {
      const after = positionOf(listOptions);
      const params: unknown[] = [listOptions.account, listOptions.limit + 1];
      let where = 'account = $1';
      if (listOptions.status !== undefined) {
        params.push(listOptions.status);
        where += ` AND status = $${params.length}`;
      }
      if (after !== null) {
        params.push(after.createdAt, after.id);
        where += ` AND (created_at, id) < ($${params.length - 1}, $${params.length})`;
      }
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
        params,
      );
      return pageOf(rows.map(toRecord), listOptions.limit);
    },

    async events(id, range = {}) {
      const { after, limit } = eventRange(range);
      const { rows } = await query<{ id: number; type: string; data: unknown; at: string }>(
        `SELECT id, type, data, at FROM ${s}.research_job_events WHERE job_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
        [id, after, limit],
      );
      return rows.map((row) => ({ id: row.id, type: row.type, data: row.data, at: Number(row.at) }));
    },

    async unfinalized({ endedBefore, limit }) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE NOT finalized AND completed_at IS NOT NULL AND completed_at < $1
         ORDER BY completed_at LIMIT $2`,
        [endedBefore, limit],
      );
      return rows.map(toRecord);
    },

    async markFinalized(id) {
      await query(
        `UPDATE ${s}.research_jobs SET finalized = true WHERE id = $1 AND completed_at IS NOT NULL`,
        [id],
      );
    },

    async ping() {
      await connection.query('SELECT 1');
    },

    async close() {
      if (closed) return;
      closed = true;
      const instance = await started?.catch(() => undefined);
      await instance?.stop({ graceful: false, timeout: 1_000 }).catch(() => {});
      await connection.close();
    },
  });
}

async function loadPgBoss(): Promise<typeof PgBossModule> {
  try {
    return await import('pg-boss');
  } catch (error) {
    throw new Error('the PostgreSQL job queue needs the pg-boss package: npm install pg-boss', {
      cause: error,
    });
  }
}
