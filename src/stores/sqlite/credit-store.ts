import { BudgetExceededError, QuotaExceededError } from '../../errors.ts';
import type { CreditStore, Reservation, ReserveInput } from '../types.ts';
import { assertAmount, assertId, assertPositiveMs, assertReserveInput } from '../validation.ts';
import { connectSqlite, pingSqlite } from './connection.ts';
import type { SqliteStoreOptions } from './connection.ts';
import { immediateTransaction } from './database.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createSqliteCreditStore}. */
export interface SqliteCreditStoreOptions extends SqliteStoreOptions {
  /**
   * How long settled reservations are kept (for idempotent commit/refund and auditing) before deletion.
   * @default 604_800_000 (7 days)
   */
  readonly settledRetentionMs?: number;
}

interface HoldRow {
  account: string;
  amount: number;
}

// How often (per connection) settled reservations past retention are deleted.
const PURGE_INTERVAL_MS = 60_000;

/**
 * Creates a {@link CreditStore} in SQLite. `credit_accounts.available` is what can be reserved: a
 * reservation subtracts from it at once (a CHECK constraint keeps it ≥ 0), commit returns the unspent rest,
 * refund or lapse returns everything. Every check-and-change runs in one `BEGIN IMMEDIATE` transaction, so
 * concurrent requests, connections and processes on the same file never overspend or settle twice.
 */
