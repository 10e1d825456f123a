/**
 * The PostgreSQL pool shared by the PostgreSQL stores: pool settings that fail fast, lazy migration on
 * first use, and the mapping of connection failures to a 503 {@link CitewiseError}.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import { CitewiseError } from '../../errors.ts';
import { positiveInteger } from '../../options.ts';
import { migratePostgres, quoteIdentifier } from './migrations.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Connection options shared by the PostgreSQL store factories. */
export interface PostgresConnectionOptions {
  /** A `pg.Pool` to use (never ended by the stores). Give `pool` or `connectionString`. */
  readonly pool?: pg.Pool;
  /** `postgres://user:password@host:5432/db`; the stores create and own a pool. */
  readonly connectionString?: string;
  /** Schema holding the tables (created by the migration). @default 'citewise' */
  readonly schema?: string;
  /**
   * Apply pending migrations on first use. Turn off when `citewise migrate` (or `migrate()`) runs
   * as a deployment step and the service's database user may not change the schema. @default true
   */
  readonly migrate?: boolean;
  /** Size of a pool created from `connectionString`. @default 10 */
  readonly maxConnections?: number;
  /** Deadline of one statement (server side) and of getting a connection, in ms. @default 5_000 */
  readonly statementTimeoutMs?: number;
}

/** An open pool with the schema, lazy migration and error mapping. */
export interface PostgresConnection {
  readonly pool: pg.Pool;
  /** The quoted schema name, for SQL text. */
  readonly schema: string;
  /** Runs one statement (after migrations); failures to reach the database become 503. */
  query<R extends pg.QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>>;
  /** Applies pending migrations now; returns the versions applied. */
  migrate(): Promise<number[]>;
  close(): Promise<void>;
}

/** Validates the options and creates (or adopts) the pool. Does not connect until the first query. */
export function openPostgresConnection(options: PostgresConnectionOptions): PostgresConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { pool: given, connectionString } = options;
  if ((given === undefined) === (connectionString === undefined)) {
    throw new TypeError('give exactly one of pool or connectionString');
  }
  if (
    connectionString !== undefined &&
    (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString))
  ) {
    throw new TypeError('connectionString must be a postgres:// or postgresql:// URL');
  }
  const schemaName = options.schema ?? 'citewise';
  const schema = quoteIdentifier(schemaName);
  const maxConnections = positiveInteger(
    'maxConnections',
    options.maxConnections,
    STORE_DEFAULTS.postgresMaxConnections,
  );
  const statementTimeoutMs = positiveInteger(
    'statementTimeoutMs',
    options.statementTimeoutMs,
    STORE_DEFAULTS.postgresStatementTimeoutMs,
  );
  const autoMigrate = options.migrate ?? true;

  const owned = given === undefined;
  const pool =
    given ??
    new (loadPg().Pool)({
      connectionString,
      max: maxConnections,
      connectionTimeoutMillis: statementTimeoutMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 1_000,
      idleTimeoutMillis: 10_000,
    });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would crash the process.
  if (owned) pool.on('error', () => {});

  let migrated: Promise<unknown> | null = autoMigrate ? null : Promise.resolve();
  let closed = false;

  async function migrate(): Promise<number[]> {
    try {
      return await migratePostgres(pool, schemaName);
    } catch (error) {
      throw toPostgresError(error);
    }
  }

  function ready(): Promise<unknown> {
    migrated ??= migrate().catch((error: unknown) => {
      migrated = null; // retry on the next call (e.g. the database was down)
      throw error;
    });
    return migrated;
  }

  return {
    pool,
    schema,
    async query<R extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []) {
      if (closed) throw unavailable(new Error('the PostgreSQL stores are closed'));
      await ready();
      for (let attempt = 1; ; attempt++) {
        try {
          return await pool.query<R>(sql, params as unknown[]);
        } catch (error) {
          // A deadlock or serialisation failure rolled the whole statement back: running it again is safe.
          if (attempt < 3 && isRetryable(error)) continue;
          throw toPostgresError(error);
        }
      }
    },
    migrate,
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await pool.end();
    },
  };
}

/**
 * pg is an optional peer dependency: it is loaded only when a PostgreSQL store is created from a URL, so
 * the rest of citewise (and its CLI) works without it.
 */
function loadPg(): typeof pg {
  try {
    return createRequire(import.meta.url)('pg') as typeof pg;
  } catch (error) {
    throw new Error('the PostgreSQL stores need the pg package: npm install pg', { cause: error });
  }
}

function sqlState(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function isRetryable(error: unknown): boolean {
  return sqlState(error) === '40P01' || sqlState(error) === '40001';
}

/** SQL errors that are the caller's fault or ours stay as they are; anything else means "cannot reach it". */
export function toPostgresError(error: unknown): unknown {
  if (error instanceof CitewiseError) return error;
  const code = sqlState(error);
  // SQLSTATE classes: 08 connection, 53 resources, 57 operator intervention (shutdown), 58 system, 40 rollback.
  const sqlStateUnavailable = /^(08|53|57|58|40)/.test(code);
  const looksLikeSql = /^[0-9A-Z]{5}$/.test(code);
  if (looksLikeSql && !sqlStateUnavailable) return error;
  return unavailable(error);
}

/** A 503 that says PostgreSQL could not be reached (details stay in `message`/`cause`). */
export function unavailable(cause: unknown): CitewiseError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new CitewiseError('service_unavailable', `PostgreSQL unavailable: ${message}`, {
    cause,
    retryAfterMs: 1_000,
  });
}

/** PostgreSQL `bigint` arrives as a string; every stored number is a safe integer. */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}
