/**
 * How the SQLite document index ranks sections: our BM25 computed in SQL from FTS5's postings, exact while
 * few sections hold the query's terms; past that, the sections holding its rarer terms first (FTS5's own
 * ranking finds the candidates, ours scores them), with a bound that says when they are final.
 */
import type { StatementSync } from 'node:sqlite';
import { BM25_DEFAULTS } from '../text/bm25.ts';
import { termCounter } from './term-counts.ts';
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
): ScoredSection[] {
  /**
   * BM25 of a section's tokens for the query's engine terms, with the corpus statistics of now; and each
   * term's document frequency and upper bound (what it adds to a score at most).
   */
  const sectionScorer = (engine: readonly string[]) => {
    const { k1, b } = BM25_DEFAULTS;
    const stats = sql('SELECT sections, tokens FROM section_stats WHERE id = 1').get() as {
      sections: number;
      tokens: number;
    };
    const n = Math.max(stats.sections, 1);
    const avgdl = Math.max(stats.tokens, 1) / n;
    const idf = new Map<string, number>();
    const df = new Map<string, number>();
    const placeholders = engine.map(() => '?').join(', ');
    for (const row of sql(`SELECT term, doc FROM section_terms WHERE term IN (${placeholders})`).all(
      ...engine,
    ) as { term: string; doc: number }[])
      df.set(row.term, row.doc);
    for (const [term, count] of df) idf.set(term, Math.log(1 + (n - count + 0.5) / (count + 0.5)));
    /** The score of a section from its terms' counts (in the order they first stand in it) and length. */
    const score = (tf: ReadonlyMap<string, number>, length: number): number => {
      let score = 0;
      for (const [term, count] of tf)
        if (idf.has(term))
          score += (idf.get(term)! * count * (k1 + 1)) / (count + k1 * (1 - b + (b * length) / avgdl));
      return score;
    };
    return { score, sections: n, df, upperBound: (term: string) => (idf.get(term) ?? 0) * (k1 + 1) };
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
    const placeholders = terms.map(() => '?').join(', ');
    const { k1, b } = BM25_DEFAULTS;
    for (let window = limit * 4 + 16; ; window *= 4) {
      const rows = sql(
        `WITH stats AS (SELECT max(sections, 1) AS n, max(tokens, 1) * 1.0 / max(sections, 1) AS avgdl
                        FROM section_stats WHERE id = 1),
              df AS (SELECT term, doc AS df FROM section_terms WHERE term IN (${placeholders})),
              tf AS (SELECT term, doc AS section, count(*) AS tf FROM section_postings
                     WHERE term IN (${placeholders}) GROUP BY term, doc)
         SELECT tf.section AS rowid,
                sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * (? + 1)
                    / (tf.tf + ? * (1 - ? + ? * l.length / stats.avgdl))) AS score
         FROM tf JOIN df USING (term) JOIN section_lengths l ON l.section = tf.section, stats
         GROUP BY tf.section ORDER BY score DESC, tf.section LIMIT ?`,
      ).all(...terms, ...terms, k1, k1, b, b, window) as { rowid: number; score: number }[];
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

  /**
   * The best `limit` documents among the sections holding one of `terms`: candidates are the sections FTS5
   * ranks best (its bm25(), whose idf differs from ours), scored again with ours; a document counts once,
   * by its best section. The window widens until enough documents of the allowed owners are found or the
   * matches run out.
   */
  const bestSections = (
    terms: readonly string[],
    limit: number,
    scored: (rowid: number) => ScoredSection | null,
  ): ScoredSection[] => {
    const match = terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ');
    for (let window = limit * 2 + 10; ; window *= 4) {
      const candidates = sql('SELECT rowid FROM sections WHERE sections MATCH ? ORDER BY rank LIMIT ?').all(
        match,
        window,
      ) as { rowid: number }[];
      const hits = candidates.flatMap(({ rowid }) => scored(rowid) ?? []);
      hits.sort((x, y) => y.score - x.score || x.rowid - y.rowid);
      const best = new Map<number, ScoredSection>();
      for (const hit of hits) {
        const doc = Math.floor(hit.rowid / SECTION_BITS);
        if (!best.has(doc)) best.set(doc, hit);
      }
      if (best.size >= limit || candidates.length < window) return [...best.values()].slice(0, limit);
    }
  };

  const scorer = sectionScorer(engine);
  // Few sections hold the query's terms: all are scored exactly. Otherwise the rarer terms find the
  // candidates (ranking every section that holds a common word is what costs); their best documents
  // are final when no section holding only the other terms could pass them. If not, the next share
  // of terms is tried, and at last all sections are scored exactly.
  const matched = engine.filter((term) => scorer.df.has(term));
  if (matched.length === 0) return [];
  const postings = matched.reduce((sum, term) => sum + scorer.df.get(term)!, 0);
  if (postings <= DOCUMENT_INDEX_DEFAULTS.sqliteExactSections)
    return exactSections(matched, limit, owners, documentOf);
  // A candidate section scored with our BM25: its terms counted in its document's text, its length as
  // indexed (once per search).
  const sections = new Map<number, ScoredSection | null>();
  const counter = termCounter(matched);
  const lengthOf = sql('SELECT length FROM section_lengths WHERE section = ?');
  const scored = (rowid: number): ScoredSection | null => {
    let hit = sections.get(rowid);
    if (hit === undefined) {
      const stored = documentOf(Math.floor(rowid / SECTION_BITS));
      const section = stored?.sections[rowid % SECTION_BITS];
      hit =
        stored === null || stored === undefined || section === undefined
          ? null
          : {
              rowid,
              stored,
              score: scorer.score(
                counter(stored.title, section),
                (lengthOf.get(rowid) as { length: number } | undefined)?.length ?? 0,
              ),
            };
      sections.set(rowid, hit);
    }
    return hit;
  };
  let tried = 0;
  for (const share of DOCUMENT_INDEX_DEFAULTS.sqliteTermShares) {
    const rare = matched.filter((term) => scorer.df.get(term)! <= scorer.sections * share);
    if (rare.length === tried || rare.length === matched.length) continue;
    tried = rare.length;
    const hits = bestSections(rare, limit, scored);
    const bound = matched
      .filter((term) => !rare.includes(term))
      .reduce((sum, term) => sum + scorer.upperBound(term), 0);
    if (hits.length >= limit && hits[limit - 1]!.score > bound) return hits;
  }
  return exactSections(matched, limit, owners, documentOf);
}
