/**
 * The PostgreSQL stores against a real server: the shared conformance suites, plus the ledger, the
 * SQL-level guarantees and migrations.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPostgresStores,
  MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  type PostgresStores,
} from '../../src/stores/postgres/index.ts';
import { describeCreditStore, describeIdempotencyStore, describeKeyStore } from '../../src/testing/index.ts';
import {
  binariesOrSkip,
  dropSchemas,
  reachablePostgres,
  serverOrSkip,
  startPrivatePostgres,
} from '../multi-instance/servers.ts';
import { closing } from './helpers.ts';

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');
const RUN = `cw_test_${randomBytes(4).toString('hex')}`;
const schemas: string[] = [];
let counter = 0;

/** Stores in a schema of their own, so each test starts empty. */
function fresh(): PostgresStores {
  const schema = `${RUN}_${counter++}`;
  schemas.push(schema);
  return createPostgresStores({ connectionString: url!, schema, maxConnections: 4 });
}

/** Sums of the ledger per account, next to the stored balance. */
async function ledgerCheck(pool: pg.Pool, schema: string) {
  const { rows } = await pool.query<{ account: string; available: string; ledger: string; charged: string }>(
    `SELECT a.account, a.available,
            (SELECT COALESCE(sum(delta), 0) FROM "${schema}".credit_ledger l WHERE l.account = a.account) AS ledger,
            (SELECT COALESCE(sum(charged), 0) FROM "${schema}".credit_ledger l WHERE l.account = a.account) AS charged
     FROM "${schema}".credit_accounts a ORDER BY a.account`,
  );
  return rows.map((r) => ({
    account: r.account,
    available: Number(r.available),
    ledger: Number(r.ledger),
    charged: Number(r.charged),
  }));
}

