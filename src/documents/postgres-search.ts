/**
 * How the PostgreSQL document index ranks sections: our BM25 in SQL over the sections the GIN index
 * matches. Scoring reads each matched section's `tsvector` (stored out of line once a section is long), so
 * a query with a common word would read a large share of the index: the sections holding the query's rarer
 * words are scored first, and they are final when no section holding only its common words could pass
 * the last of them. This is exact: every section holding a rare word is scored with all the query's words.
 */
import type pg from 'pg';
import { BM25_DEFAULTS } from '../text/bm25.ts';
import { DOCUMENT_INDEX_DEFAULTS } from './types.ts';

/** A scored section: its document's row id, its position and its BM25 score. */
export interface ScoredRow {
  readonly doc: string;
  readonly section: number;
  readonly score: number;
}

/** What {@link rankPostgresSections} runs its statements with. */
export interface PostgresRanking {
  readonly query: <R extends pg.QueryResultRow>(
    text: string,
    params?: readonly unknown[],
  ) => Promise<pg.QueryResult<R>>;
  /** The schema, quoted. */
  readonly schema: string;
  /** BM25's corpus statistics of the allowed owners' sections. */
  readonly stats: { readonly n: number; readonly avgdl: number };
}

/**
 * The best scored sections (up to `window`, best first) for the query's engine terms (`text`, joined by
 * spaces) among the sections of `owners`: the best section of each of the best `limit` documents is
 * among them.
 */
export async function rankPostgresSections(
  ranking: PostgresRanking,
  text: string,
  owners: readonly string[],
  limit: number,
  window: number,
): Promise<ScoredRow[]> {
  const { stats } = ranking;
  const df = await documentFrequencies(ranking, text, owners);
  const lexemes = [...df.keys()];
  const matched = lexemes.filter((lexeme) => df.get(lexeme)! > 0);
  if (matched.length === 0) return [];
  const { k1 } = BM25_DEFAULTS;
  const idf = (count: number) => Math.log(1 + (stats.n - count + 0.5) / (count + 0.5));
  let tried = 0;
  for (const share of DOCUMENT_INDEX_DEFAULTS.sqliteTermShares) {
    const rare = matched.filter((lexeme) => df.get(lexeme)! <= stats.n * share);
    if (rare.length === tried || rare.length === matched.length) continue;
    tried = rare.length;
    const rows = await scoreSections(ranking, matched, df, rare, owners, window);
    // What a section holding none of the rare words scores at most (a little more, for rounding).
    const bound =
      matched.filter((lexeme) => !rare.includes(lexeme)).reduce((sum, l) => sum + idf(df.get(l)!), 0) *
      (k1 + 1) *
      (1 + 1e-9);
    // Final when the limit-th document's best section scores above what the others could.
    const documents = new Set<string>();
    for (const row of rows) {
      if (documents.has(row.doc)) continue;
      documents.add(row.doc);
      if (documents.size === limit) {
        if (row.score > bound) return rows;
        break;
      }
    }
  }
  return scoreSections(ranking, matched, df, undefined, owners, window);
}

/**
 * The lexemes of the query's engine terms (in the vector's order), each with its number of sections of
 * `owners` holding it (counted with the GIN index), in one round trip.
 */
async function documentFrequencies(
  ranking: PostgresRanking,
  text: string,
  owners: readonly string[],
): Promise<Map<string, number>> {
  const { rows } = await ranking.query<{ lexeme: string; df: string }>(
    `SELECT l.lexeme, (SELECT count(*) FROM ${ranking.schema}.index_sections m
                       WHERE m.terms @@ to_tsquery('simple', quote_literal(l.lexeme)) AND m.owner = ANY($2)) AS df
     FROM unnest(to_tsvector('simple', $1)) AS l`,
    [text, owners],
  );
  return new Map(rows.map((row) => [row.lexeme, Number(row.df)]));
}

/**
 * BM25 of the sections holding one of `among` (all of `lexemes` when undefined), scored with every lexeme
 * of the query; best first, at most `window`.
 */
async function scoreSections(
  ranking: PostgresRanking,
  lexemes: readonly string[],
  df: ReadonlyMap<string, number>,
  among: readonly string[] | undefined,
  owners: readonly string[],
  window: number,
): Promise<ScoredRow[]> {
  const { k1, b } = BM25_DEFAULTS;
  const { rows } = await ranking.query<ScoredRow>(
    `WITH d AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS d(lexeme, df)),
          matched AS (
            SELECT m.doc, m.section, m.length, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf
            -- Only the query's lexemes of each vector: weighted A, kept by ts_filter, then unnested.
            FROM ${ranking.schema}.index_sections m,
                 unnest(ts_filter(setweight(m.terms, 'A', $1::text[]), '{a}')) u
            WHERE m.terms @@ to_tsquery('simple', (SELECT string_agg(quote_literal(x), ' | ') FROM unnest($3::text[]) x))
              AND m.owner = ANY($4) AND u.lexeme = ANY($1::text[])
          )
     SELECT matched.doc, matched.section,
            sum(ln(1 + ($5::float8 - d.df + 0.5) / (d.df + 0.5)) * matched.tf * ($6::float8 + 1)
                / (matched.tf + $6::float8 * (1 - $7::float8 + $7::float8 * matched.length / greatest($8::float8, 1))))::float8 AS score
     FROM matched JOIN d USING (lexeme)
     GROUP BY matched.doc, matched.section
     ORDER BY score DESC, matched.doc, matched.section
     LIMIT $9`,
    [
      lexemes,
      lexemes.map((lexeme) => df.get(lexeme)!),
      among ?? lexemes,
      owners,
      ranking.stats.n,
      k1,
      b,
      ranking.stats.avgdl,
      window,
    ],
  );
  return rows;
}
