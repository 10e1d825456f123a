import { assertCost } from '../gcra.ts';
import type { RateLimiter, RateLimitOptions, RateLimitResult } from '../types.ts';
import { assertId, normalizeRateLimitOptions } from '../validation.ts';
import {
  hashTag,
  openRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** Options of {@link createRedisRateLimiter}. */
export interface RedisRateLimiterOptions extends RedisConnectionOptions, Partial<RateLimitOptions> {}

/**
 * Creates a GCRA {@link RateLimiter} in Redis: one Lua script per decision on the server's clock, one key
 * per limited key (its theoretical arrival time) that expires once the key is fully replenished. Limiters
 * with different limits use different keys. Exact across any number of instances sharing the Redis.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const limits = normalizeRateLimitOptions(options);
  return buildRedisRateLimiter(openRedisConnection(options), limits, true);
}

/** @internal Builds the limiter on an open connection. */
export function buildRedisRateLimiter(
  connection: RedisConnection,
  limits: RateLimitOptions,
  ownsConnection: boolean,
): RateLimiter {
  const scope = `${connection.prefix}rl:${limits.limit}:${limits.windowMs}`;
  return {
    policy: { limit: limits.limit, windowMs: limits.windowMs },
    async consume(key: string, cost: number = STORE_DEFAULTS.rateLimitCost): Promise<RateLimitResult> {
      assertId(key, 'rate limit key');
      assertCost(cost, limits.limit);
      const [allowed, remaining, resetAt, retryAfterMs] = (await connection.run(
        'citewiseGcra',
        [`${scope}${hashTag(key)}`],
        [limits.limit, limits.windowMs, cost],
      )) as [number, number, number, number];
      return { allowed: allowed === 1, limit: limits.limit, remaining, resetAt, retryAfterMs };
    },
    async ping() {
      await connection.ping();
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
