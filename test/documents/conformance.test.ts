/** The document index conformance suite against memory, SQLite (a file per test) and PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import {
  createMemoryDocumentIndex,
  createPostgresDocumentIndex,
  createSqliteDocumentIndex,
} from '../../src/documents/index.ts';
import { describeDocumentIndex } from '../../src/testing/index.ts';
import { reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

describeDocumentIndex('memory', () => createMemoryDocumentIndex());

const dir = mkdtempSync(join(tmpdir(), 'citewise-docindex-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
describeDocumentIndex('sqlite', () =>
  createSqliteDocumentIndex({ path: join(dir, `index-${files++}.sqlite`) }),
);
describeDocumentIndex('sqlite, one write per transaction', () =>
  createSqliteDocumentIndex({ path: join(dir, `index-${files++}.sqlite`), batchSize: 1 }),
);

const url = await reachablePostgres();
if (serverOrSkip('PostgreSQL', url, 'DATABASE_URL')) {
  const run = `cw_docs_${randomBytes(4).toString('hex')}`;
  const schemas: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url! });
    await admin.connect();
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  describeDocumentIndex('postgres', () => {
    const schema = `${run}_${schemas.length}`;
    schemas.push(schema);
    return createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
  });
}
