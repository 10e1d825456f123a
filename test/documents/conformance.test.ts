/** The document index conformance suite against memory, SQLite (a file per test) and PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import {
  createMemoryDocumentIndex,
  createPostgresDocumentIndex,
  createSqliteDocumentIndex,
} from '../../src/documents/index.ts';
import { describeDocumentIndex } from '../../src/testing/index.ts';
import { dropSchemas, reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

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
    await dropSchemas(url!, schemas);
  });
  describeDocumentIndex('postgres', () => {
    const schema = `${run}_${schemas.length}`;
    schemas.push(schema);
    return createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
  });
}
