import { BudgetExceededError, QuotaExceededError } from '../../errors.ts';
import { nonNegativeNumber } from '../../options.ts';
import { retryWhileUnavailable } from '../retry.ts';
import type { CreditStore, Reservation, ReserveInput } from '../types.ts';
import { assertAmount, assertId, assertReserveInput } from '../validation.ts';
import {
  openPostgresConnection,
  toNumber,
  type PostgresConnection,
  type PostgresConnectionOptions,
} from './connection.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

interface ReserveRow {
  o_reserved: boolean;
  o_budget?: boolean;
  o_available: string | null;
  o_expires_at: string | null;
}

/** Options of {@link createPostgresCreditStore}. */
export interface PostgresCreditStoreOptions extends PostgresConnectionOptions {
  /**
   * How long commit and refund keep retrying while the database is unreachable (e.g. restarting), so an
   * answered search is still charged. Safe because settlement is idempotent by reservation id.
   * `0` = no retry. @default 5_000
   */
  readonly settleRetryMs?: number;
}

/**
 * Creates a {@link CreditStore} in PostgreSQL with a durable ledger. Each operation is one call of a
 * PL/pgSQL function (one statement, so atomic): the check-and-change is `UPDATE … WHERE available >= n`
 * (and a CHECK constraint keeps `available` ≥ 0), settlement locks the reservation row so exactly one of
 * commit/refund wins, and every grant, reservation, commit, refund and lapse appends a `credit_ledger`
 * row. Times come from the database clock. Settled reservations are kept, so an id is never reused.
 */
export function createPostgresCreditStore(options: PostgresCreditStoreOptions): CreditStore {
  const settleRetryMs = normalizeSettleRetryMs(options.settleRetryMs);
  return buildPostgresCreditStore(openPostgresConnection(options), settleRetryMs, true);
}

/** Validates `settleRetryMs` (default 5 000). */
export function normalizeSettleRetryMs(value: unknown): number {
  return nonNegativeNumber('settleRetryMs', value, STORE_DEFAULTS.settleRetryMs);
}

/** @internal Builds the credit store on an open connection. */
export function buildPostgresCreditStore(
  connection: PostgresConnection,
  settleRetryMs: number,
  ownsConnection: boolean,
): CreditStore {
  const { schema } = connection;
  return {
    async openAccount(account: string, initialCredits: number) {
      assertId(account, 'account');
      assertAmount(initialCredits, 'initialCredits');
      const { rows } = await connection.query<{ created: boolean }>(
        `SELECT ${schema}.open_account($1, $2) AS created`,
        [account, initialCredits],
      );
      return rows[0]?.created === true;
    },

    async hasAccount(account: string) {
      assertId(account, 'account');
      const { rowCount } = await connection.query(
        `SELECT 1 FROM ${schema}.credit_accounts WHERE account = $1`,
        [account],
      );
      return rowCount === 1;
    },

    async balance(account: string) {
      assertId(account, 'account');
      // Read-only: the stored figure plus holds that have lapsed but are not swept yet.
      const { rows } = await connection.query<{ balance: string }>(
        `SELECT a.available + COALESCE((SELECT sum(r.amount) FROM ${schema}.credit_reservations r
           WHERE r.account = a.account AND r.status = 'held' AND r.expires_at <= ${schema}.now_ms()), 0)
           AS balance
         FROM ${schema}.credit_accounts a WHERE a.account = $1`,
        [account],
      );
      return rows[0] ? toNumber(rows[0].balance) : 0;
    },

    async grant(account: string, amount: number) {
      assertId(account, 'account');
      assertAmount(amount, 'amount');
      const { rows } = await connection.query<{ balance: string }>(
        `SELECT ${schema}.grant_credits($1, $2) AS balance`,
        [account, amount],
      );
      const balance = toNumber(rows[0]?.balance);
      if (balance < 0) throw new RangeError('balance would exceed Number.MAX_SAFE_INTEGER');
      return balance;
    },

    async reserve(input: ReserveInput): Promise<Reservation> {
      assertReserveInput(input);
      const { account, id, amount, ttlMs, budget } = input;
      let row: ReserveRow | undefined;
      try {
        ({
          rows: [row],
        } = budget
          ? await connection.query<ReserveRow>(
              `SELECT * FROM ${schema}.reserve_with_budget($1, $2, $3, $4, $5, $6, $7)`,
              [id, account, amount, ttlMs, budget.key, budget.limit, budget.window],
            )
          : await connection.query<ReserveRow>(`SELECT * FROM ${schema}.reserve($1, $2, $3, $4)`, [
              id,
              account,
              amount,
              ttlMs,
            ]));
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new TypeError(`reservation id ${id} already exists`, { cause: error });
        }
        throw error;
      }
      if (budget && row && !row.o_reserved && row.o_budget) {
        throw new BudgetExceededError(toNumber(row.o_available ?? 0), budget.limit, amount);
      }
      if (!row?.o_reserved) throw new QuotaExceededError(toNumber(row?.o_available ?? 0), amount);
      return { id, account, amount, expiresAt: toNumber(row.o_expires_at) };
    },

    async commit(id: string, actual?: number) {
      assertId(id, 'reservation id');
      if (actual !== undefined) assertAmount(actual, 'actual');
      const { rows } = await retryWhileUnavailable(
        () =>
          connection.query<{ settled: boolean }>(`SELECT ${schema}.settle($1, true, $2) AS settled`, [
            id,
            actual ?? null,
          ]),
        settleRetryMs,
      );
      return rows[0]?.settled === true;
    },

    async refund(id: string) {
      assertId(id, 'reservation id');
      const { rows } = await retryWhileUnavailable(
        () =>
          connection.query<{ settled: boolean }>(`SELECT ${schema}.settle($1, false, NULL) AS settled`, [id]),
        settleRetryMs,
      );
      return rows[0]?.settled === true;
    },

    async budgetSpent(account: string, key: string, window: string) {
      assertId(account, 'account');
      assertId(key, 'budget key');
      const { rows } = await connection.query<{ spent: string }>(
        `SELECT ${schema}.budget_spent($1, $2, $3) AS spent`,
        [account, key, window],
      );
      return toNumber(rows[0]?.spent ?? 0);
    },

    async ping() {
      await connection.query('SELECT 1');
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
