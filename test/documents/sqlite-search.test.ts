/**
 * The SQLite index's search takes its candidates from FTS5 by the query's rarer terms first; its hits must
 * be those of the exact BM25 of the in-memory index, both when the rare terms decide and when the common
 * ones must be searched too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex, createSqliteDocumentIndex } from '../../src/documents/index.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';

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

describe('SQLite search', () => {
  const dir = mkdtempSync(join(tmpdir(), 'citewise-sqlite-search-'));
  let sqlite: DocumentIndex;
  const memory = createMemoryDocumentIndex();
  beforeAll(async () => {
    sqlite = createSqliteDocumentIndex({ path: join(dir, 'index.sqlite') });
    for (const page of pages()) {
      await sqlite.put(page);
      await memory.put(page);
    }
    await sqlite.flush();
  });
  afterAll(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Hits by score; equal scores (pages alike) by URL, as backends order ties differently.
  const ranked = async (index: DocumentIndex, query: string, limit: number) =>
    (await index.search(query, { limit }))
      .map((hit) => [hit.score.toFixed(9), hit.url])
      .sort(([a, x], [b, y]) => Number(b) - Number(a) || x!.localeCompare(y!));

  it.each([
    ['a rare term decides', 'walrus ledger', 3],
    ['the common terms must be searched too', 'walrus ledger harbour', 10],
    ['common terms only', 'ledger lantern', 10],
  ])('ranks as the exact BM25 when %s', async (_, query, limit) => {
    const hits = await ranked(sqlite, query, limit);
    expect(hits).toHaveLength(limit);
    expect(hits).toEqual(await ranked(memory, query, limit));
  });
});
