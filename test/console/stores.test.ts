/**
 * The console's account and usage stores: memory, SQLite and PostgreSQL (the latter skipped locally when
 * no server is reachable, required under CI) through the exported conformance suites.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMemoryAccountStore,
  createMemoryUsageStore,
  createPostgresAccountStore,
  createPostgresUsageStore,
  createSqliteAccountStore,
  createSqliteUsageStore,
  createUsageRecorder,
} from '../../src/console/index.ts';
import { describeAccountStore, describeUsageStore } from '../../src/testing/index.ts';
import { dropSchemas, reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

const dir = mkdtempSync(join(tmpdir(), 'citewise-console-stores-'));
let counter = 0;
const sqlitePath = () => join(dir, `db-${counter++}.sqlite`);

describeAccountStore('memory', () => createMemoryAccountStore());
describeUsageStore('memory', () => createMemoryUsageStore());
describeAccountStore('sqlite', () => createSqliteAccountStore({ path: sqlitePath() }));
describeUsageStore('sqlite', () => createSqliteUsageStore({ path: sqlitePath() }));

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');
if (available) {
  const RUN = `cw_console_${randomBytes(4).toString('hex')}`;
  const schemas: string[] = [];
  const schema = () => {
    const name = `${RUN}_${counter++}`;
    schemas.push(name);
    return name;
  };
  afterAll(async () => {
    await dropSchemas(url!, schemas);
  });
  describeAccountStore('postgres', () =>
    createPostgresAccountStore({ connectionString: url!, schema: schema(), maxConnections: 4 }),
  );
  describeUsageStore('postgres', () =>
    createPostgresUsageStore({ connectionString: url!, schema: schema(), maxConnections: 2 }),
  );

  it('the PostgreSQL audit log refuses an UPDATE (append-only)', async () => {
    const name = schema();
    const store = createPostgresAccountStore({ connectionString: url!, schema: name, maxConnections: 2 });
    await store.appendAudit({ actor: 'cli', action: 'key_created', target: 'key_1' });
    const admin = new pg.Client({ connectionString: url! });
    await admin.connect();
    try {
      await expect(admin.query(`UPDATE "${name}".console_audit SET actor = 'someone else'`)).rejects.toThrow(
        /append-only/,
      );
    } finally {
      await admin.end();
      await store.close?.();
    }
  });
}

describe('SQLite audit log', () => {
  it('refuses an UPDATE (append-only), from any connection', async () => {
    const path = sqlitePath();
    const store = createSqliteAccountStore({ path });
    await store.appendAudit({ actor: 'cli', action: 'key_created', target: 'key_1' });
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    try {
      expect(() => db.exec("UPDATE console_audit SET actor = 'someone else'")).toThrow(/append-only/);
      expect((await store.listAudit())[0]?.actor).toBe('cli');
    } finally {
      db.close();
      await store.close?.();
    }
  });
});

describe('SQLite console tables', () => {
  it('survive a restart and share the file with the key and credit stores', async () => {
    const path = sqlitePath();
    const first = createSqliteAccountStore({ path });
    const user = await first.createUser({ email: 'a@example.com', passwordHash: 'h' });
    const { token } = await first.createSession({ userId: user!.id, expiresAt: Date.now() + 60_000 });
    await first.close?.();
    const second = createSqliteAccountStore({ path });
    expect(await second.findSession(token)).toMatchObject({ userId: user!.id });
    await second.close?.();
  });
});

describe('usage recorder', () => {
  it('writes searches in batches, on flush or when a batch is full', async () => {
    const store = createMemoryUsageStore();
    const appended: number[] = [];
    const counting = {
      ...store,
      append: async (records: never[]) => (appended.push(records.length), store.append(records)),
    };
    const recorder = createUsageRecorder(counting, { flushIntervalMs: 60_000, maxBatch: 3 });
    for (let i = 0; i < 4; i++)
      recorder.recordSearch({ accountId: 'org_a', keyId: 'key_a', kind: 'charge', credits: 1 });
    await recorder.flush();
    expect(appended).toEqual([3, 1]);
    expect(await store.perKey('org_a', 0)).toEqual([
      expect.objectContaining({ keyId: 'key_a', searches: 4 }),
    ]);
    await recorder.close();
  });

  it('keeps records when the store fails and writes them on the next flush', async () => {
    const store = createMemoryUsageStore();
    let fail = true;
    const errors: unknown[] = [];
    const flaky = {
      ...store,
      append: async (records: never[]) => {
        if (fail) throw new Error('down');
        return store.append(records);
      },
    };
    const recorder = createUsageRecorder(flaky, { flushIntervalMs: 60_000, onError: (e) => errors.push(e) });
    recorder.recordSearch({ accountId: 'org_a', keyId: 'key_a', kind: 'charge', credits: 1 });
    await recorder.flush();
    expect(errors).toHaveLength(1);
    fail = false;
    await recorder.flush();
    expect(await store.ledger('org_a')).toHaveLength(1);
    await recorder.close();
  });
});
