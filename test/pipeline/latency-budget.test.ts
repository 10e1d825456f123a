/**
 * The latency budget of the pipeline (src/pipeline/read.ts): stragglers get a grace period once most
 * pages arrived, `max_latency_ms` stops the wait for the web, pages that arrived are still read, and
 * pages read ahead are only used when the first pages do not cover the question.
 *
 * The fetcher is a fake whose pages answer when the test says so, and the clock is vitest's fake one:
 * every assertion is about order and state, never about measured time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createPageReader } from '../../src/pipeline/read.ts';
import {
  DEFAULT_MAX_LATENCY_MS,
  DEFAULT_STRAGGLER_GRACE_MS,
  runPipeline,
  type PipelineCall,
  type PipelineResult,
  type PipelineSettings,
} from '../../src/pipeline/run.ts';
import type {
  ContentExtractor,
  ExtractedContent,
  FetchedPage,
  PageFetcher,
  PassageRanker,
  PipelineRequest,
  SearchHit,
} from '../../src/pipeline/types.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';
import { pipelineRequest } from '../support/pipeline.ts';

const ANSWER_PAGE = 'The Bell Rock lighthouse was built by Robert Stevenson between 1807 and 1810.';

/** Page `n` of the fake web: the answer on `answerAt`, a lighthouse page without the answer elsewhere. */
function pageText(n: number, answerAt: number): string {
  return n === answerAt
    ? ANSWER_PAGE
    : `Lighthouse number ${n} stands on a rocky coast; its lamp is kept by a keeper.`;
}