if (available) {
  afterAll(async () => {
    await dropSchemas(url!, schemas);
  });

  describeKeyStore('postgres', () => {
    const stores = fresh();
    return closing(stores.keys, stores);
  });
  describeCreditStore(
    'postgres',
    () => {
      const stores = fresh();
      return closing(stores.credits, stores);
    },
    {
      // Two instances (two pools) on one schema.
      makePair: async () => {
        const a = fresh();
        await a.credits.hasAccount('migrated'); // the first instance migrates the schema
        const b = createPostgresStores({
          connectionString: url!,
          schema: schemas.at(-1)!,
          maxConnections: 4,
        });
        return [closing(a.credits, a), closing(b.credits, b)] as const;
      },
    },
  );

  describeIdempotencyStore('postgres', () => {
    const stores = fresh();
    return closing(stores.idempotency, stores);
  });

  describe('postgres stores', () => {
    it('records every grant, reservation, commit and refund in a ledger that adds up', async () => {
      const stores = fresh();
      const schema = schemas.at(-1)!;
      await stores.credits.openAccount('acct', 20);
      await stores.credits.grant('acct', 5);
      await stores.credits.reserve({ account: 'acct', id: 'a', amount: 4, ttlMs: 60_000 });
      await stores.credits.reserve({ account: 'acct', id: 'b', amount: 3, ttlMs: 60_000 });
      await stores.credits.reserve({ account: 'acct', id: 'c', amount: 2, ttlMs: 100 });
      expect(await stores.credits.commit('a', 1)).toBe(true);
      expect(await stores.credits.refund('b')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
      await stores.credits.grant('acct', 0); // sweeps the lapsed hold 'c'
      expect(await stores.credits.balance('acct')).toBe(24);
      expect(await ledgerCheck(stores.pool, schema)).toEqual([
        { account: 'acct', available: 24, ledger: 24, charged: 1 },
      ]);
      const { rows } = await stores.pool.query<{
        kind: string;
        reservation_id: string | null;
        delta: string;
      }>(`SELECT kind, reservation_id, delta FROM "${schema}".credit_ledger ORDER BY seq`);
      expect(rows.map((r) => [r.kind, r.reservation_id, Number(r.delta)])).toEqual([
        ['open', null, 20],
        ['grant', null, 5],
        ['reserve', 'a', -4],
        ['reserve', 'b', -3],
        ['reserve', 'c', -2],
        ['commit', 'a', 3],
        ['refund', 'b', 3],
        ['lapse', 'c', 2],
        ['grant', null, 0],
      ]);
      await stores.close();
    });

    it('refuses, in SQL, any write that would make a balance negative', async () => {
      const stores = fresh();
      const schema = schemas.at(-1)!;
      await stores.credits.openAccount('acct', 1);
      await expect(
        stores.pool.query(`UPDATE "${schema}".credit_accounts SET available = available - 2`),
      ).rejects.toMatchObject({ code: '23514' });
      await expect(
        stores.pool.query(
          `INSERT INTO "${schema}".credit_ledger (account, kind, reservation_id, delta, at)
           VALUES ('acct', 'commit', 'x', 0, 0), ('acct', 'refund', 'x', 0, 0)`,
        ),
      ).rejects.toMatchObject({ code: '23505' });
      await stores.close();
    });

    it('settles exactly once when separate pools race commit and refund', async () => {
      const a = fresh();
      const schema = schemas.at(-1)!;
      const b = createPostgresStores({ connectionString: url!, schema });
      await a.credits.openAccount('acct', 100);
      for (let round = 0; round < 10; round++) {
        await a.credits.reserve({ account: 'acct', id: `r${round}`, amount: 5, ttlMs: 60_000 });
        const outcomes = await Promise.all([
          a.credits.commit(`r${round}`, 2),
          b.credits.refund(`r${round}`),
          b.credits.commit(`r${round}`),
          a.credits.refund(`r${round}`),
        ]);
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      }
      const [check] = await ledgerCheck(a.pool, schema);
      expect(check!.available).toBe(check!.ledger);
      expect(check!.available + check!.charged).toBe(100);
      await a.close();
      await b.close();
    });

    it('migrates once, idempotently, even when several instances start together', async () => {
      const schema = `${RUN}_migrate`;
      schemas.push(schema);
      const instances = [0, 1, 2].map(() =>
        createPostgresStores({ connectionString: url!, schema, migrate: false }),
      );
      const applied = await Promise.all(instances.map((s) => s.migrate()));
      const every = MIGRATIONS.map((migration) => migration.version);
      expect(every.at(-1)).toBe(POSTGRES_SCHEMA_VERSION);
      expect(applied.flat().sort((a, b) => a - b)).toEqual(every);
      expect(await instances[0]!.migrate()).toEqual([]);
      const { rows } = await instances[0]!.pool.query(
        `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
      );
      expect(rows).toEqual(every.map((version) => ({ version })));
      for (const instance of instances) await instance.close();
    });

    it('validates options', () => {
      expect(() => createPostgresStores({})).toThrow(TypeError);
      expect(() => createPostgresStores({ connectionString: 'mysql://x' })).toThrow(TypeError);
      expect(() => createPostgresStores({ connectionString: url!, schema: 'bad-name' })).toThrow(RangeError);
      expect(() => createPostgresStores({ connectionString: url!, maxConnections: 0 })).toThrow(RangeError);
    });
  });
}

describe.runIf(available && binariesOrSkip('PostgreSQL'))(
  'postgres stores when the database goes away',
  () => {
    it('answers 503 while PostgreSQL is down, loses no committed charge, and recovers', async () => {
      const cluster = await startPrivatePostgres();
      try {
        const stores = createPostgresStores({ connectionString: cluster.url, statementTimeoutMs: 2_000 });
        await stores.credits.openAccount('acct', 10);
        await stores.credits.reserve({ account: 'acct', id: 'before', amount: 3, ttlMs: 600_000 });
        expect(await stores.credits.commit('before')).toBe(true);
        await cluster.stop('immediate');
        await expect(
          stores.credits.reserve({ account: 'acct', id: 'down', amount: 1, ttlMs: 60_000 }),
        ).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
        await expect(stores.credits.balance('acct')).rejects.toMatchObject({ status: 503 });
        await cluster.start();
        await expect.poll(() => stores.credits.balance('acct').catch(() => -1), { timeout: 10_000 }).toBe(7);
        expect(await stores.credits.commit('before')).toBe(false);
        await stores.close();
      } finally {
        await cluster.destroy();
      }
    });
  },
);
