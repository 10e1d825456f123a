/**
 * The SQLite index's search takes its candidates from FTS5 by the query's rarer terms first, and the
 * PostgreSQL index scores the sections holding them first; their hits must be those of the exact BM25 of
 * the in-memory index, both when the rare terms decide and when the common ones must be searched too.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  createMemoryDocumentIndex,
  createPostgresDocumentIndex,
  createSqliteDocumentIndex,
} from '../../src/documents/index.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

const WORDS = 'harbour lantern meadow orchard quarry ribbon saddle thimble velvet willow'.split(' ');

/** 120 pages: "ledger" in all, "walrus" in a handful, a few seeded filler words each. */
function pages(): { url: string; content: string }[] {
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: 120 }, (_, i) => {
    const words = Array.from({ length: 20 + Math.floor(next() * 40) }, () => WORDS[Math.floor(next() * 10)]);
    if (i % 30 === 3) words.push('walrus', 'walrus');
    if (i % 2 === 0) words.push('ledger', 'ledger', 'ledger');
    else words.push('ledger');
    return { url: `https://example.test/page-${i}`, content: `# Page ${i}\n\n${words.join(' ')}.\n` };
  });
}

// Hits by score; equal scores (pages alike) by URL, as backends order ties differently.
const ranked = async (index: DocumentIndex, query: string, limit: number) =>
  (await index.search(query, { limit }))
    .map((hit) => [hit.score.toFixed(9), hit.url])
    .sort(([a, x], [b, y]) => Number(b) - Number(a) || x!.localeCompare(y!));

const QUERIES = [
  ['a rare term decides', 'walrus ledger', 3],
  ['the common terms must be searched too', 'walrus ledger harbour', 10],
  ['common terms only', 'ledger lantern', 10],
] as const;

/** The exact-ranking tests of one backend, opened (and closed) by `open`. */
function describeRanking(name: string, open: () => Promise<DocumentIndex>, close: () => Promise<void>) {
  describe(`${name} search`, () => {
    let index: DocumentIndex;
    const memory = createMemoryDocumentIndex();
    beforeAll(async () => {
      index = await open();
      for (const page of pages()) {
        await index.put(page);
        await memory.put(page);
      }
      await index.flush();
    });
    afterAll(close);

    it.each(QUERIES)('ranks as the exact BM25 when %s', async (_, query, limit) => {
      const hits = await ranked(index, query, limit);
      expect(hits).toHaveLength(limit);
      expect(hits).toEqual(await ranked(memory, query, limit));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'citewise-sqlite-search-'));
let sqlite: DocumentIndex | undefined;
describeRanking(
  'SQLite',
  async () => (sqlite = createSqliteDocumentIndex({ path: join(dir, 'index.sqlite') })),
  async () => {
    await sqlite?.close();
    rmSync(dir, { recursive: true, force: true });
  },
);

const url = await reachablePostgres();
if (serverOrSkip('PostgreSQL', url, 'DATABASE_URL')) {
  const schema = `cw_search_${randomBytes(4).toString('hex')}`;
  let postgres: DocumentIndex | undefined;
  describeRanking(
    'PostgreSQL',
    async () =>
      (postgres = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 })),
    async () => {
      await postgres?.close();
      const admin = new pg.Client({ connectionString: url! });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  );
}