function hitsOf(count: number, snippet: (n: number) => string): SearchHit[] {
  return Array.from({ length: count }, (_, i) => ({
    url: `https://site${i + 1}.test/page`,
    title: `Page ${i + 1}`,
    snippet: snippet(i + 1),
  }));
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A fake web: each fetch waits until the test answers its page (or the caller gives up). */
function fakeWeb(answerAt: number) {
  const waiting = new Map<number, () => void>();
  const fetched: number[] = [];
  const abandoned: number[] = [];
  const extracted: number[] = [];
  const extractionGates = new Map<number, Deferred<void>>();
  const number = (url: string) => Number(/site(\d+)/.exec(url)?.[1]);
  const fetcher: PageFetcher = {
    fetch(url, call) {
      const n = number(url.href);
      fetched.push(n);
      return new Promise<FetchedPage>((resolve, reject) => {
        waiting.set(n, () => {
          call.signal.removeEventListener('abort', onAbort);
          resolve({
            url: url.href,
            requestedUrl: url.href,
            status: 200,
            contentType: 'text/plain',
            body: new TextEncoder().encode(pageText(n, answerAt)),
            headers: {},
          });
        });
        const onAbort = () => {
          abandoned.push(n);
          reject(new Error('fetch stopped', { cause: call.signal.reason }));
        };
        call.signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
  const extractor: ContentExtractor = {
    async extract(page): Promise<ExtractedContent> {
      const n = number(page.url);
      extracted.push(n);
      await extractionGates.get(n)?.promise;
      const text = new TextDecoder().decode(page.body);
      return { url: page.url, title: `Page ${n}`, text, markdown: text };
    },
  };
  return {
    fetcher,
    extractor,
    fetched,
    abandoned,
    extracted,
    /** Answers these pages now. */
    answer(...pages: number[]) {
      for (const n of pages) {
        const respond = waiting.get(n);
        if (!respond) throw new Error(`page ${n} was not requested`);
        waiting.delete(n);
        respond();
      }
    },
    /** Extraction of page `n` waits until the returned function is called. */
    holdExtraction(n: number): () => void {
      const gate = deferred<void>();
      extractionGates.set(n, gate);
      return () => gate.resolve();
    },
  };
}

/** Starts a pipeline run over `hits` and the fake web; `state()` tells whether it has finished. */
function start(
  hits: SearchHit[],
  web: ReturnType<typeof fakeWeb>,
  options: {
    request?: Partial<PipelineRequest>;
    settings?: Partial<PipelineSettings>;
    call?: Partial<PipelineCall>;
  } = {},
) {
  const rankedDocs: string[][] = [];
  const bm25 = createBm25Ranker();
  const ranker: PassageRanker = {
    rank(query, docs, budget) {
      rankedDocs.push(docs.map((doc) => doc.text));
      return bm25.rank(query, docs, budget);
    },
  };
  let result: PipelineResult | undefined;
  let error: unknown;
  const controller = new AbortController();
  const running = runPipeline(
    pipelineRequest(options.request),
    {
      search: fakeSearchProvider(hits),
      fetcher: web.fetcher,
      extractor: web.extractor,
      ranker,
      answerer: createExtractiveAnswerer(),
    },
    { maxResults: 5, maxPassageTokens: 2000, pageTimeoutMs: 10_000, ...options.settings },
    {
      signal: controller.signal,
      requestId: 'latency',
      deadline: Date.now() + 120_000,
      ...options.call,
    },
  ).then(
    (value) => (result = value),
    (thrown: unknown) => (error = thrown),
  );
  return {
    running,
    controller,
    rankedDocs,
    get done() {
      return result !== undefined || error !== undefined;
    },
    get result() {
      return result;
    },
    get error() {
      return error;
    },
  };
}

/** Lets every promise callback and due timer run (the fake clock stays where it is). */
const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

// Snippets that cover the question, so that nothing is read ahead unless a test wants it.
const coveringSnippets = (n: number) => `Bell Rock lighthouse page ${n}: who built it.`;

describe('stragglers', () => {
  it('answers a grace period after 4 of 5 pages arrived instead of waiting for a hung page', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(40, coveringSnippets), web);
    await flush();
    expect(web.fetched).toEqual([1, 2, 3, 4, 5]);
    web.answer(1, 2, 3, 4); // page 5 never answers
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS - 1);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.error).toBeUndefined();
    expect(run.result?.answer).toContain('Robert Stevenson');
    // The hung page was answered from its snippet, and its fetch was stopped when the answer started.
    expect(run.rankedDocs[0]).toContain(coveringSnippets(5));
    expect(web.abandoned).toEqual([5]);
  });

  it('does not cut anything before 4 of 5 pages arrived: two hung pages wait for max latency', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    web.answer(1, 2, 3);
    await vi.advanceTimersByTimeAsync(DEFAULT_MAX_LATENCY_MS - 1);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(web.abandoned.sort()).toEqual([4, 5]);
  });

  it('waits for a slow first result until max latency: it is not a straggler', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    web.answer(2, 3, 4, 5); // the first result is slow
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS + 500);
    expect(run.done).toBe(false);
    web.answer(1);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(run.rankedDocs[0]).not.toContain(coveringSnippets(1));
    expect(web.abandoned).toEqual([]);
  });

  it('answers at max latency when the first result never answers', async () => {
    const web = fakeWeb(2);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    web.answer(2, 3, 4, 5);
    await vi.advanceTimersByTimeAsync(DEFAULT_MAX_LATENCY_MS - 1);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(web.abandoned).toEqual([1]);
  });

  it('uses a straggler that arrives within the grace period', async () => {
    const web = fakeWeb(5);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    web.answer(1, 2, 3, 4);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS - 1);
    web.answer(5);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(web.abandoned).toEqual([]);
  });

  it('still reads a page that arrived when the grace period ends during its extraction', async () => {
    const web = fakeWeb(4);
    const release = web.holdExtraction(4);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    web.answer(1, 2, 3, 4);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS + 1_000);
    expect(run.done).toBe(false);
    release();
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(web.abandoned).toEqual([5]);
  });

  it('takes the grace period from the settings', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web, { settings: { stragglerGraceMs: 50 } });
    await flush();
    web.answer(1, 2, 3, 4);
    await vi.advanceTimersByTimeAsync(49);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
  });
});

