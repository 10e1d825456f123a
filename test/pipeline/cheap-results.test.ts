/**
 * Reading to the end of what is cheap: results after the first `maxResults` whose pages the fetcher says
 * cost nothing new (cached, being fetched, a fast host with room) are read with the first ones.
 */
import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { runPipeline, type PipelineSettings } from '../../src/pipeline/run.ts';
import { pipelineRequest } from '../support/pipeline.ts';
import type {
  ContentExtractor,
  ExtractedContent,
  PageFetcher,
  PassageRanker,
  PipelineRequest,
  SearchHit,
} from '../../src/pipeline/types.ts';

/** 20 pages about the Bell Rock lighthouse; only page `answerRank` says who built it. */
function pages(answerRank: number): Map<string, string> {
  return new Map(
    Array.from({ length: 20 }, (_, i) => [
      `https://lights.test/${i + 1}`,
      i + 1 === answerRank
        ? 'The Bell Rock lighthouse was built by Robert Stevenson between 1807 and 1810 off the coast of Angus.'
        : `The Bell Rock lighthouse, built long ago, is shown on postcard number ${i + 1}.`,
    ]),
  );
}

async function run(
  texts: Map<string, string>,
  cheap: (url: string) => boolean,
  overrides: Partial<PipelineRequest> = {},
  settings: Partial<PipelineSettings> = {},
) {
  const fetched: string[] = [];
  const ranked: string[][] = [];
  // Snippets that cover the question: nothing is read ahead, only the cheap results are added.
  const hits: SearchHit[] = [...texts.keys()].map((url, i) => ({
    url,
    title: `Postcard ${i + 1}`,
    snippet: 'The Bell Rock lighthouse was built',
    provider: 'test',
  }));
  const fetcher: PageFetcher = {
    fetch: async (url) => {
      fetched.push(url.href);
      return {
        url: url.href,
        requestedUrl: url.href,
        status: 200,
        contentType: 'text/plain',
        body: new TextEncoder().encode(texts.get(url.href) ?? ''),
        headers: {},
      };
    },
    isCheap: (url) => cheap(url.href),
  };
  const extractor: ContentExtractor = {
    extract: async (page) => {
      const text = new TextDecoder().decode(page.body);
      return { url: page.url, title: '', text, markdown: text };
    },
  };
  const bm25 = createBm25Ranker();
  const ranker: PassageRanker = {
    rank: (query: string, docs: readonly ExtractedContent[], budget) => {
      ranked.push(docs.map((doc) => doc.url));
      return bm25.rank(query, docs, budget);
    },
  };
  const result = await runPipeline(
    pipelineRequest(overrides),
    {
      search: { id: 'test', search: async (query) => hits.slice(0, query.limit) },
      fetcher,
      extractor,
      ranker,
      answerer: createExtractiveAnswerer(),
    },
    { maxResults: 5, maxPassageTokens: 2000, pageTimeoutMs: 2000, ...settings },
    { signal: new AbortController().signal, requestId: 'cheap', deadline: Date.now() + 30_000 },
  );
  return { result, fetched, ranked };
}

const url = (rank: number) => `https://lights.test/${rank}`;

describe('reading the cheap results with the first ones', () => {
  it('reads results 6 to 10 with the first five when they are cheap, in search order', async () => {
    const { result, ranked } = await run(pages(8), () => true);
    // The first pages mention every word of the question: no deeper reading, one round of 10.
    expect(ranked).toEqual([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(url)]);
    expect(result.answer).toContain('Robert Stevenson');
    expect(result.sources).toContain(url(8));
  });

  it('reads only the first five when the others would cost a new request', async () => {
    const { result, ranked, fetched } = await run(pages(8), () => false);
    expect(ranked).toEqual([[1, 2, 3, 4, 5].map(url)]);
    expect(fetched).toHaveLength(5);
    expect(result.answer).not.toContain('Robert Stevenson');
  });

  it('takes only the cheap ones among results 6 to 10', async () => {
    const cheap = new Set([url(7), url(9), url(12)]);
    const { ranked } = await run(pages(8), (u) => cheap.has(u));
    expect(ranked).toEqual([[1, 2, 3, 4, 5, 7, 9].map(url)]);
  });

  it('reads no more with max_sources, with depth "fast", or with cheapResults ≤ maxResults', async () => {
    expect((await run(pages(8), () => true, { maxSources: 5 })).ranked).toEqual([[1, 2, 3, 4, 5].map(url)]);
    expect((await run(pages(8), () => true, { depth: 'fast' })).fetched).toEqual([]);
    expect((await run(pages(8), () => true, {}, { cheapResults: 5 })).ranked).toEqual([
      [1, 2, 3, 4, 5].map(url),
    ]);
  });
});
