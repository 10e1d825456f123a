/**
 * Okapi BM25 over an in-memory inverted index. Documents are bags of tokens identified by a string id;
 * they can be added, replaced and removed at any time. Used by the local search index (sections of
 * files) and by the passage ranker (passages of fetched pages).
 */
import { fraction, nonNegativeNumber } from '../../options.ts';

/** BM25 parameters. */
export interface Bm25Options {
  /**
   * Term-frequency saturation: how quickly repeated occurrences of a term stop adding score.
   * @default 1.2
   */
  readonly k1?: number;
  /**
   * Length normalisation: 0 ignores document length, 1 fully normalises by it.
   * @default 0.75
   */
  readonly b?: number;
}

/** A document's score for a query. */
export interface Bm25Match {
  readonly id: string;
  readonly score: number;
}

/** Throws unless `k1 ≥ 0` and `0 ≤ b ≤ 1`. */
function checkOptions(options: Bm25Options): { k1: number; b: number } {
  return { k1: nonNegativeNumber('k1', options.k1, 1.2), b: fraction('b', options.b, 0.75) };
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
    const { k1, b } = checkOptions(options);
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
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
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
        const norm = tf + this.k1 * (1 - this.b + (this.b * length) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (this.k1 + 1)) / norm);
      }
    }
    const matches = [...scores].map(([id, score]) => ({ id, score }));
    matches.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
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
      const norm = tf + this.k1 * (1 - this.b + (this.b * length) / averageLength);
      score += (this.idf(term) * tf * (this.k1 + 1)) / norm;
    }
    return score;
  }
}