export function createSqliteCreditStore(options: SqliteCreditStoreOptions): CreditStore {
  const settledRetentionMs = options.settledRetentionMs ?? STORE_DEFAULTS.sqliteSettledRetentionMs;
  assertPositiveMs(settledRetentionMs, 'settledRetentionMs');
  const connection = connectSqlite(options);
  const { db, now, unlocked } = connection;

  const selectAvailable = db.prepare('SELECT available FROM credit_accounts WHERE account = ?');
  // Read-only balance: the stored figure plus holds that have lapsed but are not yet swept.
  const selectBalance = db.prepare(
    `SELECT available + COALESCE((SELECT SUM(amount) FROM credit_reservations
       WHERE account = $account AND status = 'held' AND expires_at <= $now), 0) AS balance
     FROM credit_accounts WHERE account = $account`,
  );
  const insertAccount = db.prepare(
    `INSERT INTO credit_accounts (account, available, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (account) DO NOTHING`,
  );
  const addCredits = db.prepare(
    'UPDATE credit_accounts SET available = available + ?, updated_at = ? WHERE account = ?',
  );
  const anyLapsed = db.prepare(
    "SELECT 1 AS found FROM credit_reservations WHERE status = 'held' AND expires_at <= ? LIMIT 1",
  );
  const returnLapsed = db.prepare(
    `UPDATE credit_accounts SET
       available = available + (SELECT SUM(r.amount) FROM credit_reservations r
         WHERE r.account = credit_accounts.account AND r.status = 'held' AND r.expires_at <= $now),
       updated_at = $now
     WHERE account IN (SELECT account FROM credit_reservations WHERE status = 'held' AND expires_at <= $now)`,
  );
  // Lapsed holds give their budgets back first (while they are still 'held').
  const returnLapsedBudgets = db.prepare(
    `UPDATE credit_budgets SET spent = MAX(0, spent - (SELECT SUM(r.amount) FROM credit_reservations r
         JOIN credit_budget_holds h ON h.reservation_id = r.id
         WHERE r.status = 'held' AND r.expires_at <= $now AND r.account = credit_budgets.account
           AND h.key_id = credit_budgets.key_id AND h.budget_window = credit_budgets.budget_window))
     WHERE EXISTS (SELECT 1 FROM credit_reservations r JOIN credit_budget_holds h ON h.reservation_id = r.id
         WHERE r.status = 'held' AND r.expires_at <= $now AND r.account = credit_budgets.account
           AND h.key_id = credit_budgets.key_id AND h.budget_window = credit_budgets.budget_window)`,
  );
  const dropLapsedBudgetHolds = db.prepare(
    `DELETE FROM credit_budget_holds WHERE reservation_id IN
       (SELECT id FROM credit_reservations WHERE status = 'held' AND expires_at <= $now)`,
  );
  const selectBudget = db.prepare(
    'SELECT budget_window, spent FROM credit_budgets WHERE account = ? AND key_id = ?',
  );
  const putBudget = db.prepare(
    `INSERT INTO credit_budgets (account, key_id, budget_window, spent) VALUES (?, ?, ?, ?)
     ON CONFLICT (account, key_id) DO UPDATE SET budget_window = excluded.budget_window, spent = excluded.spent`,
  );
  const insertBudgetHold = db.prepare(
    'INSERT INTO credit_budget_holds (reservation_id, key_id, budget_window) VALUES (?, ?, ?)',
  );
  const takeBudgetHold = db.prepare(
    'DELETE FROM credit_budget_holds WHERE reservation_id = ? RETURNING key_id, budget_window',
  );
  const giveBudgetBack = db.prepare(
    `UPDATE credit_budgets SET spent = MAX(0, spent - ?)
     WHERE account = ? AND key_id = ? AND budget_window = ?`,
  );
  const markLapsed = db.prepare(
    "UPDATE credit_reservations SET status = 'lapsed', settled_at = $now WHERE status = 'held' AND expires_at <= $now",
  );
  const purgeSettled = db.prepare(
    "DELETE FROM credit_reservations WHERE status <> 'held' AND settled_at <= ?",
  );
  const reservationExists = db.prepare('SELECT 1 AS found FROM credit_reservations WHERE id = ?');
  const insertReservation = db.prepare(
    `INSERT INTO credit_reservations (id, account, amount, status, created_at, expires_at)
     VALUES (?, ?, ?, 'held', ?, ?)`,
  );
  const selectHold = db.prepare(
    "SELECT account, amount FROM credit_reservations WHERE id = ? AND status = 'held' AND expires_at > ?",
  );
  const settleHold = db.prepare(
    "UPDATE credit_reservations SET status = ?, charged = ?, settled_at = ? WHERE id = ? AND status = 'held'",
  );

  let lastPurge = -Infinity;

  /** Returns lapsed holds to their accounts; occasionally deletes old settled rows. Call inside a transaction. */
  function housekeep(at: number): void {
    if (anyLapsed.get(at)) {
      returnLapsedBudgets.run({ now: at });
      dropLapsedBudgetHolds.run({ now: at });
      returnLapsed.run({ now: at });
      markLapsed.run({ now: at });
    }
    if (at - lastPurge >= PURGE_INTERVAL_MS) {
      purgeSettled.run(at - settledRetentionMs);
      lastPurge = at;
    }
  }

  /** What `key` spent in `window` (0 when its counter is in another window). Call inside a transaction. */
  function spentOf(account: string, key: string, window: string): number {
    const row = selectBudget.get(account, key) as { budget_window: string; spent: number } | undefined;
    return row && row.budget_window === window ? row.spent : 0;
  }

  function availableOf(account: string): number | undefined {
    return (selectAvailable.get(account) as { available: number } | undefined)?.available;
  }

  function settle(
    id: string,
    status: 'committed' | 'refunded',
    actual: number | undefined,
  ): Promise<boolean> {
    return unlocked(() =>
      immediateTransaction(db, () => {
        const at = Math.floor(now());
        housekeep(at);
        const hold = selectHold.get(id, at) as HoldRow | undefined;
        if (!hold) return false;
        const spent = status === 'refunded' ? 0 : Math.min(actual ?? hold.amount, hold.amount);
        settleHold.run(status, spent, at, id);
        if (hold.amount - spent > 0) addCredits.run(hold.amount - spent, at, hold.account);
        const budget = takeBudgetHold.get(id) as { key_id: string; budget_window: string } | undefined;
        if (budget && hold.amount - spent > 0) {
          giveBudgetBack.run(hold.amount - spent, hold.account, budget.key_id, budget.budget_window);
        }
        return true;
      }),
    );
  }

  return {
    async openAccount(account: string, initialCredits: number) {
      assertId(account, 'account');
      assertAmount(initialCredits, 'initialCredits');
      const at = Math.floor(now());
      return unlocked(() => Number(insertAccount.run(account, initialCredits, at, at).changes) > 0);
    },

    async hasAccount(account: string) {
      assertId(account, 'account');
      return unlocked(() => availableOf(account) !== undefined);
    },

    async balance(account: string) {
      assertId(account, 'account');
      const row = (await unlocked(() => selectBalance.get({ account, now: Math.floor(now()) }))) as
        { balance: number } | undefined;
      return row?.balance ?? 0;
    },

    async grant(account: string, amount: number) {
      assertId(account, 'account');
      assertAmount(amount, 'amount');
      return unlocked(() =>
        immediateTransaction(db, () => {
          const at = Math.floor(now());
          housekeep(at);
          const current = availableOf(account);
          const next = (current ?? 0) + amount;
          if (next > Number.MAX_SAFE_INTEGER)
            throw new RangeError('balance would exceed Number.MAX_SAFE_INTEGER');
          if (current === undefined) insertAccount.run(account, amount, at, at);
          else addCredits.run(amount, at, account);
          return next;
        }),
      );
    },

    async reserve(input: ReserveInput): Promise<Reservation> {
      assertReserveInput(input);
      const { account, id, amount, ttlMs, budget } = input;
      // The clock is read under the lock, so time spent waiting for another process counts.
      return unlocked(() =>
        immediateTransaction(db, () => {
          const at = Math.floor(now());
          const expiresAt = Math.ceil(at + ttlMs);
          housekeep(at);
          if (reservationExists.get(id)) throw new TypeError(`reservation id ${id} already exists`);
          const current = availableOf(account) ?? 0;
          if (amount > current) throw new QuotaExceededError(current, amount);
          if (budget && amount > 0) {
            const spent = spentOf(account, budget.key, budget.window);
            if (spent + amount > budget.limit) throw new BudgetExceededError(spent, budget.limit, amount);
            putBudget.run(account, budget.key, budget.window, spent + amount);
            insertBudgetHold.run(id, budget.key, budget.window);
          }
          if (amount > 0) addCredits.run(-amount, at, account);
          insertReservation.run(id, account, amount, at, expiresAt);
          return { id, account, amount, expiresAt };
        }),
      );
    },

    async commit(id: string, actual?: number) {
      assertId(id, 'reservation id');
      if (actual !== undefined) assertAmount(actual, 'actual');
      return settle(id, 'committed', actual);
    },

    async refund(id: string) {
      assertId(id, 'reservation id');
      return settle(id, 'refunded', undefined);
    },

    async budgetSpent(account: string, key: string, window: string) {
      assertId(account, 'account');
      assertId(key, 'budget key');
      return unlocked(() =>
        immediateTransaction(db, () => {
          housekeep(Math.floor(now()));
          return spentOf(account, key, window);
        }),
      );
    },

    async ping() {
      pingSqlite(db);
    },
    async close() {
      connection.close();
    },
  };
}
