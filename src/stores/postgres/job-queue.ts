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
import type { Job as BossJob, PgBoss } from 'pg-boss';
import { positiveInteger } from '../../options.ts';
import { openPostgresConnection, type PostgresConnection } from './connection.ts';
import { STORE_DEFAULTS } from '../defaults.ts';
import { endersOf, withChecks } from '../job-queue-common.ts';
import { inTransaction, startPgBoss } from './job-boss.ts';
import { postgresJobReads } from './job-reads.ts';
import { appendEventRow, NOW, toRecord, type JobRow } from './job-rows.ts';
import {
  JobQueueFullError,
  type EnqueueJobInput,
  type JobError,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from '../job-queue.ts';

/** Options of {@link createPostgresJobQueue}. */
export interface PostgresJobQueueOptions {
  /** `postgres://user:password@host:5432/db`. */
  readonly connectionString: string;
  /** Schema of the job tables (the stores'); pg-boss keeps its own in `<schema>_boss`. @default 'citewise' */
  readonly schema?: string;
  /**
   * Name of the pg-boss queue (instances working the same jobs use the same). The default, and the table
   * `research_jobs`, are the names jobs were stored under when the queue served research jobs only.
   * @default 'research'
   */
  readonly name?: string;
  /**
   * How long pg-boss waits for a running job's heartbeat before giving the job to another worker, in seconds
   * (pg-boss needs at least 10). @default 30
   */
  readonly heartbeatSeconds?: number;
  /** How often pg-boss's monitor looks for jobs without a heartbeat, in seconds. @default 5 */
  readonly monitorSeconds?: number;
}

/** Creates a {@link JobQueue} on PostgreSQL with pg-boss. Connects on first use. */
export function createPostgresJobQueue<Input = unknown, Result = unknown>(
  options: PostgresJobQueueOptions,
): JobQueue<Input, Result> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const schemaName = options.schema ?? 'citewise';
  const name = options.name ?? 'research';
  if (!/^[\w.-]{1,100}$/.test(name)) throw new TypeError('name must be 1–100 letters, digits, _ . or -');
  const heartbeatSeconds = positiveInteger(
    'heartbeatSeconds',
    options.heartbeatSeconds,
    STORE_DEFAULTS.heartbeatSeconds,
  );
  if (heartbeatSeconds < 10) throw new RangeError('heartbeatSeconds must be at least 10 (pg-boss)');
  const monitorSeconds = positiveInteger(
    'monitorSeconds',
    options.monitorSeconds,
    STORE_DEFAULTS.monitorSeconds,
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
    started ??= startPgBoss({
      connection,
      connectionString: options.connectionString,
      schemaName,
      name,
      heartbeatSeconds,
      monitorSeconds,
    }).catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  }

  const transaction = <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    inTransaction(connection, work);

  const query = async <R extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []) => {
    await boss();
    return connection.query<R>(sql, params);
  };
  const reads = postgresJobReads(query, s);

  const append = (client: pg.PoolClient, id: string, type: string, data: unknown) =>
    appendEventRow(client, s, id, type, data);

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

  return withChecks<Input, Result>({
    ...endersOf(end, release),

    async enqueue(input) {
      const instance = await boss();
      return transaction((client) => storeAndOffer(client, s, input, instance, name));
    },

    async claim(claimOptions) {
      const instance = await boss();
      const cap = claimOptions.maxRunningPerAccount;
      for (let tries = 0; tries < 20; tries++) {
        const [delivered] = await instance.fetch<{ id: string }>(name, cap ? { groupConcurrency: cap } : {});
        if (!delivered) return null;
        const id = delivered.data.id;
        const token = randomUUID();
        const claimed = await transaction((client) => leaseJob(client, s, id, token, claimOptions.leaseMs));
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
      return (await end(id, null, 'cancelled', {})) ?? reads.get(id);
    },

    ...reads,

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

/**
 * Stores a new job (or finds the one under its idempotency key) and offers it to pg-boss, on `client` inside
 * the caller's transaction. Refuses with {@link JobQueueFullError} past the account's cap of waiting jobs.
 */
async function storeAndOffer(
  client: pg.PoolClient,
  s: string,
  input: EnqueueJobInput,
  instance: PgBoss,
  name: string,
): Promise<{ job: JobRecord; created: boolean }> {
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
    if (Number(rows[0]!.n) >= input.maxQueued) throw new JobQueueFullError(input.account, input.maxQueued);
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
  await appendEventRow(client, s, input.id, 'status', { status: 'queued' });
  // Offered in the same transaction: a job is never stored without its offer, nor offered unstored.
  await instance.send(
    name,
    { id: input.id },
    { group: { id: input.account }, db: { executeSql: (text, values) => client.query(text, values) } },
  );
  const { rows } = await client.query<JobRow>(`SELECT * FROM ${s}.research_jobs WHERE id = $1`, [input.id]);
  return { job: toRecord(rows[0]!), created: true };
}

/** Gives job `id` a lease (`token`, for `leaseMs`) if it is waiting or its last lease lapsed; null if not. */
async function leaseJob(
  client: pg.PoolClient,
  s: string,
  id: string,
  token: string,
  leaseMs: number,
): Promise<JobRecord | null> {
  const { rows } = await client.query<JobRow>(
    `UPDATE ${s}.research_jobs SET status = 'running', attempts = attempts + 1,
       started_at = COALESCE(started_at, ${NOW}), lease_token = $2, lease_until = ${NOW} + $3
     WHERE id = $1 AND (status = 'queued' OR (status = 'running' AND lease_until <= ${NOW}))
     RETURNING *`,
    [id, token, leaseMs],
  );
  if (!rows[0]) return null;
  await appendEventRow(client, s, id, 'status', { status: 'running', attempt: rows[0].attempts });
  return toRecord(rows[0]);
}
