import { LRUCache } from 'lru-cache';
import { BudgetExceededError, QuotaExceededError } from '../../errors.ts';
import { nonNegativeNumber } from '../../options.ts';
import { retryWhileUnavailable } from '../retry.ts';
import type { CreditStore, Reservation, ReserveInput } from '../types.ts';
import { assertAmount, assertId, assertPositiveMs, assertReserveInput } from '../validation.ts';
import {
  hashTag,
  openRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createRedisCreditStore}. */
export interface RedisCreditStoreOptions extends RedisConnectionOptions {
  /**
   * How long a reservation id is remembered after its hold ends, so that a late commit/refund returns
   * `false` and a reused id is refused. @default 86_400_000 (24 h)
   */
  readonly settledRetentionMs?: number;
  /**
   * How long commit and refund keep retrying while Redis is unreachable, so an answered search is still
   * charged after a short outage. Safe because settlement is idempotent by reservation id. @default 5_000
   */
  readonly settleRetryMs?: number;
}

/** Validated settings of the Redis credit store. */
export interface RedisCreditSettings {
  readonly settledRetentionMs: number;
  readonly settleRetryMs: number;
}

/** Validates the credit store's settings, applying the defaults. */
export function normalizeRedisCreditSettings(options: {
  settledRetentionMs?: number;
  settleRetryMs?: number;
}): RedisCreditSettings {
  const settledRetentionMs = options.settledRetentionMs ?? STORE_DEFAULTS.settledRetentionMs;
  assertPositiveMs(settledRetentionMs, 'settledRetentionMs');
  const settleRetryMs = nonNegativeNumber(
    'settleRetryMs',
    options.settleRetryMs,
    STORE_DEFAULTS.settleRetryMs,
  );
  return { settledRetentionMs, settleRetryMs };
}

/**
 * Creates a {@link CreditStore} in Redis. Per account (one hash tag, so one Cluster slot): a hash with the
 * available balance, a hash of live holds and a sorted set of their expiry times. Every check-and-change
 * is one Lua script on the server's clock, and each script first returns lapsed holds to the balance.
 * A reservation id is claimed first with `SET NX` (its own slot), which makes ids unique across accounts
 * and maps an id back to its account for commit/refund.
 */
export function createRedisCreditStore(options: RedisCreditStoreOptions): CreditStore {
  const settings = normalizeRedisCreditSettings(options);
  return buildRedisCreditStore(openRedisConnection(options), settings, true);
}

/** @internal Builds the credit store on an open connection. */
export function buildRedisCreditStore(
  connection: RedisConnection,
  { settledRetentionMs, settleRetryMs }: RedisCreditSettings,
  ownsConnection: boolean,
): CreditStore {
  const { prefix } = connection;
  const accountKeys = (account: string) => {
    const base = `${prefix}acct${hashTag(account)}`;
    return [`${base}:a`, `${base}:holds`, `${base}:expiries`, `${base}:hbudgets`, `${base}:budgets`];
  };
  const reservationKey = (id: string) => `${prefix}res${hashTag(id)}`;
  // id → account of reservations made through this store: the mapping never changes, so a local hit saves
  // the lookup round trip when the same instance settles what it reserved (the usual case).
  const reservedHere = new LRUCache<string, string>({ max: 10_000 });

  function settle(id: string, mode: 'commit' | 'refund', actual: number | undefined): Promise<boolean> {
    return retryWhileUnavailable(() => settleOnce(id, mode, actual), settleRetryMs);
  }

  async function settleOnce(
    id: string,
    mode: 'commit' | 'refund',
    actual: number | undefined,
  ): Promise<boolean> {
    const account =
      reservedHere.get(id) ?? (await connection.call((client) => client.get(reservationKey(id))));
    if (account === null) return false;
    const settled = await connection.run('citewiseSettle', accountKeys(account), [
      id,
      mode,
      actual === undefined ? '' : actual,
    ]);
    reservedHere.delete(id);
    return settled === 1;
  }

  return {
    async openAccount(account: string, initialCredits: number) {
      assertId(account, 'account');
      assertAmount(initialCredits, 'initialCredits');
      const [balanceKey] = accountKeys(account);
      return (await connection.run('citewiseOpenAccount', [balanceKey!], [initialCredits])) === 1;
    },

    async hasAccount(account: string) {
      assertId(account, 'account');
      const [balanceKey] = accountKeys(account);
      return (await connection.call((client) => client.exists(balanceKey!))) === 1;
    },

    async balance(account: string) {
      assertId(account, 'account');
      return Number(await connection.run('citewiseBalance', accountKeys(account), []));
    },

    async grant(account: string, amount: number) {
      assertId(account, 'account');
      assertAmount(amount, 'amount');
      const balance = Number(await connection.run('citewiseGrant', accountKeys(account), [amount]));
      if (balance < 0) throw new RangeError('balance would exceed Number.MAX_SAFE_INTEGER');
      return balance;
    },

    async reserve(input: ReserveInput): Promise<Reservation> {
      assertReserveInput(input);
      const { account, id, amount, ttlMs, budget } = input;
      const claimMs = Math.ceil(ttlMs + settledRetentionMs);
      const claimed = await connection.call((client) =>
        client.set(reservationKey(id), account, 'PX', claimMs, 'NX'),
      );
      if (claimed !== 'OK') throw new TypeError(`reservation id ${id} already exists`);
      // If this fails, whether the script ran is unknown: the claim stays, so the id is never held twice.
      const outcome = (await connection.run('citewiseReserve', accountKeys(account), [
        id,
        amount,
        ttlMs,
        budget?.key ?? '',
        budget?.limit ?? 0,
        budget?.window ?? '',
      ])) as [number, number];
      if (outcome[0] !== 1) {
        // Refused: release the id (it was never reserved). A failure here only keeps the id unusable.
        await connection.call((client) => client.del(reservationKey(id))).catch(() => {});
        if (outcome[0] === 2 && budget) {
          throw new BudgetExceededError(Number(outcome[1]), budget.limit, amount);
        }
        throw new QuotaExceededError(Number(outcome[1]), amount);
      }
      reservedHere.set(id, account, { ttl: Math.ceil(ttlMs) });
      return { id, account, amount, expiresAt: Number(outcome[1]) };
    },

    async commit(id: string, actual?: number) {
      assertId(id, 'reservation id');
      if (actual !== undefined) assertAmount(actual, 'actual');
      return settle(id, 'commit', actual);
    },

    async refund(id: string) {
      assertId(id, 'reservation id');
      return settle(id, 'refund', undefined);
    },

    async budgetSpent(account: string, key: string, window: string) {
      assertId(account, 'account');
      assertId(key, 'budget key');
      return Number(await connection.run('citewiseBudgetSpent', accountKeys(account), [key, window]));
    },

    async ping() {
      await connection.ping();
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
