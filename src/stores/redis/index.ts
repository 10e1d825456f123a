/**
 * `citewise/redis`: keys, credits and rate limits in Redis (ioredis), for several citewise
 * instances sharing one truth. Every check-and-change is one Lua script on the server's clock, with keys
 * hash-tagged per account so the stores also run on Redis Cluster.
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { CreditStore, IdempotencyStore, KeyStore, RateLimiter, RateLimitOptions } from '../types.ts';
import { normalizeClock, normalizeRateLimitOptions } from '../validation.ts';
import { openRedisConnection, type RedisClient, type RedisConnectionOptions } from './connection.ts';
import { buildRedisCreditStore, normalizeRedisCreditSettings } from './credit-store.ts';
import { buildRedisIdempotencyStore } from './idempotency-store.ts';
import { buildRedisKeyStore, normalizeRedisKeySettings } from './key-store.ts';
import { buildRedisRateLimiter } from './rate-limiter.ts';

// Research jobs on this backend (see src/jobs/).
export { createRedisJobQueue, type RedisJobQueueOptions } from './job-queue.ts';
export { createRedisKeyStore } from './key-store.ts';
export type { RedisKeyStoreOptions } from './key-store.ts';
export { createRedisCreditStore } from './credit-store.ts';
export type { RedisCreditStoreOptions } from './credit-store.ts';
export { createRedisRateLimiter } from './rate-limiter.ts';
export { createRedisIdempotencyStore } from './idempotency-store.ts';
export type { RedisIdempotencyStoreOptions } from './idempotency-store.ts';
export type { RedisRateLimiterOptions } from './rate-limiter.ts';
export type { RedisClient, RedisConnectionOptions } from './connection.ts';
export { SCRIPTS as REDIS_SCRIPTS } from './scripts.ts';

/** Options of {@link createRedisStores}. */
export interface RedisStoresOptions extends RedisConnectionOptions {
  /** How long a verified key is cached in this process (bounds revocation delay on other instances). @default 5_000 */
  readonly keyCacheMs?: number;
  /** How long an unknown key is cached as unknown. @default 1_000 */
  readonly negativeCacheMs?: number;
  /** Most keys cached per process. @default 10_000 */
  readonly keyCacheSize?: number;
  /** How long settled reservation ids are remembered. @default 86_400_000 (24 h) */
  readonly settledRetentionMs?: number;
  /** How long commit/refund retry while Redis is unreachable. @default 5_000 */
  readonly settleRetryMs?: number;
  /** Clock for key timestamps and expiry (credits and limits use the Redis server's clock). @default Date.now */
  readonly now?: () => number;
}

/** The Redis stores sharing one client; `close()` closes the client if the stores created it. */
export interface RedisStores {
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  /** Requests sent with an Idempotency-Key, shared by every instance on this Redis. */
  readonly idempotency: IdempotencyStore;
  /** A rate limiter on the same client; limiters with different limits keep separate keys. */
  rateLimiter(options?: Partial<RateLimitOptions>): RateLimiter;
  readonly client: RedisClient;
  close(): Promise<void>;
}

/**
 * Connects to Redis (or adopts `client`) and returns the key store, credit store and a rate-limiter factory.
 * Commands fail fast while Redis is unreachable (no offline queue, a 2 s command timeout): every store call
 * then throws a 503 `CitewiseError` (`service_unavailable`), so searches fail closed; the client keeps
 * reconnecting and the stores work again as soon as Redis is back.
 *
 * @example
 * ```ts
 * import { createRedisStores } from 'citewise/redis';
 * const stores = createRedisStores({ url: 'redis://127.0.0.1:6379' });
 * const engine = createSearchEngine({
 *   keys: stores.keys,
 *   credits: stores.credits,
 *   rateLimiter: stores.rateLimiter({ limit: 60, windowMs: 60_000 }),
 * });
 * ```
 */
export function createRedisStores(options: RedisStoresOptions): RedisStores {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const creditSettings = normalizeRedisCreditSettings(options);
  const now = normalizeClock(options.now);
  // Validate the key-cache options the same way the standalone factory does, before connecting.
  const keySettings = normalizeRedisKeySettings(options, now);
  const connection = openRedisConnection(options);
  return {
    keys: buildRedisKeyStore(connection, keySettings, false),
    credits: buildRedisCreditStore(connection, creditSettings, false),
    idempotency: buildRedisIdempotencyStore(connection, false),
    rateLimiter: (limits = {}) => buildRedisRateLimiter(connection, normalizeRateLimitOptions(limits), false),
    client: connection.client,
    close: () => connection.close(),
  };
}
