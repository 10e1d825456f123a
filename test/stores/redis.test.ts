/**
 * The Redis stores against a real redis-server: the shared conformance suites, plus Redis-specific
 * behaviour (NOSCRIPT recovery, hash tags, key cache, fail-closed when Redis is down).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStores, type RedisStores } from '../../src/stores/redis/index.ts';
import {
  describeCreditStore,
  describeIdempotencyStore,
  describeKeyStore,
  describeRateLimiter,
} from '../../src/testing/index.ts';
import {
  binariesOrSkip,
  reachableRedis,
  serverOrSkip,
  startPrivateRedis,
} from '../multi-instance/servers.ts';
import { closing } from './helpers.ts';

const url = await reachableRedis();
const available = serverOrSkip('Redis', url, 'REDIS_URL');
const RUN = `citewise-test:${randomBytes(4).toString('hex')}:`;
let counter = 0;
/** Stores under a prefix of their own, so each test starts empty. */
const fresh = (extra: Parameters<typeof createRedisStores>[0] | object = {}): RedisStores =>
  createRedisStores({ url: url!, prefix: `${RUN}${counter++}:`, ...extra });

if (available) {
  afterAll(async () => {
    // Remove everything this run wrote.
    const admin = new Redis(url!);
    let cursor = '0';
    do {
      const [next, found] = await admin.scan(cursor, 'MATCH', `${RUN}*`, 'COUNT', 1000);
      cursor = next;
      if (found.length) await admin.del(...found);
    } while (cursor !== '0');
    await admin.quit();
  });

  describeKeyStore('redis', () => {
    const stores = fresh();
    return closing(stores.keys, stores);
  });
  describeCreditStore(
    'redis',
    () => {
      const stores = fresh();
      return closing(stores.credits, stores);
    },
    {
      // Two instances (two clients) on one prefix.
      makePair: async () => {
        const prefix = `${RUN}${counter++}:`;
        const [a, b] = [createRedisStores({ url: url!, prefix }), createRedisStores({ url: url!, prefix })];
        return [closing(a.credits, a), closing(b.credits, b)] as const;
      },
    },
  );
  describeRateLimiter('redis', (options) => {
    const stores = fresh();
    return closing(stores.rateLimiter(options), stores);
  });
  describeIdempotencyStore('redis', () => {
    const stores = fresh();
    return closing(stores.idempotency, stores);
  });

  describe('redis stores', () => {
    it('reloads its scripts after SCRIPT FLUSH (NOSCRIPT → EVAL)', async () => {
      const stores = fresh();
      await stores.credits.openAccount('acct', 10);
      await stores.credits.reserve({ account: 'acct', id: 'r1', amount: 2, ttlMs: 60_000 });
      const admin = new Redis(url!);
      await admin.script('FLUSH');
      const [loaded] = (await admin.script('EXISTS', sha1OfReserve(stores))) as number[];
      expect(loaded).toBe(0);
      expect(await stores.credits.commit('r1')).toBe(true);
      await stores.credits.reserve({ account: 'acct', id: 'r2', amount: 3, ttlMs: 60_000 });
      expect(await stores.credits.balance('acct')).toBe(5);
      expect((await stores.rateLimiter({ limit: 1, windowMs: 60_000 }).consume('k')).allowed).toBe(true);
      await admin.quit();
      await stores.close();
    });

    it('hash-tags every key of one account (and of the key store) into one Cluster slot', async () => {
      const prefix = `${RUN}tags:`;
      const stores = createRedisStores({ url: url!, prefix });
      await stores.credits.openAccount('a}b{c', 5);
      await stores.credits.reserve({ account: 'a}b{c', id: 'x', amount: 0, ttlMs: 60_000 });
      await stores.credits.reserve({ account: 'a}b{c', id: 'y', amount: 1, ttlMs: 60_000 });
      await stores.keys.create({ accountId: 'a}b{c' });
      await stores.rateLimiter().consume('ip:1');
      const admin = new Redis(url!);
      const keys = await admin.keys(`${prefix}*`);
      await admin.quit();
      const slotTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
      const byFamily = new Map<string, Set<string | undefined>>();
      for (const key of keys) {
        const family = key.slice(prefix.length).split('{')[0]!;
        const tags = byFamily.get(family) ?? new Set();
        tags.add(slotTag(key));
        byFamily.set(family, tags);
      }
      // Every key carries a non-empty tag; account keys share the account's tag, key-store keys share one.
      for (const key of keys) expect(slotTag(key)).toBeTruthy();
      expect(byFamily.get('acct')).toEqual(new Set([encodeURIComponent('a}b{c')]));
      expect(byFamily.get('keys')).toEqual(new Set(['keys']));
      expect(keys.filter((k) => k.startsWith(`${prefix}acct`))).toHaveLength(3);
      await stores.close();
    });

    it('a revocation on one instance reaches another within keyCacheMs', async () => {
      const prefix = `${RUN}cache:`;
      const a = createRedisStores({ url: url!, prefix, keyCacheMs: 300 });
      const b = createRedisStores({ url: url!, prefix, keyCacheMs: 300 });
      const { key, record } = await a.keys.create({ accountId: 'acct' });
      expect(await b.keys.verify(key)).toEqual(record);
      expect(await a.keys.revoke(record.id)).toBe(true);
      expect(await a.keys.verify(key)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await b.keys.verify(key)).toBeNull();
      await a.close();
      await b.close();
    });

    it('shares balances and limits between separate clients (instances)', async () => {
      const prefix = `${RUN}shared:`;
      const instances = [0, 1, 2].map(() => createRedisStores({ url: url!, prefix }));
      await instances[0]!.credits.openAccount('acct', 25);
      const reservations = await Promise.allSettled(
        Array.from({ length: 90 }, (_, i) =>
          instances[i % 3]!.credits.reserve({ account: 'acct', id: `r${i}`, amount: 1, ttlMs: 60_000 }),
        ),
      );
      expect(reservations.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
      const limits = { limit: 7, windowMs: 600_000 };
      const decisions = await Promise.all(
        Array.from({ length: 60 }, (_, i) => instances[i % 3]!.rateLimiter(limits).consume('key:1')),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
      for (const instance of instances) expect(await instance.credits.balance('acct')).toBe(0);
      for (const instance of instances) await instance.close();
    });

    it('validates options', () => {
      expect(() => createRedisStores({})).toThrow(TypeError);
      expect(() => createRedisStores({ url: 'http://x' })).toThrow(TypeError);
      expect(() => createRedisStores({ url: url!, prefix: 'a{b' })).toThrow(RangeError);
      expect(() => createRedisStores({ url: url!, keyCacheMs: -1 })).toThrow(RangeError);
      expect(() => createRedisStores({ url: url!, settledRetentionMs: 0 })).toThrow(RangeError);
    });
  });
}

describe.runIf(available && binariesOrSkip('Redis'))('redis stores when Redis goes away', () => {
  it('fails closed with 503 while Redis is down, and recovers without a restart', async () => {
    const server = await startPrivateRedis();
    try {
      const stores = createRedisStores({ url: server.url, commandTimeoutMs: 500 });
      await stores.credits.openAccount('acct', 10);
      await server.stop();
      for (const call of [
        () => stores.credits.reserve({ account: 'acct', id: 'down', amount: 1, ttlMs: 60_000 }),
        () => stores.credits.balance('acct'),
        () => stores.rateLimiter().consume('k'),
        () => stores.keys.verify(`cw_${'A'.repeat(40)}`),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
      }
      // No persistence: a restarted Redis is empty, but the client reconnects by itself.
      await server.start();
      await expect.poll(() => stores.credits.grant('acct', 3).catch(() => -1), { timeout: 10_000 }).toBe(3);
      expect(await stores.credits.balance('acct')).toBe(3);
      await stores.close();
    } finally {
      await server.destroy();
    }
  });
});

/** SHA1 of the reserve script as ioredis loads it. */
function sha1OfReserve(stores: RedisStores): string {
  const script = (stores.client as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet
    .citewiseReserve;
  if (!script) throw new Error('reserve script not registered');
  return script.sha;
}
