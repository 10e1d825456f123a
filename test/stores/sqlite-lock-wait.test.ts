/**
 * While another connection holds the SQLite write lock, the stores wait for it asynchronously: the event
 * loop keeps running (timers fire, other requests are served) instead of sitting in SQLite's busy handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteAccountStore, createSqliteUsageStore } from '../../src/stores/sqlite/accounts.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'citewise-sqlite-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const freshPath = () => join(dir, `db-${counter++}.sqlite`);

/** Counts timer ticks and the longest gap between two, while `during` runs. */
async function loopActivity<T>(
  during: () => Promise<T>,
): Promise<{ result: T; ticks: number; longestGapMs: number }> {
  let ticks = 0;
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const at = performance.now();
    longestGapMs = Math.max(longestGapMs, at - last);
    last = at;
    ticks++;
  }, 5);
  try {
    const result = await during();
    return { result, ticks, longestGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe('SQLite lock waits do not block the event loop', () => {
  it('a reserve waits for another connection holding the write lock, with the loop running', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path, busyTimeoutMs: 5_000 });
    await stores.credits.openAccount('acct', 10);
    const holder = new DatabaseSync(path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      // The holder lets go only from a timer: if the store blocked the loop, it never would.
      setTimeout(() => holder.exec('COMMIT'), 300);
      const { result, ticks, longestGapMs } = await loopActivity(() =>
        stores.credits.reserve({ account: 'acct', id: 'r1', amount: 3, ttlMs: 60_000 }),
      );
      expect(result).toMatchObject({ id: 'r1', amount: 3 });
      expect(ticks).toBeGreaterThan(5);
      // Generous: the machine is shared, but a blocked loop would show the whole 300 ms or more.
      expect(longestGapMs).toBeLessThan(250);
      expect(await stores.credits.balance('acct')).toBe(7);
    } finally {
      holder.close();
      await stores.close();
    }
  });

  it('every kind of store operation waits the same way (keys, limits, balance)', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path, busyTimeoutMs: 5_000 });
    const limiter = stores.rateLimiter({ limit: 5, windowMs: 60_000 });
    const holder = new DatabaseSync(path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      setTimeout(() => holder.exec('COMMIT'), 200);
      const { ticks } = await loopActivity(() =>
        Promise.all([
          stores.keys.create({ accountId: 'acct' }),
          limiter.consume('k'),
          stores.credits.grant('acct', 5),
          stores.credits.balance('acct'),
        ]),
      );
      expect(ticks).toBeGreaterThan(5);
      expect(await stores.credits.balance('acct')).toBe(5);
    } finally {
      holder.close();
      await stores.close();
    }
  });

  it('the console account and usage stores sharing the database wait the same way', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path, busyTimeoutMs: 5_000 });
    const accounts = createSqliteAccountStore({ database: stores.database, busyTimeoutMs: 5_000 });
    const usage = createSqliteUsageStore({ database: stores.database, busyTimeoutMs: 5_000 });
    const owner = await accounts.createUser({ email: 'owner@example.com', passwordHash: 'hash' });
    const org = await accounts.createOrganization({ name: 'Team' });
    const { token } = await accounts.createInvitation({
      organizationId: org.id,
      role: 'member',
      createdBy: owner!.id,
      expiresAt: Date.now() + 60_000,
    });
    const holder = new DatabaseSync(path);
    let release: NodeJS.Timeout | undefined;
    try {
      holder.exec('BEGIN IMMEDIATE');
      release = setTimeout(() => holder.exec('COMMIT'), 200);
      const { result, ticks } = await loopActivity(() =>
        Promise.all([
          accounts.createUser({ email: 'new@example.com', passwordHash: 'hash' }),
          accounts.createSession({ userId: owner!.id, expiresAt: Date.now() + 60_000 }),
          accounts.acceptInvitation(token, owner!.id),
          accounts.setSetting('signup', 'open'),
          usage.append([
            { at: Date.now(), accountId: 'acct', keyId: null, kind: 'grant', credits: 5, note: null },
          ]),
        ]),
      );
      expect(result[0]).toMatchObject({ email: 'new@example.com' });
      expect(result[2]).toMatchObject({ organizationId: org.id, userId: owner!.id });
      expect(ticks).toBeGreaterThan(5);
      expect(await accounts.getSetting('signup')).toBe('open');
      expect(await usage.ledger('acct')).toHaveLength(1);
    } finally {
      clearTimeout(release);
      holder.close();
      await usage.close?.();
      await accounts.close?.();
      await stores.close();
    }
  });

  it('a console store gives up after busyTimeoutMs with a 503 too', async () => {
    const path = freshPath();
    const accounts = createSqliteAccountStore({ path, busyTimeoutMs: 200 });
    const holder = new DatabaseSync(path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const error: unknown = await accounts.createOrganization({ name: 'Team' }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
      holder.exec('ROLLBACK');
      expect(await accounts.listOrganizations()).toEqual([]);
    } finally {
      holder.close();
      await accounts.close?.();
    }
  });

  it('gives up after busyTimeoutMs with a 503 and leaves nothing half done', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path, busyTimeoutMs: 200 });
    await stores.credits.openAccount('acct', 10);
    const holder = new DatabaseSync(path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const { result, ticks } = await loopActivity(() =>
        stores.credits.reserve({ account: 'acct', id: 'r1', amount: 3, ttlMs: 60_000 }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      expect(result).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(ticks).toBeGreaterThan(5);
      holder.exec('ROLLBACK');
      expect(await stores.credits.balance('acct')).toBe(10);
    } finally {
      holder.close();
      await stores.close();
    }
  });
});
