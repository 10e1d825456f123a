import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSqliteAccountStore } from '../../src/stores/sqlite/accounts.ts';
import { hashApiKey } from '../../src/stores/keys.ts';
import {
  SQLITE_SCHEMA_VERSION,
  createSqliteCreditStore,
  createSqliteIdempotencyStore,
  createSqliteKeyStore,
  createSqliteRateLimiter,
  createSqliteStores,
  openSqliteDatabase,
} from '../../src/stores/sqlite/index.ts';
import {
  describeCreditStore,
  describeIdempotencyStore,
  describeKeyStore,
  describeRateLimiter,
} from '../../src/testing/index.ts';
import { manualClock } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'citewise-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
/** A fresh database path in the test's temp dir (the directory `nested/` is created by the store). */
const freshPath = () => join(dir, `nested-${fileCounter}`, `db-${fileCounter++}.sqlite`);

describeIdempotencyStore('sqlite (own connection)', () =>
  createSqliteIdempotencyStore({ path: freshPath() }),
);
describeIdempotencyStore('sqlite (shared stores)', () => {
  const stores = createSqliteStores({ path: freshPath() });
  return { ...stores.idempotency, close: () => stores.close() };
});
describeKeyStore('sqlite (own connection)', () => createSqliteKeyStore({ path: freshPath() }));
describeCreditStore('sqlite (own connection)', () => createSqliteCreditStore({ path: freshPath() }), {
  // Two connections on one file: two processes sharing the database.
  makePair: async () => {
    const path = freshPath();
    return [createSqliteCreditStore({ path }), createSqliteCreditStore({ path })] as const;
  },
});
describeRateLimiter('sqlite (own connection)', (limits) =>
  createSqliteRateLimiter({ ...limits, path: freshPath() }),
);

describeKeyStore('sqlite (createSqliteStores)', () => {
  const stores = createSqliteStores({ path: freshPath() });
  return { ...stores.keys, close: () => stores.close() };
});
describeCreditStore('sqlite (createSqliteStores)', () => {
  const stores = createSqliteStores({ path: freshPath() });
  return { ...stores.credits, close: () => stores.close() };
});
describeRateLimiter('sqlite (createSqliteStores)', (limits) => {
  const stores = createSqliteStores({ path: freshPath() });
  return { ...stores.rateLimiter(limits), close: () => stores.close() };
});

