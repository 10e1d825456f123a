/**
 * How the PostgreSQL document index ranks sections: our BM25 in SQL over sections the GIN index matches.
 * Scoring reads each matched section's `tsvector` (stored out of line once a section is long), so it must
 * read few of them. A section's score is at most the sum of its query words' upper bounds (each word's idf
 * times `k1 + 1`): a search first scores only the sections whose bound reaches a high threshold (the GIN
 * index finds them with a query of AND-groups of words, {@link coveringGroups}), and is done when the
 * `limit`-th document scores at least that threshold, since no section left out could pass it. Otherwise
 * the threshold drops to that document's score (or by half) and the sections reaching it are scored next
 * (those of earlier rounds again: leaving them out would read their vectors as well). A round that would read more vectors than the query's postings are worth (a common
 * word alone reaching the threshold) scores every matching section from the postings' B-tree instead
 * (`postgres-postings.ts`), and is the last. This is exact: the best `limit` documents and their scores
 * are those of scoring every matching section.
 */
import type pg from 'pg';
import { BM25_DEFAULTS } from '../text/bm25.ts';
import { coveringGroups, factoredGroups } from './bound-groups.ts';
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
  /** Document frequencies counted recently, reused like the statistics. */
  readonly frequencies: FrequencyCache;
}

/**
 * Each common word's number of sections of a set of owners, as counted at `at` (ms): the common words come
 * back in many questions and are the dearest to count, and they move as slowly as the corpus statistics.
 */
export interface FrequencyCache {
  readonly entries: Map<string, { readonly at: number; readonly df: number }>;
  /** How long a count is reused (ms). */
  readonly ttlMs: number;
}

/**
 * A set of sections to score: those holding every word of one of the groups (those of earlier rounds among
 * them: telling them apart would read each one's vector, which is what costs).
 */
interface Selection {
  readonly groups: readonly (readonly string[])[];
  /** The most sections to score: with more, none is scored. */
  readonly most: number;
}

/**
 * The best scored sections (up to `window`, best first) for the query's engine terms (`text`, joined by
 * spaces) among the sections of `owners`: the best section of each of the best `limit` documents is
 * among them, with its exact score.
 */
export async function rankPostgresSections(
  ranking: PostgresRanking,
  text: string,
  owners: readonly string[],
  limit: number,
  window: number,
): Promise<ScoredRow[]> {
  const df = await documentFrequencies(ranking, text, owners);
  const matched = [...df.keys()].filter((lexeme) => df.get(lexeme)! > 0);
  if (matched.length === 0) return [];
  const { k1 } = BM25_DEFAULTS;
  const { n } = ranking.stats;
  // Each word's most a section can get from it (a little more, for rounding).
  const bounds = new Map(
    matched.map((lexeme) => {
      const count = df.get(lexeme)!;
      return [lexeme, Math.log(1 + (n - count + 0.5) / (count + 0.5)) * (k1 + 1) * (1 + 1e-9)];
    }),
  );
  const { postgresFirstThreshold, postgresMaxGroups, postgresMaxGroupWords, postgresVectorCost } =
    DOCUMENT_INDEX_DEFAULTS;
  let threshold = [...bounds.values()].reduce((sum, bound) => sum + bound, 0) * postgresFirstThreshold;
  let rows: ScoredRow[] = [];
  const postings = matched.reduce((sum, lexeme) => sum + df.get(lexeme)!, 0);
  for (;;) {
    const groups = coveringGroups(bounds, threshold, postgresMaxGroups, postgresMaxGroupWords);
    const all = groups.every((group) => group.length === 1) && groups.length === matched.length;
    // A round that would read more sections' vectors than the query's postings are worth does not: every
    // section is scored from the postings instead.
    const fresh = await scoreSections(ranking, matched, df, owners, window, {
      groups,
      most: Math.floor(postings / postgresVectorCost),
    });
    if (fresh === undefined)
      return mergeRows(rows, await scoreAllSections(ranking, matched, df, owners, window)).slice(0, window);
    rows = mergeRows(rows, fresh).slice(0, window);
    const last = limitthScore(rows, limit);
    if (all || (last !== undefined && last >= threshold)) return rows;
    threshold = last ?? threshold / 2;
  }
}

/** The best score of the `limit`-th document of `rows` (best first), if there are that many documents. */
function limitthScore(rows: readonly ScoredRow[], limit: number): number | undefined {
  const documents = new Set<string>();
  for (const row of rows) {
    if (documents.has(row.doc)) continue;
    documents.add(row.doc);
    if (documents.size === limit) return row.score;
  }
  return undefined;
}

/**
 * Two lists of scored rows (each best first; a section in both counts once, as `b` scores it) as one, in the
 * order SQL gives them.
 */
function mergeRows(a: readonly ScoredRow[], b: readonly ScoredRow[]): ScoredRow[] {
  const docOrder = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  const seen = new Set(b.map((row) => `${row.doc}:${row.section}`));
  return [...a.filter((row) => !seen.has(`${row.doc}:${row.section}`)), ...b].sort(
    (x, y) => y.score - x.score || docOrder(x.doc, y.doc) || x.section - y.section,
  );
}

/**
 * The lexemes of the query's engine terms (in the vector's order), each with its number of sections of
 * `owners` holding it (counted with the GIN index unless counted recently), in one round trip.
 */
