/**
 * Okapi BM25 over an in-memory inverted index. Documents are bags of tokens identified by a string id;
 * they can be added, replaced and removed at any time. Used by the local search index (sections of
 * files), the passage ranker (passages of fetched pages), the extractive answerer and the document stores.
 */
import { fraction, nonNegativeNumber } from '../options.ts';

/** BM25 parameters. */
export interface Bm25Options {
  /**
   * Term-frequency saturation: how quickly repeated occurrences of a term stop adding score.
   * @default 1.2
   */
  readonly k1?: number;
  /**
   * Length normalization: 0 ignores document length, 1 fully normalizes by it.
   * @default 0.75
   */
  readonly b?: number;
}

/** A document's score for a query. */
export interface Bm25Match {
  readonly id: string;
  readonly score: number;
}

/** Defaults of {@link Bm25Options} and of the term proximity of {@link scoreDocuments}. */
export const BM25_DEFAULTS = {
  k1: 1.2,
  b: 0.75,
  proximity: 0,
} as const;

/** The parameters with their defaults; throws RangeError unless `k1 ≥ 0` and `0 ≤ b ≤ 1`. */
export function checkBm25Options(options: Bm25Options): { k1: number; b: number } {
  return {
    k1: nonNegativeNumber('k1', options.k1, BM25_DEFAULTS.k1),
    b: fraction('b', options.b, BM25_DEFAULTS.b),
  };
}

/** One query term's share of a document's score. */
function termScore(
  { k1, b }: { k1: number; b: number },
  idf: number,
  tf: number,
  length: number,
  averageLength: number,
): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / averageLength));
}

/** Non-negative Lucene idf of a term found in `df` of `size` documents. */
/** BM25's inverse document frequency of a term found in `df` of `size` documents. */
export function inverseDocumentFrequency(size: number, df: number): number {
  return Math.log(1 + (size - df + 0.5) / (df + 0.5));
}

/** Best score first, ties broken by id so that results are deterministic. */
function bestFirst(x: Bm25Match, y: Bm25Match): number {
  return y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}

/**
 * Inverted index with BM25 scoring:
 * `score(d, q) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))`
 * with the non-negative Lucene idf `ln(1 + (N − df + 0.5)/(df + 0.5))`. Repeated query terms count once.
 */
export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  readonly #postings = new Map<string, Map<string, number>>();
  readonly #lengths = new Map<string, number>();
  readonly #terms = new Map<string, readonly string[]>();
  #totalLength = 0;

  constructor(options: Bm25Options = {}) {
    const { k1, b } = checkBm25Options(options);
    this.k1 = k1;
    this.b = b;
  }

  /** Number of documents. */
  get size(): number {
    return this.#lengths.size;
  }

  /** Mean document length in tokens (0 when empty). */
  get averageLength(): number {
    return this.size === 0 ? 0 : this.#totalLength / this.size;
  }

  has(id: string): boolean {
    return this.#lengths.has(id);
  }

  /** Number of documents containing `term`. */
  documentFrequency(term: string): number {
    return this.#postings.get(term)?.size ?? 0;
  }

  /** Inverse document frequency of `term` in the current collection. */
  idf(term: string): number {
    return inverseDocumentFrequency(this.size, this.documentFrequency(term));
  }

  /** Adds a document, replacing any document with the same id. */
  add(id: string, tokens: readonly string[]): void {
    this.remove(id);
    const frequencies = new Map<string, number>();
    for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
    for (const [term, tf] of frequencies) {
      let posting = this.#postings.get(term);
      if (posting === undefined) this.#postings.set(term, (posting = new Map<string, number>()));
      posting.set(id, tf);
    }
    this.#lengths.set(id, tokens.length);
    this.#terms.set(id, [...frequencies.keys()]);
    this.#totalLength += tokens.length;
  }

  /** Removes a document; returns whether it existed. */
  remove(id: string): boolean {
    const length = this.#lengths.get(id);
    if (length === undefined) return false;
    for (const term of this.#terms.get(id) ?? []) {
      const posting = this.#postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.#postings.delete(term);
    }
    this.#lengths.delete(id);
    this.#terms.delete(id);
    this.#totalLength -= length;
    return true;
  }

  /**
   * Scores every document that contains at least one query term; best first, ties broken by id so
   * that results are deterministic. Documents without any query term are not returned (their score is 0).
   */
  search(queryTokens: readonly string[], limit = Number.POSITIVE_INFINITY): Bm25Match[] {
    const scores = new Map<string, number>();
    const averageLength = this.averageLength || 1;
    for (const term of new Set(queryTokens)) {
      const posting = this.#postings.get(term);
      if (posting === undefined) continue;
      const idf = this.idf(term);
      for (const [id, tf] of posting) {
        const length = this.#lengths.get(id) ?? 0;
        scores.set(id, (scores.get(id) ?? 0) + termScore(this, idf, tf, length, averageLength));
      }
    }
    const matches = [...scores].map(([id, score]) => ({ id, score }));
    matches.sort(bestFirst);
    return Number.isFinite(limit) ? matches.slice(0, limit) : matches;
  }

  /** Score of one document for the query (0 if it contains no query term or does not exist). */
  score(id: string, queryTokens: readonly string[]): number {
    const length = this.#lengths.get(id);
    if (length === undefined) return 0;
    const averageLength = this.averageLength || 1;
    let score = 0;
    for (const term of new Set(queryTokens)) {
      const tf = this.#postings.get(term)?.get(id);
      if (tf === undefined) continue;
      score += termScore(this, this.idf(term), tf, length, averageLength);
    }
    return score;
  }
}

