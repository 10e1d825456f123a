import { describe, expect, it } from 'vitest';
import { MockEmbeddingModelV4 } from 'ai/test';
import { cosineSimilarity, createEmbeddingReranker } from '../../src/pipeline/rank/embeddings.ts';
import type { ExtractedContent, Passage, PassageRanker } from '../../src/pipeline/types.ts';

/** Embeds texts as [mentions "volcano", mentions "river", 1]. */
const topicModel = () =>
  new MockEmbeddingModelV4({
    doEmbed: async ({ values }) => ({
      embeddings: values.map((v) => [/volcano/i.test(v) ? 1 : 0, /river/i.test(v) ? 1 : 0, 0.1]),
      warnings: [],
    }),
  });

const candidates: Passage[] = [
  { url: 'https://a.test', title: 'A', text: 'River water flows to the sea.', score: 9 },
  { url: 'https://b.test', title: 'B', text: 'A volcano erupts lava.', score: 5 },
  { url: 'https://c.test', title: 'C', text: 'Volcano facts and lava.', score: 4 },
];

function fakeInner(): PassageRanker & { budgets: number[] } {
  const budgets: number[] = [];
  return {
    budgets,
    async rank(_query, _docs, budget) {
      budgets.push(budget.maxTokens);
      return candidates;
    },
  };
}

const docs: ExtractedContent[] = [];

describe('createEmbeddingReranker', () => {
  it('asks the inner ranker for a larger budget and re-ranks by blended similarity', async () => {
    const inner = fakeInner();
    const model = topicModel();
    const ranker = createEmbeddingReranker({ inner, model, weight: 0.7, candidateFactor: 4 });
    const ranked = await ranker.rank('volcano eruptions', docs, { maxTokens: 100 });
    expect(inner.budgets).toEqual([400]);
    expect(ranked.map((p) => p.url)).toEqual(['https://b.test', 'https://c.test', 'https://a.test']);
    expect(ranked[0]?.score).toBeGreaterThan(ranked[2]?.score ?? 1);
    expect(model.doEmbedCalls[0]?.values[0]).toBe('volcano eruptions');
  });

  it('packs the re-ranked passages into the budget', async () => {
    const ranked = await createEmbeddingReranker({ inner: fakeInner(), model: topicModel(), weight: 1 }).rank(
      'volcano',
      docs,
      { maxTokens: 7 },
    );
    expect(ranked.map((p) => p.url)).toEqual(['https://b.test']);
  });

  it('keeps the inner ranking when embedding fails', async () => {
    const model = new MockEmbeddingModelV4({
      doEmbed: async () => {
        throw new Error('embedding service down');
      },
    });
    const errors: unknown[] = [];
    const ranked = await createEmbeddingReranker({
      inner: fakeInner(),
      model,
      onFallback: (e) => errors.push(e),
    }).rank('volcano', docs, { maxTokens: 100 });
    expect(ranked.map((p) => p.url)).toEqual(['https://a.test', 'https://b.test', 'https://c.test']);
    expect(errors).toHaveLength(1);
  });

  it('rejects bad options', () => {
    const model = topicModel();
    expect(() => createEmbeddingReranker({ inner: fakeInner(), model, weight: 2 })).toThrow(RangeError);
    expect(() => createEmbeddingReranker({ inner: {} as PassageRanker, model })).toThrow(TypeError);
  });
});

describe('cosineSimilarity', () => {
  it('is 1 for parallel vectors and 0 for orthogonal or mismatched ones', () => {
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1], [1, 2])).toBe(0);
  });
});