function readAllBytes(path: string): string {
  return ['', '-wal', '-shm']
    .map((suffix) => path + suffix)
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

describe('sqlite stores', () => {
  it('never writes the raw key to disk, only its SHA-256 hash', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path });
    const { key } = await stores.keys.create({ accountId: 'acct', name: 'laptop' });
    const bytesWhileOpen = readAllBytes(path);
    await stores.close();
    const bytes = bytesWhileOpen + readAllBytes(path);
    // Sanity: we are reading the data (the hash and the label are there)...
    expect(bytes).toContain(hashApiKey(key));
    expect(bytes).toContain('laptop');
    // ...and the secret part of the key is not.
    expect(bytes).not.toContain(key.slice(8));
  });

  it('keeps keys, balances, holds and rate limits across close and reopen', async () => {
    const path = freshPath();
    const first = createSqliteStores({ path });
    const { key, record } = await first.keys.create({ accountId: 'acct' });
    const revoked = await first.keys.create({ accountId: 'acct' });
    await first.keys.revoke(revoked.record.id);
    await first.credits.openAccount('acct', 10);
    await first.credits.reserve({ account: 'acct', id: 'spent', amount: 3, ttlMs: 3_600_000 });
    await first.credits.commit('spent');
    await first.credits.reserve({ account: 'acct', id: 'in-flight', amount: 2, ttlMs: 3_600_000 });
    const limiter = first.rateLimiter({ limit: 2, windowMs: 3_600_000 });
    await limiter.consume('k');
    await limiter.consume('k');
    await first.close();

    const second = createSqliteStores({ path });
    expect(await second.keys.verify(key)).toEqual(record);
    expect(await second.keys.verify(revoked.key)).toBeNull();
    expect(await second.credits.balance('acct')).toBe(5);
    expect(await second.credits.commit('spent')).toBe(false);
    expect(await second.credits.refund('in-flight')).toBe(true);
    expect(await second.credits.balance('acct')).toBe(7);
    const again = await second.rateLimiter({ limit: 2, windowMs: 3_600_000 }).consume('k');
    expect(again.allowed).toBe(false);
    await second.close();
  });

  it('uses WAL, a busy timeout and a versioned schema; refuses a newer schema', async () => {
    const path = freshPath();
    const db = openSqliteDatabase({ path, busyTimeoutMs: 1234 });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 1234 });
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => openSqliteDatabase({ path })).toThrow(/newer/);
  });

  it('enforces a non-negative balance in the schema itself', async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path });
    await stores.credits.openAccount('acct', 1);
    expect(() =>
      stores.database.exec("UPDATE credit_accounts SET available = -1 WHERE account = 'acct'"),
    ).toThrow(/CHECK constraint/);
    await stores.close();
  });

  it('lapses holds exactly at expiry and purges settled rows after retention (manual clock)', async () => {
    const clock = manualClock();
    const path = freshPath();
    const stores = createSqliteStores({ path, now: clock.now, settledRetentionMs: 10_000 });
    await stores.credits.openAccount('acct', 10);
    const hold = await stores.credits.reserve({ account: 'acct', id: 'r', amount: 4, ttlMs: 5_000 });
    expect(hold.expiresAt).toBe(clock.now() + 5_000);
    clock.advance(4_999);
    expect(await stores.credits.balance('acct')).toBe(6);
    clock.advance(1);
    expect(await stores.credits.balance('acct')).toBe(10);
    expect(await stores.credits.commit('r')).toBe(false);
    expect(await stores.credits.balance('acct')).toBe(10);
    const status = () =>
      stores.database.prepare("SELECT status FROM credit_reservations WHERE id = 'r'").get();
    expect(status()).toEqual({ status: 'lapsed' });
    clock.advance(120_000);
    await stores.credits.grant('acct', 1);
    expect(status()).toBeUndefined();
    await stores.close();
  });

  it('rounds fractional times to whole milliseconds', async () => {
    const stores = createSqliteStores({ path: freshPath(), now: () => 1_000.5 });
    const { record } = await stores.keys.create({ accountId: 'a', expiresAt: 2_000.2 });
    expect(record).toMatchObject({ createdAt: 1_000, expiresAt: 2_001 });
    const hold = await stores.credits.reserve({ account: 'a', id: 'r', amount: 0, ttlMs: 0.5 });
    expect(hold.expiresAt).toBe(1_001);
    await stores.close();
  });

  it('evicts rate-limit rows of fully replenished keys (manual clock)', async () => {
    const clock = manualClock(0);
    const stores = createSqliteStores({ path: freshPath(), now: clock.now });
    const limiter = stores.rateLimiter({ limit: 2, windowMs: 1_000 });
    const other = stores.rateLimiter({ limit: 5, windowMs: 1_000 });
    for (let i = 0; i < 30; i++) await limiter.consume(`ip-${i}`);
    await other.consume('shared-name');
    const rows = () =>
      (stores.database.prepare('SELECT COUNT(*) AS n FROM rate_limits').get() as { n: number }).n;
    expect(rows()).toBe(31);
    clock.advance(1_000);
    await limiter.consume('fresh');
    expect(rows()).toBe(1);
    await stores.close();
  });

  it('validates options', () => {
    expect(() => createSqliteStores({ path: '' })).toThrow(TypeError);
    expect(() => createSqliteKeyStore({})).toThrow(TypeError);
    expect(() => createSqliteStores({ path: freshPath(), busyTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => createSqliteCreditStore({ path: freshPath(), settledRetentionMs: 0 })).toThrow(RangeError);
    expect(() => createSqliteRateLimiter({ path: freshPath(), limit: 0 })).toThrow(RangeError);
  });
});

