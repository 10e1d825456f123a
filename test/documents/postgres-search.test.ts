/**
 * The PostgreSQL index scores only the sections whose words' upper bounds reach a threshold, lowered until
 * the best documents are final. Its hits must be those of the exact BM25 of the in-memory index whatever
 * the query and limit (several rounds, few or many documents holding the words), its AND-groups must
 * cover every section that could reach the threshold, and it must read the sections through their
 * indexes only: a sequential scan reads (and decompresses) every section's vector.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex, createPostgresDocumentIndex } from '../../src/documents/index.ts';
import { coveringGroups } from '../../src/documents/bound-groups.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { dropSchemas, reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

describe('coveringGroups', () => {
  const cases = fc.record({
    bounds: fc.uniqueArray(fc.double({ min: 0.1, max: 12, noNaN: true }), { minLength: 1, maxLength: 9 }),
    share: fc.double({ min: 0.05, max: 1, noNaN: true }),
    maxGroups: fc.integer({ min: 1, max: 300 }),
    maxWords: fc.integer({ min: 1, max: 5 }),
  });

  it('holds a group inside every set of words whose bounds reach the threshold', () => {
    fc.assert(
      fc.property(cases, ({ bounds, share, maxGroups, maxWords }) => {
        const words = new Map(bounds.map((bound, i) => [`w${i}`, bound]));
        const threshold = bounds.reduce((sum, bound) => sum + bound, 0) * share;
        const groups = coveringGroups(words, threshold, maxGroups, maxWords);
        expect(groups.length).toBeGreaterThan(0);
        for (let mask = 1; mask < 1 << bounds.length; mask++) {
          const set = [...words.keys()].filter((_, i) => mask & (1 << i));
          const sum = set.reduce((total, word) => total + words.get(word)!, 0);
          if (sum >= threshold)
            expect(groups.some((group) => group.every((word) => set.includes(word)))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps no word to spare in a group when none is cut', () => {
    const words = new Map([
      ['a', 5],
      ['b', 4],
      ['c', 3],
      ['d', 1],
    ]);
    expect(coveringGroups(words, 8, 256, 4)).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c', 'd'],
    ]);
    // Past the most groups, they are cut to fewer words, down to single words.
    expect(coveringGroups(words, 8, 2, 4)).toEqual([['a'], ['b']]);
  });

  it('counts a set whose sum, taken in another order, is the threshold less a rounding', () => {
    const bounds = [10.891450330657628, 3.5989111743862328, 11.241298797838994, 5.034270486111878];
    const threshold = bounds.reduce((sum, bound) => sum + bound, 0);
    const words = new Map(bounds.map((bound, i) => [`w${i}`, bound]));
    expect(coveringGroups(words, threshold, 256, 4)).toEqual([['w2', 'w0', 'w3', 'w1']]);
  });
});

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');

/** 240 pages over a vocabulary where word i is in about 1 page in i + 1, so some words are rare. */
function pages(): { url: string; content: string }[] {
  let seed = 11;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const vocabulary = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);
  return Array.from({ length: 240 }, (_, page) => {
    const words: string[] = [];
    for (let i = 0; i < vocabulary.length; i++)
      if (next() < 1 / (i + 1) ** 0.8)
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) words.push(vocabulary[i]!);
    words.push(...Array.from({ length: Math.floor(next() * 60) }, () => 'filler'));
    return { url: `https://example.test/p-${page}`, content: `# Page ${page}\n\n${words.join(' ')}.\n` };
  });
}

// Hits by score; equal scores (pages alike) by URL, as backends order ties differently.
const ranked = async (index: DocumentIndex, query: string, limit: number) =>
  (await index.search(query, { limit }))
    .map((hit) => [hit.score.toFixed(9), hit.url])
    .sort(([a, x], [b, y]) => Number(b) - Number(a) || x!.localeCompare(y!));

const QUERIES = [
  'worda0 wordb1',
  'worda0 wordb1 wordc2 wordd3',
  'wordn39 worda0',
  'wordm38 wordl37 wordk36 wordb1 wordc2',
  'worde4 wordf5 wordg6 wordh7 wordi8 wordj9 wordk10',
  'wordz25 worda26 wordb27 wordc28 worda0 wordb1 wordc2 wordd3 worde4',
  'wordn13 filler',
  'nothingmatches wordb1',
];

