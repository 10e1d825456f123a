import { describe, expect, it } from 'vitest';
import { createSearchEngine } from '../../src/engine/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createBm25Ranker, pageMentions, queryCoverage } from '../../src/pipeline/rank/index.ts';
import { runPipeline, type PipelineSettings } from '../../src/pipeline/run.ts';
import type {
  ExtractedContent,
  PassageRanker,
  PipelineRequest,
  SearchHit,
} from '../../src/pipeline/types.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';
import { pipelineRequest } from '../support/pipeline.ts';

/** 40 results about lighthouses; the one that says who built the Bell Rock lighthouse is at `answerRank`. */
function lighthouseWeb(answerRank: number): SearchHit[] {
  return Array.from({ length: 40 }, (_, i) => {
    const url = `https://lights.test/${i + 1}`;
    const content =
      i + 1 === answerRank
        ? 'The Bell Rock lighthouse was built by Robert Stevenson between 1807 and 1810 off the coast of Angus.'
        : `Lighthouse number ${i + 1} stands on a rocky coast and its lamp is kept by a keeper.`;
    return { url, title: `Lighthouse ${i + 1}`, snippet: content.slice(0, 40), content, provider: 'test' };
  });
}

/** Runs the pipeline and reports what the search was asked for and which pages were ranked. */
async function run(
  hits: SearchHit[],
  overrides: Partial<PipelineRequest> = {},
  settings: Partial<PipelineSettings> = {},
  deadlineMs = 30_000,
) {
  const rankedPages: number[] = [];
  const search = fakeSearchProvider(hits);
  const bm25 = createBm25Ranker();
  const ranker: PassageRanker = {
    rank: (query: string, docs: readonly ExtractedContent[], budget) => {
      rankedPages.push(docs.length);
      return bm25.rank(query, docs, budget);
    },
  };
  const result = await runPipeline(
    pipelineRequest(overrides),
    { search, ranker, answerer: createExtractiveAnswerer() },
    { maxResults: 5, maxPassageTokens: 2000, pageTimeoutMs: 1000, ...settings },
    { signal: new AbortController().signal, requestId: 'expand', deadline: Date.now() + deadlineMs },
  );
  return { result, limits: search.queries.map((query) => query.limit), rankedPages };
}

describe('reading more results when the first pages do not cover the question', () => {
  it('stays with the first 5 pages when they answer the question', async () => {
    const { result, limits, rankedPages } = await run(lighthouseWeb(2));
    expect(limits).toEqual([40]);
    expect(rankedPages).toEqual([5]);
    expect(result.sources).toEqual(['https://lights.test/2']);
    expect(result.answer).toContain('Robert Stevenson');
  });

  it('reads up to 40 results and ranks again when the answer is further down', async () => {
    const { result, rankedPages } = await run(lighthouseWeb(23));
    expect(rankedPages).toEqual([5, 40]);
    expect(result.sources[0]).toBe('https://lights.test/23');
    expect(result.answer).toContain('Robert Stevenson');
    expect(result.passages[0]?.url).toBe('https://lights.test/23');
  });

  it('honours expandToResults and minQueryCoverage', async () => {
    const upTo10 = await run(lighthouseWeb(23), {}, { expandToResults: 10 });
    expect(upTo10.rankedPages).toEqual([5, 10]);
    expect(upTo10.result.sources).not.toContain('https://lights.test/23');
    const upTo30 = await run(lighthouseWeb(23), {}, { expandToResults: 30 });
    expect(upTo30.limits).toEqual([30]);
    expect(upTo30.rankedPages).toEqual([5, 30]);
    expect((await run(lighthouseWeb(23), {}, { expandToResults: 5 })).rankedPages).toEqual([5]);
    expect((await run(lighthouseWeb(23), {}, { minQueryCoverage: 0 })).rankedPages).toEqual([5]);
  });

  it('never reads past max_sources, and fast reads only the snippets it asked for', async () => {
    const capped = await run(lighthouseWeb(23), { maxSources: 3 });
    expect(capped.limits).toEqual([3]);
    expect(capped.rankedPages).toEqual([3]);
    const fast = await run(lighthouseWeb(23), { depth: 'fast' });
    expect(fast.limits).toEqual([5]);
    expect(fast.rankedPages).toEqual([5]);
  });

  it('deep reads every result at once', async () => {
    const { rankedPages, result } = await run(lighthouseWeb(23), { depth: 'deep' });
    expect(rankedPages).toEqual([40]);
    expect(result.sources[0]).toBe('https://lights.test/23');
  });

  it('does not read more when the request deadline is near', async () => {
    // pageTimeoutMs 1000: one page round for reading and one for answering must still fit.
    const { rankedPages } = await run(lighthouseWeb(23), {}, {}, 1500);
    expect(rankedPages).toEqual([5]);
  });
});

describe('queryCoverage', () => {
  const passage = { title: 'Bell Rock Lighthouse', text: 'Robert Stevenson built it in 1810.' };

  it('is the share of distinct query words (stemmed, no stop words) found in title, heading and text', () => {
    expect(queryCoverage('Who built the Bell Rock lighthouse?', passage)).toBe(1);
    expect(queryCoverage('Who painted the Bell Rock lighthouse?', passage)).toBe(0.75);
    expect(queryCoverage('When was it painted?', { ...passage, heading: 'Painting' })).toBe(1);
    expect(queryCoverage('lighthouses lighthouse', passage)).toBe(1);
  });

  it('is 1 for a query without words and 0 without a passage', () => {
    expect(queryCoverage('?!', passage)).toBe(1);
    expect(queryCoverage('Who built it?', undefined)).toBe(0);
  });
});

describe('pageMentions', () => {
  const page = (body: string, contentType = 'text/html') => ({
    contentType,
    body: new TextEncoder().encode(body),
  });
  const mentions = pageMentions('Who built the Bell Rock lighthouse?');

  it('is the share of the query words found anywhere in the raw page, markup and case aside', () => {
    expect(mentions(page('<h1>The BELL ROCK Lighthouse</h1><p>Built in 1810.</p>'))).toBe(1);
    expect(mentions(page('<p>A lighthouse on a rocky coast.</p>'))).toBe(0.5);
    expect(mentions(page('<p>Opening hours of the museum shop.</p>'))).toBe(0);
  });

  it('is 1 for pages that are not text, and for a query without words', () => {
    expect(mentions(page('%PDF-1.7 binary', 'application/pdf'))).toBe(1);
    expect(pageMentions('?!')(page('anything'))).toBe(1);
  });
});

describe('engine defaults', () => {
  it('asks the search for 40 results and reads past the first 5 through createSearchEngine', async () => {
    const search = fakeSearchProvider(lighthouseWeb(23));
    const engine = createSearchEngine({ search, fetcher: false });
    try {
      const { key } = await engine.createKey();
      const response = await engine.search(
        { prompt: 'Who built the Bell Rock lighthouse?' },
        { apiKey: key },
      );
      expect(search.queries.map((query) => query.limit)).toEqual([40]);
      expect(response.sources[0]).toBe('https://lights.test/23');
    } finally {
      await engine.close();
    }
  });

  it('validates expandToResults and minQueryCoverage', () => {
    expect(() => createSearchEngine({ expandToResults: 0 })).toThrow(/expandToResults/);
    expect(() => createSearchEngine({ minQueryCoverage: 1.5 })).toThrow(
      /minQueryCoverage must be between 0 and 1/,
    );
    expect(() => createSearchEngine({ minQueryCoverage: Number.NaN })).toThrow(RangeError);
  });
});
