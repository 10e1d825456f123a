/**
 * A build writes the SQLite index in large transactions (`bulk`), and an index keeps FTS5's `hashsize`
 * (new postings held in memory before they are written out), set on indexes an earlier version wrote too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteDocumentIndex } from '../../src/documents/sqlite.ts';
import { DOCUMENT_INDEX_DEFAULTS } from '../../src/documents/types.ts';
import { IndexStore } from '../../src/index-builder/index.ts';

const hashSize = (file: string): number | undefined => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT v FROM sections_config WHERE k = 'hashsize'").get() as
      { v: number } | undefined;
    return row?.v;
  } finally {
    db.close();
  }
};

describe('SQLite index writes of a build', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-bulk-'));
    file = join(dir, 'index.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('an index written without hashsize (an earlier version) gets it on open and keeps its documents', async () => {
    const index = createSqliteDocumentIndex({ path: file });
    await index.put({ url: 'https://example.test/otters', content: '# Otters\n\nOtters hold hands asleep.' });
    await index.close();
    // As an earlier version left it: no hashsize in the FTS table's configuration.
    const db = new DatabaseSync(file, { defensive: false });
    db.exec("DELETE FROM sections_config WHERE k = 'hashsize'");
    db.close();
    expect(hashSize(file)).toBeUndefined();

    const reopened = createSqliteDocumentIndex({ path: file });
    expect((await reopened.search('otters asleep')).map((hit) => hit.url)).toEqual([
      'https://example.test/otters',
    ]);
    await reopened.close();
    expect(hashSize(file)).toBe(DOCUMENT_INDEX_DEFAULTS.sqliteFtsHashSize);
  });

  it('a store opened to build commits its writes in large transactions: readers see them when saved', async () => {
    const store = await IndexStore.open(file, { bulk: true });
    const reader = createSqliteDocumentIndex({ path: file });
    try {
      // More than the default transaction (500 writes), fewer than a build's.
      const count = DOCUMENT_INDEX_DEFAULTS.sqliteBatchSize + 100;
      expect(count).toBeLessThan(DOCUMENT_INDEX_DEFAULTS.sqliteBulkBatchSize);
      for (let i = 0; i < count; i++)
        await store.put('', { url: `https://example.test/page-${i}`, content: `Page ${i} about beavers.` });
      expect((await reader.usage()).documents).toBe(0);
      await store.save();
      expect((await reader.usage()).documents).toBe(count);
      expect(await reader.search('beavers', { limit: 3 })).toHaveLength(3);
    } finally {
      await reader.close();
      await store.close();
    }
  });
});
