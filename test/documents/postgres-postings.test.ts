/**
 * The PostgreSQL index keeps each section's terms as postings (term, section, term frequency) under a
 * B-tree, kept by triggers on the sections. A search counts a word's sections and, when a round would read
 * more sections' vectors than the query's postings are worth, scores every section from the postings: a
 * common word no longer reads thousands of vectors out of TOAST. An index made before the postings gets
 * them on first use.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex, createPostgresDocumentIndex } from '../../src/documents/index.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { dropSchemas, reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');

/**
 * `count` pages of about 250 distinct words each (long enough for PostgreSQL to keep their vectors out of
 * line), all holding "common", and "rareword" in pages 3, 50 and 97.
 */
function pages(count: number): { url: string; content: string }[] {
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: count }, (_, page) => {
    const words = Array.from({ length: 200 + (page % 50) }, () => `w${Math.floor(next() * 4000)}x`);
    if (page % 47 === 3) words.push('rareword');
    words.push('common', 'common');
    return { url: `https://example.test/page-${page}`, content: `# Page ${page}\n\n${words.join(' ')}.\n` };
  });
}

// Hits by score; equal scores by URL, as backends order ties differently.
const ranked = async (index: DocumentIndex, query: string, limit: number) =>
  (await index.search(query, { limit }))
    .map((hit) => [hit.score.toFixed(9), hit.url])
    .sort(([a, x], [b, y]) => Number(b) - Number(a) || x!.localeCompare(y!));

/** The postings as the triggers keep them, and as the sections' vectors say they should be. */
async function postingsAndVectors(admin: pg.Client, schema: string) {
  const order = 'ORDER BY lexeme COLLATE "C", 2, 3';
  const kept = await admin.query(
    `SELECT lexeme, doc::text, section, owner, tf, length FROM "${schema}".index_postings ${order}`,
  );
  const expected = await admin.query(
    `SELECT u.lexeme, m.doc::text, m.section, m.owner, coalesce(array_length(u.positions, 1), 1) AS tf, m.length
     FROM "${schema}".index_sections m, unnest(m.terms) AS u ${order}`,
  );
  return { kept: kept.rows, expected: expected.rows };
}

/** Blocks of the sections' TOAST table read so far (from cache or disk), from PostgreSQL's statistics. */
async function toastBlocks(admin: pg.Client, schema: string): Promise<number> {
  const { rows } = await admin.query<{ blocks: string }>(
    `SELECT coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0) AS blocks FROM pg_statio_user_tables
     WHERE schemaname = $1 AND relname = 'index_sections'`,
    [schema],
  );
  return Number(rows[0]!.blocks);
}

describe.runIf(available)('PostgreSQL postings', () => {
  const schema = `cw_pgpost_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url! });
  let index: DocumentIndex;
  const open = () => createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 2 });
  beforeAll(async () => {
    await admin.connect();
    index = open();
  });
  afterAll(async () => {
    await index.close();
    await admin.end();
    await dropSchemas(url!, [schema]);
  });

  it('are kept in step with the sections through adds, replacements and removals', async () => {
    for (const page of pages(30)) await index.put(page);
    await index.put({ url: 'https://example.test/page-4', content: '# Four\n\nreplaced words here, here.' });
    await index.put(
      { url: 'https://example.test/own', content: '# Own\n\nan account page' },
      { owner: 'acct' },
    );
    expect(await index.remove('https://example.test/page-5')).toBe(true);
    const { kept, expected } = await postingsAndVectors(admin, schema);
    expect(kept.length).toBeGreaterThan(30 * 150);
    expect(kept).toEqual(expected);
  });

  it('are built on first use for an index made before them, which then searches as before', async () => {
    await index.close();
    // The schema of an earlier version: no postings, no triggers.
    await admin.query(`DROP TRIGGER index_postings_add ON "${schema}".index_sections;
      DROP TRIGGER index_postings_remove ON "${schema}".index_sections;
      DROP TABLE "${schema}".index_postings, "${schema}".index_postings_backfill`);
    index = open();
    const memory = createMemoryDocumentIndex();
    for (const page of pages(30).filter((page) => !/page-[45]$/.test(page.url))) await memory.put(page);
    await memory.put({ url: 'https://example.test/page-4', content: '# Four\n\nreplaced words here, here.' });
    expect(await ranked(index, 'common rareword', 10)).toEqual(await ranked(memory, 'common rareword', 10));
    const { kept, expected } = await postingsAndVectors(admin, schema);
    expect(kept).toEqual(expected);
    // And the triggers keep them from now on.
    await index.put({ url: 'https://example.test/late', content: '# Late\n\ncommon words added later' });
    const after = await postingsAndVectors(admin, schema);
    expect(after.kept).toEqual(after.expected);
  });

  it('score a common word from the postings, reading no section vector for it, and rank as exact BM25', async () => {
    const all = pages(300);
    for (let i = 0; i < all.length; i += 25) await Promise.all(all.slice(i, i + 25).map((p) => index.put(p)));
    const memory = createMemoryDocumentIndex();
    for (const page of all) await memory.put(page);
    await memory.put({ url: 'https://example.test/late', content: '# Late\n\ncommon words added later' });
    await index.close();
    // Statistics are written when a connection ends: each count is read once the index closed.
    const settled = async (previous?: number) => {
      let now = await toastBlocks(admin, schema);
      for (let wait = 0; wait < 10_000 && now === previous; wait += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        now = await toastBlocks(admin, schema);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      return toastBlocks(admin, schema);
    };
    const before = await settled();
    index = open();
    const [got, expected] = [
      await ranked(index, 'common rareword', 40),
      await ranked(memory, 'common rareword', 40),
    ];
    // The same scores; the same pages but among those tied with the last (pages of one length), cut anywhere.
    expect(got.map(([score]) => score)).toEqual(expected.map(([score]) => score));
    const last = expected.at(-1)![0];
    expect(got.filter(([score]) => score !== last)).toEqual(expected.filter(([score]) => score !== last));
    await index.close();
    const read = (await settled(before)) - before;
    // Every one of the 301 sections holds "common": scored from their vectors, they read over 700 blocks of
    // TOAST (two or more each). The rounds before may read a few sections' (their share of the postings).
    expect(read).toBeLessThan(200);
    index = open();
  });
});