describe('sqlite: several connections on one file', () => {
  it.each([
    [
      'credit store',
      (database: DatabaseSync) => createSqliteCreditStore({ database, busyTimeoutMs: 10_000 }),
    ],
    [
      'console account store',
      (database: DatabaseSync) => createSqliteAccountStore({ database, busyTimeoutMs: 10_000 }),
    ],
  ])('a %s adopting a database waits for another process holding the write lock', async (_, createStore) => {
    const path = freshPath();
    const database = openSqliteDatabase({ path });
    // As in createSqliteStores: the first store on a shared database sets its busy_timeout to 0.
    createSqliteKeyStore({ database });
    // Another thread (as a second server starting up would) takes the write lock and keeps it for 300 ms.
    const holder = new Worker(
      `const { DatabaseSync } = require('node:sqlite');
       const { parentPort, workerData } = require('node:worker_threads');
       const db = new DatabaseSync(workerData);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.exec('COMMIT');
       db.close();`,
      { eval: true, workerData: path },
    );
    onTestFinished(async () => {
      await holder.terminate();
    });
    await once(holder, 'message');
    // The store migrates its schema: it must wait for the lock, not fail with "database is locked".
    expect(() => createStore(database)).not.toThrow();
    database.close();
  });

  it('never overspends across two connections', async () => {
    const path = freshPath();
    const a = createSqliteStores({ path });
    const b = createSqliteStores({ path });
    await a.credits.openAccount('acct', 5);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).credits.reserve({ account: 'acct', id: `r-${i}`, amount: 1, ttlMs: 3_600_000 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(await a.credits.balance('acct')).toBe(0);
    expect(await b.credits.balance('acct')).toBe(0);
    await a.close();
    await b.close();
  });

  it('settles a reservation exactly once when two connections race commit and refund', async () => {
    const path = freshPath();
    const a = createSqliteStores({ path });
    const b = createSqliteStores({ path });
    await a.credits.openAccount('acct', 10);
    await a.credits.reserve({ account: 'acct', id: 'r', amount: 4, ttlMs: 3_600_000 });
    const outcomes = await Promise.all([
      a.credits.commit('r'),
      b.credits.refund('r'),
      b.credits.commit('r', 1),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await b.credits.balance('acct')).toBe(outcomes[1] ? 10 : 6);
    await a.close();
    await b.close();
  });

  it('shares rate limits between connections', async () => {
    const path = freshPath();
    const a = createSqliteStores({ path });
    const b = createSqliteStores({ path });
    const limits = { limit: 5, windowMs: 3_600_000 };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).rateLimiter(limits).consume('k')),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    await a.close();
    await b.close();
  });

  it('never overspends when separate processes reserve on the same file', { timeout: 90_000 }, async () => {
    const path = freshPath();
    const stores = createSqliteStores({ path });
    const credits = 150;
    await stores.credits.openAccount('acct', credits);
    const worker = fileURLToPath(new URL('./fixtures/sqlite-reserve-worker.ts', import.meta.url));
    const children = [0, 1].map((n) => {
      const child = spawn(process.execPath, [worker, path, 'acct', '120', `child${n}`], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      let errors = '';
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (errors += chunk));
      const done = new Promise<{ reserved: number; refused: number }>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) reject(new Error(`worker ${n} exited with ${code}: ${errors}`));
          else
            resolve(
              JSON.parse(output.split('\n').filter(Boolean).at(-1)!) as { reserved: number; refused: number },
            );
        });
      });
      // A worker that dies early fails the test at once (with its stderr), never as an unhandled rejection.
      done.catch(() => {});
      const ready = Promise.race([
        new Promise<void>((resolve) => {
          child.stdout.on('data', (chunk: string) => {
            output += chunk;
            if (output.includes('ready\n')) resolve();
          });
        }),
        done.then(() => {
          throw new Error(`worker ${n} exited before it was ready`);
        }),
      ]);
      return { child, ready, done };
    });
    // Never leave a worker behind if the test fails or times out.
    onTestFinished(() => {
      for (const { child } of children) if (child.exitCode === null) child.kill();
    });
    await Promise.all(children.map((c) => c.ready));
    for (const { child } of children) child.stdin.end('go\n');

    let parentReserved = 0;
    for (let i = 0; i < 120; i++) {
      // Yield to the event loop so the children get the lock between our transactions.
      await new Promise((resolve) => setImmediate(resolve));
      for (;;) {
        try {
          await stores.credits.reserve({ account: 'acct', id: `parent-${i}`, amount: 1, ttlMs: 3_600_000 });
          parentReserved++;
          break;
        } catch (error) {
          // 503: the lock was busy for too long and nothing was taken; retry as a client would.
          if ((error as { code?: string }).code === 'service_unavailable') continue;
          expect(error).toMatchObject({ code: 'quota_exceeded' });
          break;
        }
      }
    }
    const outcomes = await Promise.all(children.map((c) => c.done));
    const total = parentReserved + outcomes.reduce((sum, o) => sum + o.reserved, 0);
    expect(total).toBe(credits);
    for (const o of outcomes) expect(o.reserved + o.refused).toBe(120);
    expect(await stores.credits.balance('acct')).toBe(0);
    const held = stores.database
      .prepare("SELECT COUNT(*) AS n, SUM(amount) AS total FROM credit_reservations WHERE status = 'held'")
      .get();
    expect(held).toEqual({ n: credits, total: credits });
    await stores.close();
  });
});