/** Options of {@link scoreDocuments}: the BM25 parameters and the weight of term proximity. */
export interface ScoreDocumentsOptions extends Bm25Options {
  /**
   * Weight of the term-proximity score added to BM25 (Büttcher, Clarke & Lushman, "Term proximity scoring
   * for ad-hoc retrieval on very large text collections", SIGIR 2006): every two neighbouring occurrences
   * of different query terms, `d` tokens apart, add `idf(other term) / d²` to each term's accumulator,
   * which is then scored like a term frequency, `min(1, idf) · acc·(k1+1) / (acc + k1·(1 − b + b·|d|/avgdl))`.
   * A passage where the query's words stand together (the answer to a question usually repeats them in
   * one sentence) outranks one that only mentions them far apart. 0 gives plain BM25.
   * @default 0
   */
  readonly proximity?: number;
}

/**
 * BM25 scores of a one-off collection for one query, the same as adding `documents` to a {@link Bm25Index}
 * under the ids `"0"`, `"1"`, … and searching it, without building the index: only the query's terms are
 * counted. The passage ranker scores a new collection on every request, where building postings for every
 * term of every passage cost more than the scoring. With `proximity` > 0, a term-proximity score is added
 * (see {@link ScoreDocumentsOptions.proximity}).
 */
export function scoreDocuments(
  documents: readonly (readonly string[])[],
  queryTokens: readonly string[],
  options: ScoreDocumentsOptions = {},
): Bm25Match[] {
  const parameters = checkBm25Options(options);
  const proximity = nonNegativeNumber('proximity', options.proximity, BM25_DEFAULTS.proximity);
  const terms = [...new Set(queryTokens)];
  const column = new Map(terms.map((term, i) => [term, i]));
  // Query-term frequencies of each document that holds one, each term's document frequency, and (for
  // proximity) the positions and terms of the query-term occurrences, as flat [position, term, …] lists.
  const frequencies = new Map<number, number[]>();
  const occurrences = new Map<number, number[]>();
  const documentFrequency = new Array<number>(terms.length).fill(0);
  let totalLength = 0;
  for (const [index, tokens] of documents.entries()) {
    totalLength += tokens.length;
    let counts: number[] | undefined;
    let hits: number[] | undefined;
    for (let position = 0; position < tokens.length; position++) {
      const i = column.get(tokens[position]!);
      if (i === undefined) continue;
      counts ??= new Array<number>(terms.length).fill(0);
      if (counts[i] === 0) documentFrequency[i]!++;
      counts[i]!++;
      if (proximity > 0) (hits ??= []).push(position, i);
    }
    if (counts) frequencies.set(index, counts);
    if (hits) occurrences.set(index, hits);
  }
  const averageLength = documents.length === 0 ? 1 : totalLength / documents.length || 1;
  const idf = documentFrequency.map((df) => inverseDocumentFrequency(documents.length, df));
  const matches: Bm25Match[] = [];
  for (const [index, counts] of frequencies) {
    const length = documents[index]!.length;
    let score = 0;
    for (const [i, tf] of counts.entries()) {
      if (tf > 0) score += termScore(parameters, idf[i]!, tf, length, averageLength);
    }
    const hits = occurrences.get(index);
    if (hits !== undefined) score += proximity * proximityScore(parameters, hits, idf, length, averageLength);
    matches.push({ id: String(index), score });
  }
  return matches.sort(bestFirst);
}

/**
 * Büttcher's proximity score of one document from its query-term occurrences (`hits`: position, term,
 * position, term, … in text order): neighbouring occurrences of different terms `d` apart add the other
 * term's idf / d² to each term's accumulator; accumulators are saturated like term frequencies.
 */
function proximityScore(
  parameters: { k1: number; b: number },
  hits: readonly number[],
  idf: readonly number[],
  length: number,
  averageLength: number,
): number {
  if (hits.length < 4) return 0; // fewer than two occurrences
  const accumulators = new Array<number>(idf.length).fill(0);
  for (let h = 2; h < hits.length; h += 2) {
    const previous = hits[h - 1]!;
    const term = hits[h + 1]!;
    if (previous === term) continue;
    const distance = hits[h]! - hits[h - 2]!;
    accumulators[previous]! += idf[term]! / (distance * distance);
    accumulators[term]! += idf[previous]! / (distance * distance);
  }
  let score = 0;
  for (const [i, accumulator] of accumulators.entries()) {
    if (accumulator > 0)
      score += termScore(parameters, Math.min(1, idf[i]!), accumulator, length, averageLength);
  }
  return score;
}