describe('max_latency_ms', () => {
  it("the request's max_latency_ms replaces the server default", async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web, { request: { maxLatencyMs: 700 } });
    await flush();
    web.answer(1); // 4 pages hang: no quorum, only the latency budget ends the wait
    await vi.advanceTimersByTimeAsync(699);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(web.abandoned.sort()).toEqual([2, 3, 4, 5]);
  });

  it('counts from the arrival of the request, so time spent queueing is part of the budget', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web, {
      settings: { maxLatencyMs: 1_000 },
      call: { startedAt: Date.now() - 600 },
    });
    await flush();
    web.answer(1);
    await vi.advanceTimersByTimeAsync(399);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await run.running;
    expect(run.done).toBe(true);
  });

  it('answers from the snippets when no page arrived in time', async () => {
    const web = fakeWeb(1);
    const hits = hitsOf(5, (n) => (n === 2 ? ANSWER_PAGE : `A page about coasts, number ${n}.`));
    const run = start(hits, web, { request: { maxLatencyMs: 300 } });
    await vi.advanceTimersByTimeAsync(300);
    await run.running;
    expect(run.result?.answer).toContain('Robert Stevenson');
    expect(run.result?.passages[0]?.url).toBe('https://site2.test/page');
    expect(web.extracted).toEqual([]);
  });

  it('a client that goes away stops the wait at once', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(5, coveringSnippets), web);
    await flush();
    run.controller.abort(new Error('client disconnected'));
    await flush();
    await run.running;
    expect(run.error).toBeInstanceOf(Error);
    expect(web.abandoned.sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('reading deeper', () => {
  // Snippets that name a little of the question and do not cover it: the pipeline reads the next pages ahead.
  const vagueSnippets = (n: number) => `A lighthouse on a coast, number ${n}.`;

  it('reads the next pages ahead but extracts none of them when the first pages cover the question', async () => {
    const web = fakeWeb(2);
    const run = start(hitsOf(12, vagueSnippets), web);
    await flush();
    // Read-ahead: the next pages are requested before the first ones arrived.
    expect(web.fetched).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    web.answer(6, 7, 8, 1, 2, 3, 4, 5);
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site2.test/page');
    expect(web.extracted.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(run.rankedDocs).toHaveLength(1);
    // The pages read ahead that had not arrived are stopped.
    expect(web.abandoned.sort((a, b) => a - b)).toEqual([9, 10, 11, 12]);
  });

  it('uses the pages read ahead when the first pages do not cover the question', async () => {
    const web = fakeWeb(9);
    const run = start(hitsOf(12, vagueSnippets), web);
    await flush();
    web.answer(9, 1, 2, 3, 4, 5);
    await flush();
    // The first pages do not cover: the deeper ones are waited for by the same rule (6 of the 7 have to
    // arrive before the last one gets the grace period).
    expect(run.done).toBe(false);
    web.answer(6, 7, 8, 10, 11);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await run.running;
    expect(run.rankedDocs.map((docs) => docs.length)).toEqual([5, 12]);
    expect(run.result?.passages[0]?.url).toBe('https://site9.test/page');
    expect(run.result?.answer).toContain('Robert Stevenson');
  });

  it('extracts only the deeper pages that mention enough of the question; the others keep their snippet', async () => {
    const web = fakeWeb(9);
    // "lighthouse" and "rock" (in "rocky") are on every page: 2 of the question's 4 words; page 9 has all 4.
    const run = start(hitsOf(12, vagueSnippets), web, { settings: { minDeeperPageMentions: 0.75 } });
    await flush();
    web.answer(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await run.running;
    // The first pages are always extracted; of the deeper ones, only the page with the answer.
    expect(web.extracted.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 9]);
    expect(run.rankedDocs.map((docs) => docs.length)).toEqual([5, 12]);
    expect(run.result?.passages[0]?.url).toBe('https://site9.test/page');
  });

  it('the grace of pages read ahead counts from their quorum, not from the end of the first round', async () => {
    const web = fakeWeb(9);
    const run = start(hitsOf(12, vagueSnippets), web, { settings: { minDeeperPageMentions: 0 } });
    await flush();
    web.answer(6, 7, 8, 9, 10, 11); // 6 of the 7 pages read ahead arrive at once; page 12 hangs
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS + 100);
    web.answer(1, 2, 3, 4, 5); // the first pages, which do not cover the question, come later
    await vi.advanceTimersByTimeAsync(10);
    // Page 12 had its grace while the first pages were awaited: the answer does not wait for it again.
    expect(run.done).toBe(true);
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site9.test/page');
    expect(web.abandoned).toEqual([12]);
  });

  it('a straggler of the first pages that arrives while deeper pages are read is used', async () => {
    const web = fakeWeb(5);
    const run = start(hitsOf(10, vagueSnippets), web);
    await flush();
    web.answer(1, 2, 3, 4);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await flush();
    // Pages 1–4 do not cover the question: pages 6–10 are extracted when they arrive, and page 5 is
    // still awaited with them.
    expect(run.done).toBe(false);
    expect(web.abandoned).toEqual([]);
    web.answer(6, 7, 8, 9, 5);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site5.test/page');
    expect(run.result?.answer).toContain('Robert Stevenson');
  });

  it('a first result that arrives after max latency, while deeper pages are still extracted, is used', async () => {
    const web = fakeWeb(1);
    const run = start(hitsOf(10, vagueSnippets), web, { settings: { minDeeperPageMentions: 0 } });
    await flush();
    web.answer(2, 3, 4, 5, 6, 7, 8, 9, 10); // the first result is slow
    const releasePage6 = web.holdExtraction(6);
    await vi.advanceTimersByTimeAsync(DEFAULT_MAX_LATENCY_MS);
    // At max latency pages 2–5 do not cover the question, so the pages read ahead are extracted; the
    // answer has not started, and the first result is not given up.
    expect(run.done).toBe(false);
    expect(web.abandoned).toEqual([]);
    web.answer(1);
    await flush();
    releasePage6();
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site1.test/page');
    expect(run.result?.answer).toContain('Robert Stevenson');
  });

  it('does not fetch a deeper result whose snippet holds almost none of the question, unless told to', async () => {
    // Results 6–8 are about something else by their snippets; result 9 has no snippet to judge by.
    const snippets = (n: number) =>
      n >= 6 && n <= 8 ? `Weather in Paris, number ${n}.` : n === 9 ? '' : vagueSnippets(n);
    const web = fakeWeb(9);
    const run = start(hitsOf(12, snippets), web);
    await flush();
    expect(web.fetched).toEqual([1, 2, 3, 4, 5, 9, 10, 11, 12]);
    web.answer(1, 2, 3, 4, 5, 9, 10, 11, 12);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site9.test/page');

    const everyResult = fakeWeb(9);
    const all = start(hitsOf(12, snippets), everyResult, { settings: { minDeeperSnippetCoverage: 0 } });
    await flush();
    expect(everyResult.fetched).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    everyResult.answer(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS);
    await all.running;
  });

  it('the stragglers of a deeper read get half the grace', async () => {
    const web = fakeWeb(9);
    const run = start(hitsOf(12, vagueSnippets), web, { settings: { minDeeperPageMentions: 0 } });
    await flush();
    web.answer(1, 2, 3, 4, 5); // the first pages do not cover the question
    await flush();
    web.answer(6, 7, 8, 9, 10, 11); // 6 of the 7 deeper pages; page 12 hangs
    await vi.advanceTimersByTimeAsync(DEFAULT_STRAGGLER_GRACE_MS / 2 - 10);
    expect(run.done).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(run.done).toBe(true);
    await run.running;
    expect(run.result?.passages[0]?.url).toBe('https://site9.test/page');
    expect(web.abandoned).toEqual([12]);
  });

  it('depth "fast" fetches nothing and ignores the budget', async () => {
    const web = fakeWeb(1);
    const hits = hitsOf(5, (n) => (n === 3 ? ANSWER_PAGE : coveringSnippets(n)));
    const run = start(hits, web, { request: { depth: 'fast' } });
    await run.running;
    expect(web.fetched).toEqual([]);
    expect(run.result?.answer).toContain('Robert Stevenson');
  });
});

describe('page reader', () => {
  it('asks admit about a page read ahead only once the page is released for extraction', async () => {
    const web = fakeWeb(1);
    const reader = createPageReader({
      fetcher: web.fetcher,
      extractor: web.extractor,
      pageTimeoutMs: 10_000,
      stragglerGraceMs: DEFAULT_STRAGGLER_GRACE_MS,
      answerBy: Date.now() + DEFAULT_MAX_LATENCY_MS,
      call: { signal: new AbortController().signal, requestId: 'reader', deadline: Date.now() + 60_000 },
    });
    const asked: string[] = [];
    const admit = (page: FetchedPage) => {
      asked.push(page.url);
      return page.url.includes('site2');
    };
    const reads = reader.read(hitsOf(3, coveringSnippets), { extract: false, admit });
    await flush();
    web.answer(1, 2, 3);
    await flush();
    expect(reads.map((read) => read.state)).toEqual(['fetched', 'fetched', 'fetched']);
    expect(asked).toEqual([]); // arrived, not wanted yet: nothing scanned
    reader.release(reads);
    await reader.settle(reads);
    expect(asked).toHaveLength(3);
    expect(web.extracted).toEqual([2]);
    reader.stop();
  });
});
