/**
 * How the SQLite document index ranks sections: our BM25 computed in SQL from FTS5's postings (exact, the
 * in-memory ranker's). While few sections hold the query's terms, all of them are scored. Past that, by
 * threshold rounds: a section scores at most the sum of its terms' upper bounds (idf times `k1 + 1`), so
 * only the sections whose bound reaches a threshold are scored (FTS5 finds them with a query of AND-groups
 * of terms, without ranking), and the threshold is lowered until the `limit`-th document scores at least
 * it: no section left out could pass it.
 */
import type { StatementSync } from 'node:sqlite';
import { BM25_DEFAULTS } from '../text/bm25.ts';
import { coveringGroups, factoredGroups } from './bound-groups.ts';
import { DOCUMENT_INDEX_DEFAULTS, type StoredDocument } from './types.ts';

/** A section's FTS row id is its document's row id times 2^16 plus its position: no mapping table. */
export const SECTION_BITS = 65_536;

/** A section scored for a search, with its document. */
export interface ScoredSection {
  readonly rowid: number;
  readonly stored: StoredDocument;
  readonly score: number;
}

/**
 * The best `limit` documents (each by its best section) for the query's engine terms, among the documents
 * `documentOf` gives (null: not found, or of an owner the search may not read).
 */
export function rankSections(
  sql: (text: string) => StatementSync,
  engine: readonly string[],
  limit: number,
  owners: ReadonlySet<string>,
  documentOf: (doc: number) => StoredDocument | null,
  exactLimit: number = DOCUMENT_INDEX_DEFAULTS.sqliteExactSections,
): ScoredSection[] {
  /** Each of the query's terms' document frequency and upper bound (what it adds to a score at most). */
  const termBounds = (engine: readonly string[]) => {
    const { k1 } = BM25_DEFAULTS;
    const stats = sql('SELECT sections FROM section_stats WHERE id = 1').get() as { sections: number };
    const n = Math.max(stats.sections, 1);
    const df = new Map<string, number>();
    const placeholders = engine.map(() => '?').join(', ');
    for (const row of sql(`SELECT term, doc FROM section_terms WHERE term IN (${placeholders})`).all(
      ...engine,
    ) as { term: string; doc: number }[])
      df.set(row.term, row.doc);
    const upperBound = (term: string) =>
      df.has(term) ? Math.log(1 + (n - df.get(term)! + 0.5) / (df.get(term)! + 0.5)) * (k1 + 1) : 0;
    return { df, upperBound };
  };

  /**
   * BM25 computed in SQL (term frequencies from FTS5's postings, `fts5vocab`) of the sections holding one
   * of `terms`, or of `among` only; best first, at most `window`.
   */
  const scoreInSql = (
    terms: readonly string[],
    window: number,
    among?: readonly number[],
  ): { rowid: number; score: number }[] => {
    const placeholders = terms.map(() => '?').join(', ');
    const { k1, b } = BM25_DEFAULTS;
    const only = among === undefined ? '' : 'AND doc IN (SELECT value FROM json_each(?))';
    return sql(
      `WITH stats AS (SELECT max(sections, 1) AS n, max(tokens, 1) * 1.0 / max(sections, 1) AS avgdl
                      FROM section_stats WHERE id = 1),
            df AS (SELECT term, doc AS df FROM section_terms WHERE term IN (${placeholders})),
            tf AS (SELECT term, doc AS section, count(*) AS tf FROM section_postings
                   WHERE term IN (${placeholders}) ${only} GROUP BY term, doc)
       SELECT tf.section AS rowid,
              sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * (? + 1)
                  / (tf.tf + ? * (1 - ? + ? * l.length / stats.avgdl))) AS score
       FROM tf JOIN df USING (term) JOIN section_lengths l ON l.section = tf.section, stats
       GROUP BY tf.section ORDER BY score DESC, tf.section LIMIT ?`,
    ).all(
      ...terms,
      ...terms,
      ...(among === undefined ? [] : [JSON.stringify(among)]),
      k1,
      k1,
      b,
      b,
      window,
    ) as { rowid: number; score: number }[];
  };

  /**
   * The best `limit` documents by BM25 computed in SQL over every section holding one of `terms` (term
   * frequencies from FTS5's postings, `fts5vocab`): exact, and costly when the terms are common. A
   * document counts once, by its best section; the window widens until enough documents of the allowed
   * owners are found or the matches run out.
   */
  const exactSections = (
    terms: readonly string[],
    limit: number,
    owners: ReadonlySet<string>,
    documentOf: (doc: number) => StoredDocument | null,
  ): ScoredSection[] => {
    for (let window = limit * 4 + 16; ; window *= 4) {
      const rows = scoreInSql(terms, window);
      // Documents are read (and analysed) only for the hits returned; owners are checked on the way.
      const best = new Map<number, { rowid: number; score: number } | null>();
      const ownerOfDoc = sql('SELECT owner FROM documents WHERE doc = ?');
      for (const row of rows) {
        const doc = Math.floor(row.rowid / SECTION_BITS);
        if (best.has(doc)) continue;
        const found = ownerOfDoc.get(doc) as { owner: string } | undefined;
        best.set(doc, found !== undefined && owners.has(found.owner) ? row : null);
      }
      const allowed = [...best].filter(([, hit]) => hit !== null);
      if (allowed.length >= limit || rows.length < window)
        return allowed.slice(0, limit).flatMap(([doc, hit]) => {
          const stored = documentOf(doc);
          return stored === null ? [] : [{ ...hit!, stored }];
        });
    }
  };

  const scorer = termBounds(engine);
  // Few sections hold the query's terms: all are scored exactly (ranking every section that holds a
  // common word is what costs).
  const matched = engine.filter((term) => scorer.df.has(term));
  if (matched.length === 0) return [];
  const postings = matched.reduce((sum, term) => sum + scorer.df.get(term)!, 0);
  if (postings <= exactLimit) return exactSections(matched, limit, owners, documentOf);
  // Otherwise threshold rounds: the sections whose terms' upper bounds reach a threshold (FTS5 finds them
  // with a query of AND-groups of terms, without ranking) are scored exactly in SQL, and the threshold is
  // lowered until the best documents are final; too many of them, and every section is scored.
  const bounds = new Map(matched.map((term) => [term, scorer.upperBound(term) * (1 + 1e-9)]));
  const { sqliteFirstThreshold, sqliteMaxGroups, sqliteMaxGroupWords } = DOCUMENT_INDEX_DEFAULTS;
  let threshold = [...bounds.values()].reduce((sum, bound) => sum + bound, 0) * sqliteFirstThreshold;
  const rows: { rowid: number; score: number }[] = [];
  const seen = new Set<number>();
  const ownerOfDoc = sql('SELECT owner FROM documents WHERE doc = ?');
  const allowed = new Map<number, boolean>();
  const isAllowed = (doc: number): boolean => {
    let known = allowed.get(doc);
    if (known === undefined) {
      const found = ownerOfDoc.get(doc) as { owner: string } | undefined;
      allowed.set(doc, (known = found !== undefined && owners.has(found.owner)));
    }
    return known;
  };
  const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;
  for (;;) {
    const groups = coveringGroups(bounds, threshold, sqliteMaxGroups, sqliteMaxGroupWords);
    if (groups.length === matched.length && groups.every((group) => group.length === 1)) break;
    const match = factoredGroups(groups, { literal: quoted, and: ' AND ', or: ' OR ' })
      .map((query) => `(${query})`)
      .join(' OR ');
    const fresh = (sql('SELECT rowid FROM sections WHERE sections MATCH ?').all(match) as { rowid: number }[])
      .map((row) => row.rowid)
      .filter((rowid) => !seen.has(rowid));
    if (seen.size + fresh.length > DOCUMENT_INDEX_DEFAULTS.sqliteExactSections) break;
    for (const rowid of fresh) seen.add(rowid);
    if (fresh.length > 0) rows.push(...scoreInSql(matched, fresh.length, fresh));
    rows.sort((x, y) => y.score - x.score || x.rowid - y.rowid);
    const best = new Map<number, { rowid: number; score: number }>();
    for (const row of rows) {
      const doc = Math.floor(row.rowid / SECTION_BITS);
      if (best.has(doc) || !isAllowed(doc)) continue;
      best.set(doc, row);
      if (best.size === limit) break;
    }
    const last = best.size === limit ? [...best.values()].at(-1)!.score : undefined;
    if (last !== undefined && last >= threshold)
      return [...best].flatMap(([doc, hit]) => {
        const stored = documentOf(doc);
        return stored === null ? [] : [{ ...hit, stored }];
      });
    threshold = last ?? threshold / 2;
  }
  return exactSections(matched, limit, owners, documentOf);
}
