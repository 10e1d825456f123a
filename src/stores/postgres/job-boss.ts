/**
 * Start-up of the PostgreSQL job queue (its tables, then pg-boss and its queue) and its transactions.
 * Module-level helpers of `createPostgresJobQueue` (`postgres.ts`), given the connection and settings they need.
 */
import type pg from 'pg';
import type * as PgBossModule from 'pg-boss';
import type { PgBoss } from 'pg-boss';
import { toPostgresError, type PostgresConnection } from './connection.ts';
import { schemaSql } from './job-rows.ts';
import { JobQueueFullError } from '../job-queue.ts';

/** Longest a job may stay active in pg-boss before it is given again, whatever its heartbeat (2 h). */
const EXPIRE_SECONDS = 7_200;

/** What {@link startPgBoss} needs: the queue's resolved options. */
export interface PgBossSettings {
  readonly connection: PostgresConnection;
  readonly connectionString: string;
  /** Schema of the job tables; pg-boss keeps its own in `<schemaName>_boss`. */
  readonly schemaName: string;
  /** Name of the pg-boss queue. */
  readonly name: string;
  readonly heartbeatSeconds: number;
  readonly monitorSeconds: number;
}

/** Creates the job tables (once across instances), then starts pg-boss and creates its queue if missing. */
export async function startPgBoss(settings: PgBossSettings): Promise<PgBoss> {
  const { connection, schemaName, name } = settings;
  await inTransaction(connection, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`citewise-jobs-schema:${schemaName}`]);
    await client.query(schemaSql(connection.schema));
  });
  const { PgBoss } = await loadPgBoss();
  const instance = new PgBoss({
    connectionString: settings.connectionString,
    schema: `${schemaName}_boss`,
    max: 3,
    superviseIntervalSeconds: settings.monitorSeconds,
    monitorIntervalSeconds: settings.monitorSeconds,
  });
  instance.on('error', () => {});
  await instance.start();
  if (!(await instance.getQueue(name))) {
    await instance
      .createQueue(name, {
        heartbeatSeconds: settings.heartbeatSeconds,
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
}

/**
 * Runs `work` in one transaction. A connection lost on the way (the database restarting) is reported
 * through the error thrown, as a 503, never as an unhandled 'error' event that would end the process;
 * the broken client is discarded rather than returned to the pool.
 */
export async function inTransaction<T>(
  connection: PostgresConnection,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
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

async function loadPgBoss(): Promise<typeof PgBossModule> {
  try {
    return await import('pg-boss');
  } catch (error) {
    throw new Error('the PostgreSQL job queue needs the pg-boss package: npm install pg-boss', {
      cause: error,
    });
  }
}
