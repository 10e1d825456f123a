/**
 * The console with `--store redis://…`: Redis holds keys and credits but no accounts, so the instances
 * share a SQL store for them (`--accounts-store postgres://…`). Two `citewise serve` instances: a session
 * made on one is valid on the other, a key made on one searches on the other, and a key revoked on one gets
 * 401 there at once and on the other within the Redis key store's documented bound (its 5 s key cache).
 * Skipped locally without Redis and PostgreSQL; required under CI.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startInstances, type Instance } from '../multi-instance/instances.ts';
import {
  dropSchemas,
  reachablePostgres,
  reachableRedis,
  serverOrSkip,
  withSchema,
} from '../multi-instance/servers.ts';

const redisUrl = await reachableRedis();
const databaseUrl = await reachablePostgres();
const available =
  serverOrSkip('Redis', redisUrl, 'REDIS_URL') && serverOrSkip('PostgreSQL', databaseUrl, 'DATABASE_URL');
const RUN = randomBytes(4).toString('hex');
const prefix = `cw-console-${RUN}:`;
const schema = `cw_console_redis_${RUN}`;
/** The Redis key store's default key cache (`keyCacheMs`), as docs/console.md states it. */
const KEY_CACHE_MS = 5_000;

/** A signed-in client of one instance's console, by form posts as a browser sends them. */
async function form(
  baseUrl: string,
  path: string,
  cookie: string,
  fields: Record<string, string>,
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

async function page(baseUrl: string, path: string, cookie: string): Promise<string> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
  expect(response.status, `${baseUrl}${path}`).toBe(200);
  return response.text();
}

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;

describe.runIf(available)('console with --store redis:// and --accounts-store postgres://', () => {
  let instances: Instance[] = [];

  beforeAll(async () => {
    const accountsStore = withSchema(databaseUrl!, schema);
    instances = await startInstances(2, [
      '--store',
      `${redisUrl}?prefix=${prefix}`,
      '--accounts-store',
      accountsStore,
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await dropSchemas(databaseUrl!, [schema]);
    const redis = new Redis(redisUrl!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('shares sessions and keys, and a revoked key gets 401 within the key cache bound', async () => {
    const [a, b] = instances as [Instance, Instance];
    let answered = 0;
    const searchOn = async (instance: Instance, key: string) => {
      const status = await search(instance.baseUrl, key);
      if (status === 200) answered++;
      return status;
    };
    const signUp = await form(a.baseUrl, '/sign-up', '', {
      email: 'redis@example.com',
      password: 'redis-console-password',
    });
    expect(signUp.status).toBe(303);
    const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!;

    // The session made on A is valid on B; credits (Redis) and the organization (PostgreSQL) agree.
    const onB = await page(b.baseUrl, '/keys', cookie);
    expect(onB).toContain('data-testid="available-credits">1,000<');

    const created = await form(b.baseUrl, '/keys', cookie, { name: 'redis', _csrf: csrfOf(onB) });
    expect(created.status).toBe(201);
    const key = /data-testid="new-api-key"[^>]*>([^<]+)</.exec(await created.text())![1]!.trim();
    expect(await searchOn(a, key)).toBe(200);
    expect(await searchOn(b, key)).toBe(200); // B now has the key in its cache

    const onA = await page(a.baseUrl, '/keys', cookie);
    expect(onA).toContain(`${key.slice(0, 8)}…`);
    const revokePath = /action="(\/keys\/[^"/]+\/revoke)"/.exec(onA)![1]!;
    const revoked = await form(a.baseUrl, revokePath, cookie, { _csrf: csrfOf(onA) });
    expect(revoked.status).toBe(200);
    const at = Date.now();
    expect(await searchOn(a, key)).toBe(401);
    // B may still accept it from its key cache (each such search is charged and recorded), not longer.
    await expect.poll(() => searchOn(b, key), { timeout: KEY_CACHE_MS + 3_000, interval: 250 }).toBe(401);
    expect(Date.now() - at).toBeLessThan(KEY_CACHE_MS + 3_000);

    // Usage recorded by either instance is in the shared account store.
    await expect
      .poll(
        async () =>
          /data-testid="searches-30-days">(\d+)</.exec(await page(b.baseUrl, '/usage', cookie))?.[1],
        { timeout: 10_000 },
      )
      .toBe(String(answered));
  }, 60_000);
});
