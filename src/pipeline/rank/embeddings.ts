/**
 * Optional embedding re-ranking: a {@link PassageRanker} wrapper that asks an inner ranker (BM25) for a
 * larger candidate set, re-scores the candidates by the cosine similarity of their embeddings to the
 * query's (AI SDK `embedMany`, any embedding model) blended with the inner score, and packs the best into
 * the token budget. If the embedding call fails or times out, the inner ranking is used.
 */
import { embedMany, type EmbeddingModel } from 'ai';
import { fraction, positiveInteger, positiveNumber } from '../../options.ts';
import type { ExtractedContent, Passage, PassageRanker, TokenBudget } from '../types.ts';
import { passageTokens } from './bm25-ranker.ts';

/** Options of {@link createEmbeddingReranker}. */
export interface EmbeddingRerankerOptions {
  /** The ranker whose candidates are re-scored, e.g. `createBm25Ranker()`. */
  readonly inner: PassageRanker;
  /** Any AI SDK embedding model, e.g. from `resolveEmbeddingModel('openai:text-embedding-3-small')`. */
  readonly model: EmbeddingModel;
  /**
   * Weight of the embedding similarity in the blended score (the inner score has `1 - weight`); both are
   * scaled to 0–1 over the candidates first.
   * @default 0.5
   */
  readonly weight?: number;
  /**
   * The inner ranker is asked for `candidateFactor ×` the budget.
   * @default 3
   */
  readonly candidateFactor?: number;
  /**
   * Passages taken from one URL before other URLs get a turn when packing.
   * @default 3
   */
  readonly maxPerSource?: number;
  /**
   * Time allowed for the embedding call, in ms (the ranker interface has no signal).
   * @default 5000
   */
  readonly timeoutMs?: number;
  /** Called when embedding failed and the inner ranking was used (for logging). */
  readonly onFallback?: (error: unknown) => void;
}

/** Cosine similarity of two vectors (0 when either is all zeros or their lengths differ). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

function scaleToUnit(values: readonly number[]): number[] {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return values.map((value) => (max > min ? (value - min) / (max - min) : 1));
}

/** Best first, at most `maxPerSource` per URL before the others get a turn, within `maxTokens`. */
function pack(passages: readonly Passage[], maxTokens: number, maxPerSource: number): Passage[] {
  const selected: Passage[] = [];
  const perSource = new Map<string, number>();
  const deferred: Passage[] = [];
  let remaining = maxTokens;
  const take = (passage: Passage): void => {
    const cost = passageTokens(passage);
    if (cost > remaining) return;
    selected.push(passage);
    perSource.set(passage.url, (perSource.get(passage.url) ?? 0) + 1);
    remaining -= cost;
  };
  for (const passage of passages) {
    if ((perSource.get(passage.url) ?? 0) >= maxPerSource) deferred.push(passage);
    else take(passage);
  }
  for (const passage of deferred) take(passage);
  return selected;
}

/** Defaults of {@link EmbeddingRerankerOptions}. */
export const EMBEDDING_RERANKER_DEFAULTS = {
  weight: 0.5,
  candidateFactor: 3,
  maxPerSource: 3,
  timeoutMs: 5000,
} as const;

/**
 * Creates the embedding re-ranker.
 *
 * `rank(query, docs, budget)` gets candidates from `inner` with `candidateFactor × budget.maxTokens`,
 * embeds the query and the candidates (heading and text) in one `embedMany` call, scores each candidate
 * `(1 - weight) × inner + weight × cosine` (both scaled to 0–1), and packs the best into the budget. The
 * returned passages carry the blended score.
 *
 * @throws TypeError / RangeError on invalid options.
 */
export function createEmbeddingReranker(options: EmbeddingRerankerOptions): PassageRanker {
  if (options === null || typeof options !== 'object') throw new TypeError('options are required');
  if (typeof options.inner?.rank !== 'function') throw new TypeError('inner must be a PassageRanker');
  if (options.model === undefined || options.model === null) throw new TypeError('model is required');
  const weight = fraction('weight', options.weight, EMBEDDING_RERANKER_DEFAULTS.weight);
  const candidateFactor = positiveNumber(
    'candidateFactor',
    options.candidateFactor,
    EMBEDDING_RERANKER_DEFAULTS.candidateFactor,
  );
  if (candidateFactor < 1) throw new RangeError(`candidateFactor must be at least 1, got ${candidateFactor}`);
  const maxPerSource = positiveInteger(
    'maxPerSource',
    options.maxPerSource,
    EMBEDDING_RERANKER_DEFAULTS.maxPerSource,
  );
  const timeoutMs = positiveNumber('timeoutMs', options.timeoutMs, EMBEDDING_RERANKER_DEFAULTS.timeoutMs);

  return {
    async rank(query: string, docs: readonly ExtractedContent[], budget: TokenBudget): Promise<Passage[]> {
      const maxTokens = budget.maxTokens;
      if (typeof maxTokens !== 'number' || !(maxTokens > 0))
        throw new RangeError('maxTokens must be a positive number');
      const candidates = await options.inner.rank(query, docs, {
        maxTokens: Math.ceil(maxTokens * candidateFactor),
      });
      if (candidates.length <= 1 || weight === 0) return pack(candidates, maxTokens, maxPerSource);
      let embeddings: number[][];
      try {
        const result = await embedMany({
          model: options.model,
          values: [query, ...candidates.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text))],
          maxRetries: 0,
          abortSignal: AbortSignal.timeout(timeoutMs),
        });
        embeddings = result.embeddings;
        if (embeddings.length !== candidates.length + 1) throw new Error('embedding count mismatch');
      } catch (error) {
        options.onFallback?.(error);
        return pack(candidates, maxTokens, maxPerSource);
      }
      const [queryVector = [], ...vectors] = embeddings;
      const similarity = scaleToUnit(vectors.map((vector) => cosineSimilarity(queryVector, vector)));
      const inner = scaleToUnit(candidates.map((passage) => passage.score));
      const rescored = candidates
        .map((passage, index) => ({
          passage,
          index,
          score: (1 - weight) * (inner[index] ?? 0) + weight * (similarity[index] ?? 0),
        }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .map(({ passage, score }) => ({ ...passage, score }));
      return pack(rescored, maxTokens, maxPerSource);
    },
  };
}