async function documentFrequencies(
  ranking: PostgresRanking,
  text: string,
  owners: readonly string[],
): Promise<Map<string, number>> {
  const { entries, ttlMs } = ranking.frequencies;
  const prefix = `${JSON.stringify([...owners].sort())}\u0000`;
  const now = Date.now();
  const known = new Map<string, number>();
  for (const [key, entry] of entries)
    if (now - entry.at >= ttlMs) entries.delete(key);
    else if (key.startsWith(prefix)) known.set(key.slice(prefix.length), entry.df);
  const { rows } = await ranking.query<{ lexeme: string; df: string | null }>(
    `SELECT l.lexeme, CASE WHEN l.lexeme = ANY($3::text[]) THEN NULL ELSE
                        (SELECT count(*) FROM ${ranking.schema}.index_postings p
                         WHERE p.lexeme = l.lexeme AND p.owner = ANY($2))
                      END AS df
     FROM unnest(to_tsvector('simple', $1)) AS l`,
    [text, owners, [...known.keys()]],
  );
  return new Map(
    rows.map((row) => {
      if (row.df === null) return [row.lexeme, known.get(row.lexeme)!];
      const df = Number(row.df);
      if (df >= DOCUMENT_INDEX_DEFAULTS.postgresCachedFrequencyMin) {
        if (entries.size >= DOCUMENT_INDEX_DEFAULTS.postgresCachedFrequencies)
          entries.delete(entries.keys().next().value!);
        entries.set(prefix + row.lexeme, { at: now, df });
      }
      return [row.lexeme, df];
    }),
  );
}

/**
 * The SQL of one query term's BM25 in a section: `row`'s `tf` and `length`, the term's `d.df`, and the
 * corpus's N, k1, b and average length in the parameters `$first` to `$first + 3`.
 */
function termBm25(row: string, first: number): string {
  const [n, k1, b, avgdl] = [0, 1, 2, 3].map((i) => `$${first + i}::float8`);
  return `ln(1 + (${n} - d.df + 0.5) / (d.df + 0.5)) * ${row}.tf * (${k1} + 1)
                / (${row}.tf + ${k1} * (1 - ${b} + ${b} * ${row}.length / greatest(${avgdl}, 1)))`;
}

/** `tsquery` texts that together match a section holding every word of one of `groups`. */
function groupQueries(groups: readonly (readonly string[])[]): string[] {
  const literal = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return factoredGroups(groups, { literal, and: ' & ', or: ' | ' });
}

/**
 * BM25 of the sections of `selection`, scored with every lexeme of the query; best first, at most
 * `window`. Undefined when the selection holds more than `selection.most` sections (then none is read).
 */
async function scoreSections(
  ranking: PostgresRanking,
  lexemes: readonly string[],
  df: ReadonlyMap<string, number>,
  owners: readonly string[],
  window: number,
  selection: Selection,
): Promise<ScoredRow[] | undefined> {
  const { k1, b } = BM25_DEFAULTS;
  const { rows } = await ranking.query<ScoredRow | { doc: null }>(
    `WITH d AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS d(lexeme, df)),
          -- The selected sections, found with the GIN index alone (one bitmap scan for each query).
          selected AS MATERIALIZED (
            SELECT m.doc, m.section, m.owner, m.length, m.terms FROM ${ranking.schema}.index_sections m
            WHERE m.terms @@ ANY($3::tsquery[])
            LIMIT $10::int + 1
          ),
          too_many AS (SELECT count(*) > $10::int AS yes FROM selected),
          matched AS (
            SELECT m.doc, m.section, m.length, u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf
            -- Only the query's lexemes of each vector: weighted A, kept by ts_filter, then unnested.
            FROM selected m, unnest(ts_filter(setweight(m.terms, 'A', $1::text[]), '{a}')) u
            WHERE m.owner = ANY($4) AND u.lexeme = ANY($1::text[]) AND NOT (SELECT yes FROM too_many)
          )
     (SELECT matched.doc, matched.section,
            sum(${termBm25('matched', 5)}
                -- Summed in the vector's order whatever the plan: a section scores the same in every round.
                ORDER BY matched.lexeme COLLATE "C")::float8 AS score
     FROM matched JOIN d USING (lexeme)
     GROUP BY matched.doc, matched.section
     ORDER BY score DESC, matched.doc, matched.section
     LIMIT $9)
     -- A row without a section says there were too many.
     UNION ALL SELECT NULL, NULL, NULL FROM too_many WHERE yes`,
    [
      lexemes,
      lexemes.map((lexeme) => df.get(lexeme)!),
      groupQueries(selection.groups),
      owners,
      ranking.stats.n,
      k1,
      b,
      ranking.stats.avgdl,
      window,
      selection.most,
    ],
  );
  return rows.some((row) => row.doc === null) ? undefined : (rows as ScoredRow[]);
}

/**
 * BM25 of every section of `owners` holding a query term, from the postings' index alone (each term's
 * postings read once, summed per section); best first, at most `window`.
 */
async function scoreAllSections(
  ranking: PostgresRanking,
  lexemes: readonly string[],
  df: ReadonlyMap<string, number>,
  owners: readonly string[],
  window: number,
): Promise<ScoredRow[]> {
  const { k1, b } = BM25_DEFAULTS;
  const { rows } = await ranking.query<ScoredRow>(
    `WITH d AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS d(lexeme, df))
     SELECT p.doc, p.section,
            sum(${termBm25('p', 4)})::float8 AS score
     FROM d CROSS JOIN LATERAL (
       SELECT p.doc, p.section, p.lexeme, p.tf, p.length FROM ${ranking.schema}.index_postings p
       WHERE p.lexeme = d.lexeme AND p.owner = ANY($3)
     ) p
     GROUP BY p.doc, p.section
     ORDER BY score DESC, p.doc, p.section
     LIMIT $8`,
    [
      lexemes,
      lexemes.map((lexeme) => df.get(lexeme)!),
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