describe.runIf(available)('PostgreSQL search', () => {
  const schema = `cw_pgsearch_${randomBytes(4).toString('hex')}`;
  const memory = createMemoryDocumentIndex();
  let index: DocumentIndex;
  beforeAll(async () => {
    index = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
    for (const page of pages()) {
      await index.put(page);
      await memory.put(page);
    }
  });
  afterAll(async () => {
    await index.close();
    await dropSchemas(url!, [schema]);
  });

  it.each(QUERIES)('ranks "%s" as the exact BM25 at every limit', async (query) => {
    for (const limit of [1, 4, 15, 60]) {
      const expected = await ranked(memory, query, limit);
      expect(await ranked(index, query, limit)).toEqual(expected);
    }
  });

  it('reads the sections through their indexes, never by a sequential scan', async () => {
    const admin = new pg.Client({ connectionString: url! });
    await admin.connect();
    try {
      // Table statistics are written when a connection ends: each count is read after the index closed.
      const scans = () => tableScans(admin, schema, 'index_sections');
      const settled = async (previous?: { seq: string; idx: string }) => {
        for (let wait = 0; ; wait += 100) {
          const now = await scans();
          if (previous === undefined || now.seq !== previous.seq || now.idx !== previous.idx) {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return scans();
          }
          if (wait > 10_000) return now;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await index.close();
      const before = await settled();
      index = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
      for (const query of QUERIES) await index.search(query, { limit: 15 });
      await index.close();
      const after = await settled(before);
      expect(Number(after.idx)).toBeGreaterThan(Number(before.idx));
      expect(Number(after.seq) - Number(before.seq)).toBe(0);
    } finally {
      await admin.end();
      index = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
    }
  });
});

/** A table's sequential and index scans so far, from PostgreSQL's statistics. */
async function tableScans(
  admin: pg.Client,
  schema: string,
  table: string,
): Promise<{ seq: string; idx: string }> {
  const { rows } = await admin.query<{ seq: string; idx: string }>(
    `SELECT seq_scan AS seq, coalesce(idx_scan, 0) AS idx FROM pg_stat_user_tables
     WHERE schemaname = $1 AND relname = $2`,
    [schema, table],
  );
  return rows[0]!;
}

describe.runIf(available)('PostgreSQL documents list', () => {
  const schema = `cw_pglist_${randomBytes(4).toString('hex')}`;
  afterAll(() => dropSchemas(url!, [schema]));

  it('reads a page in URL order from an index, without reading every document (a search checks one each time)', async () => {
    let index = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 4 });
    const urls = Array.from(
      { length: 1500 },
      (_, i) => `https://example.test/d-${String(i).padStart(4, '0')}`,
    );
    for (let i = 0; i < urls.length; i += 50)
      await Promise.all(
        urls.slice(i, i + 50).map((page) => index.put({ url: page, content: `# ${page}\n\nword.` })),
      );
    await index.close();
    const admin = new pg.Client({ connectionString: url! });
    await admin.connect();
    try {
      await admin.query(`ANALYZE "${schema}".index_documents`);
      // Table statistics are written when a connection ends: each count is read after the index closed.
      const scans = () => tableScans(admin, schema, 'index_documents');
      let before = await scans();
      for (let wait = 0; wait < 3_000; wait += 200) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const now = await scans();
        if (now.seq === before.seq && now.idx === before.idx) break;
        before = now;
      }
      index = createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
      const page = await index.list({ limit: 1 });
      expect(page.documents.map((document) => document.url)).toEqual([urls[0]]);
      await index.close();
      let after = before;
      for (let wait = 0; wait < 10_000 && after.idx === before.idx && after.seq === before.seq; wait += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await scans();
      }
      expect(Number(after.seq) - Number(before.seq)).toBe(0);
      expect(Number(after.idx)).toBeGreaterThan(Number(before.idx));
    } finally {
      await admin.end();
    }
  });
});
