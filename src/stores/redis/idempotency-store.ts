import type { IdempotencyState, IdempotencyStore, StoredResponse } from '../types.ts';
import { assertId, assertPositiveMs } from '../validation.ts';
import { claimedState } from '../idempotency-state.ts';
import {
  hashTag,
  openRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.ts';

/** Options of {@link createRedisIdempotencyStore}. */
export type RedisIdempotencyStoreOptions = RedisConnectionOptions;

/** What one key holds: the claim's fingerprint, and the response once done. */
interface Stored {
  readonly fingerprint: string;
  readonly response?: StoredResponse;
}

/**
 * Creates an {@link IdempotencyStore} in Redis: one key per scope, claimed by a Lua script (so of
 * concurrent begins on any number of instances exactly one wins), expiring with the claim's lease and
 * then with the response's ttl.
 */
export function createRedisIdempotencyStore(options: RedisIdempotencyStoreOptions): IdempotencyStore {
  return buildRedisIdempotencyStore(openRedisConnection(options), true);
}

/** @internal Builds the store on an open connection. */
export function buildRedisIdempotencyStore(
  connection: RedisConnection,
  ownsConnection: boolean,
): IdempotencyStore {
  const keyOf = (scope: string) => `${connection.prefix}idem:${hashTag(scope)}`;
  return {
    async begin(scope, fingerprint, leaseMs): Promise<IdempotencyState> {
      assertId(scope, 'scope');
      assertId(fingerprint, 'fingerprint');
      assertPositiveMs(leaseMs, 'leaseMs');
      const claim: Stored = { fingerprint };
      const current = (await connection.run(
        'citewiseIdempotencyBegin',
        [keyOf(scope)],
        [JSON.stringify(claim), Math.ceil(leaseMs)],
      )) as string | null;
      if (current === null) return { state: 'new' };
      const stored = JSON.parse(current) as Stored;
      return claimedState(stored.fingerprint, stored.response);
    },
    async complete(scope, response, ttlMs) {
      assertId(scope, 'scope');
      assertPositiveMs(ttlMs, 'ttlMs');
      const key = keyOf(scope);
      await connection.call(async (client) => {
        const current = await client.get(key);
        if (current === null) return;
        const done: Stored = { fingerprint: (JSON.parse(current) as Stored).fingerprint, response };
        await client.set(key, JSON.stringify(done), 'PX', Math.ceil(ttlMs));
      });
    },
    async abandon(scope) {
      assertId(scope, 'scope');
      await connection.run('citewiseIdempotencyAbandon', [keyOf(scope)], []);
    },
    async close() {
      if (ownsConnection) await connection.close();
    },
  };
}
