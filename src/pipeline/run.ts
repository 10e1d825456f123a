/**
 * The whole pipeline of one search, top to bottom:
 *
 *   plan the query → search → gather documents (provider text, or fetch + extract, or the snippet)
 *   → rank passages within the token budget → write the answer with its sources.
 *
 * Every stage gets the request's AbortSignal. Pages are read within a latency budget (read.ts): once most
 * of them arrived, stragglers get a short grace period, and at the request's `max_latency_ms` the answer
 * starts from what has arrived; a page not read in time is answered from its search snippet.
 */
import type {
  Answerer,
  AnswerEvent,
  AnswerInput,
  AnswerOutput,
  CallOptions,
  ChatMessage,
  ContentExtractor,
  ExtractedContent,
  FetchedPage,
  PageFetcher,
  Passage,
  PassageRanker,
  PipelineRequest,
  SearchDepth,
  SearchHit,
  SearchProvider,
} from './types.ts';
import { resolvePipelineSettings, type ResolvedPipelineSettings } from './settings.ts';
import { createPageReader, PATIENT_RESULTS, type PageRead } from './read.ts';
import { fuseRankings } from './search/combine.ts';
import { applyDomainFilters } from './search/filters.ts';
export { ARRIVED_SHARE } from './read.ts';
import { planQuery } from './query.ts';
import { pageMentions, queryCoverage } from './rank/coverage.ts';
import { createRulesPlanner } from './research/rules-planner.ts';
import { runResearch } from './research/loop.ts';
import { type ResearchPlanner, type ResearchSettings, type ResearchStep } from './research/types.ts';

export {
  DEFAULT_CHEAP_RESULTS,
  DEFAULT_EXPAND_TO_RESULTS,
  DEFAULT_MAX_LATENCY_MS,
  DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
  DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
  DEFAULT_MIN_QUERY_COVERAGE,
  DEFAULT_STRAGGLER_GRACE_MS,
} from './settings.ts';

/**
 * Names a research chain led to that join the answerer's query, first followed first: a long list pulls the
 * answer away from the question (figures: docs/benchmarks-history.md, "Figures behind the pipeline's
 * constants").
 */
const ANSWER_QUERY_LEADS = 2;
/**
 * Share of `stragglerGraceMs` that the stragglers of a deeper read get: a page far down the results is
 * less likely to hold the answer than one of the first, and most of the deeper pages were read ahead, so
 * their quorum arrived long before: a shorter median on one busy host, answers unchanged (figures:
 * docs/benchmarks-history.md).
 */
const DEEPER_GRACE_SHARE = 0.5;

/**
 * Call options of one pipeline run: the deadline is required here (a run always has one), and, for the
 * latency budget, when the request arrived (epoch ms; queueing before the run counts against `max_latency_ms`).
 */
export type PipelineCall = CallOptions & {
  readonly deadline: number;
  /** @default the start of the run */
  readonly startedAt?: number;
};

/**
 * Turns the prompt and the user messages of the conversation into search queries: one standalone query,
 * or several sub-queries for a broad question (the first is the main one). `depth` lets a planner spend
 * more (e.g. a model call) only for `deep` requests. Any `QueryPlanner` (query-model.ts) fits.
 */
export type PipelinePlanner = (
  prompt: string,
  context: readonly ChatMessage[],
  signal: AbortSignal,
  depth: SearchDepth,
) => Promise<string[]>;

/** The deterministic planner: one standalone query (a follow-up gets the entity it refers to). */
export const deterministicPlanner: PipelinePlanner = async (prompt, context) => [planQuery(prompt, context)];

/** The stages one search runs through. */
export interface PipelineStages {
  /** @default deterministicPlanner */
  readonly planner?: PipelinePlanner;
  readonly search: SearchProvider;
  /** Without a fetcher (or extractor), hits without `content` are answered from their snippets. */
  readonly fetcher?: PageFetcher;
  readonly extractor?: ContentExtractor;
  readonly ranker: PassageRanker;
  readonly answerer: Answerer;
  /** Plans the rounds of `depth: "research"`. @default the model-free planner (createRulesPlanner) */
  readonly researchPlanner?: ResearchPlanner;
}

/** Tuning of one pipeline run. */
export interface PipelineSettings {
  /** Search results read first: fetched, extracted and ranked (a request's `max_sources` sets it). */
  readonly maxResults: number;
  /**
   * Most search results read for one question. When the best passage of the first `maxResults` pages
   * covers less than `minQueryCoverage` of the query's words, the pipeline reads the following results up
   * to this many and ranks all passages again — hard questions get a deeper look, easy ones stay cheap.
   * Not used when the request sets `max_sources` or `depth: "fast"`; `depth: "deep"` reads this many at
   * once. A value ≤ `maxResults` never reads more.
   * @default DEFAULT_EXPAND_TO_RESULTS (40)
   */
  readonly expandToResults?: number;
  /**
   * Share (0–1) of the query's distinct words that the best passage must contain for the first pages to
   * be enough (see {@link queryCoverage}). 0 never reads more; 1 reads more unless every word is covered.
   * @default DEFAULT_MIN_QUERY_COVERAGE (0.8)
   */
  readonly minQueryCoverage?: number;
  /** Token budget of the passages handed to the answerer. */
  readonly maxPassageTokens: number;
  /** Time allowed to fetch and extract one page, in ms; never past the request deadline. */
  readonly pageTimeoutMs: number;
  /**
   * Time after the request arrived by which reading stops and the answer is written from the pages that
   * have arrived (the rest are answered from their snippets), in ms. A request's `max_latency_ms` replaces
   * it. The search itself is not cut; the request deadline still bounds everything.
   * @default DEFAULT_MAX_LATENCY_MS (2000)
   */
  readonly maxLatencyMs?: number;
  /**
   * Most time pages still being fetched are waited for once 80 % of the pages read together have arrived
   * ({@link ARRIVED_SHARE}), counted from that arrival, in ms; pages read deeper get half of it. The first
   * search result is not cut by it (it is waited for until `maxLatencyMs`). Pages that arrived are always
   * extracted and used.
   * @default DEFAULT_STRAGGLER_GRACE_MS (400)
   */
  readonly stragglerGraceMs?: number;
  /**
   * When reading deeper, a page is extracted only if its raw bytes contain at least this share (0–1) of the
   * query's distinct words ({@link pageMentions}); the others keep their snippet. Extraction is the costly
   * step, and a page without most of the question's words rarely holds its answer. 0 extracts every page.
   * @default DEFAULT_MIN_DEEPER_PAGE_MENTIONS (0.5)
   */
  readonly minDeeperPageMentions?: number;
  /**
   * When reading deeper, a result is fetched at all only if its title and snippet hold at least this share
   * (0–1) of the query's distinct words ({@link queryCoverage}); a result with no snippet is fetched. A
   * search engine's snippet is cut around the query's words, so one that holds almost none of them marks a
   * page about something else: not fetching it spares the site a request for the same answer (figures:
   * docs/benchmarks-history.md). 0 fetches every result.
   * @default DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE (0.2)
   */
  readonly minDeeperSnippetCoverage?: number;
  /**
   * Results read in the first round when they are cheap: of the results after the first `maxResults`, up
   * to this many from the top are read with them when the fetcher says they cost the site nothing new or
   * little (cached, being fetched, or on a fast host with room: `PageFetcher.isCheap`). More pages read
   * together put more good passages within the same token budget (figures: docs/benchmarks-history.md).
   * Not used with `max_sources` or `depth: "fast"`. A value ≤ `maxResults` turns it off.
   * @default DEFAULT_CHEAP_RESULTS (10)
   */
  readonly cheapResults?: number;
  /**
   * Budgets of `depth: "research"` (rounds, queries, pages, passage tokens) and its time budget: by
   * `maxLatencyMs` after the request arrived (a request's `max_latency_ms` replaces it), research stops and
   * the answer is written from what was read.
   * @default RESEARCH_DEFAULTS
   */
  readonly research?: ResearchSettings & { readonly maxLatencyMs?: number };
}

/** Milliseconds spent per stage. */
export type StageTimings = Readonly<Record<'plan' | 'search' | 'gather' | 'rank' | 'answer', number>>;

/** Result of {@link runPipeline}. */
export interface PipelineResult extends AnswerOutput {
  /** The main search query. */
  readonly query: string;
  /** The passages the answerer was given, best first. */
  readonly passages: readonly Passage[];
  /** The documents the passages were cut from (a page's extracted text, or a snippet). */
  readonly documents: readonly ExtractedContent[];
  readonly timings: StageTimings;
  /** `depth: "research"`: its rounds, in order. */
  readonly steps?: readonly ResearchStep[];
  /** Search queries sent (more than one for `deep` and `research`). */
  readonly searches: number;
}

/** Runs one search request through the stages. Throws on failure; the caller refunds. */
export async function runPipeline(
  request: PipelineRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: PipelineCall,
): Promise<PipelineResult> {
  const clock = stopwatch();
  const { input, documents, timings, steps, searches } = await selectPassages(
    request,
    stages,
    resolvePipelineSettings(settings),
    call,
    clock,
  );
  const output = await stages.answerer.answer(input, call);
  return {
    ...output,
    query: input.query,
    passages: input.passages,
    documents,
    timings: { ...timings, answer: clock.lap() },
    ...(steps ? { steps } : {}),
    searches,
  };
}

/** An event of a streamed pipeline run: the answer's events, and before them each research step. */
export type PipelineEvent = AnswerEvent | { readonly type: 'step'; readonly step: ResearchStep };

/** What a streamed run reports before its answer starts. */
export interface GatheredEvidence {
  readonly passages: readonly Passage[];
  readonly documents: readonly ExtractedContent[];
  /** Search queries sent. */
  readonly searches: number;
  readonly steps?: readonly ResearchStep[];
}

/**
 * Runs the pipeline with a streamed answer: (for `research`) a `step` per round, then `sources`, `delta`s,
 * and `done`. An answerer without `stream` is streamed as one delta. `onPassages` sees the passages (and
 * the documents they were cut from) before the answer starts.
 */
export async function* streamPipeline(
  request: PipelineRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: PipelineCall,
  onPassages?: (gathered: GatheredEvidence) => void,
): AsyncGenerator<PipelineEvent> {
  const pending: ResearchStep[] = [];
  let wake: (() => void) | undefined;
  const resolved = resolvePipelineSettings(settings);
  const gathering = selectPassages(request, stages, resolved, call, stopwatch(), (step) => {
    pending.push(step);
    wake?.();
  });
  let settled = false;
  void gathering.then(
    () => ((settled = true), wake?.()),
    () => ((settled = true), wake?.()),
  );
  // Steps are yielded as the rounds end, while the research goes on.
  while (!settled || pending.length > 0) {
    const step = pending.shift();
    if (step) {
      yield { type: 'step', step };
      continue;
    }
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  const { input, documents, steps, searches } = await gathering;
  onPassages?.({ passages: input.passages, documents, searches, ...(steps ? { steps } : {}) });
  if (stages.answerer.stream) {
    yield* stages.answerer.stream(input, call);
    return;
  }
  const output = await stages.answerer.answer(input, call);
  yield { type: 'sources', sources: output.sources };
  yield { type: 'delta', text: output.answer };
  yield { type: 'done', answer: output.answer, sources: output.sources };
}

/** What everything before the answer gathered: the answerer's input and what it was taken from. */
interface Gathered {
  readonly input: AnswerInput;
  readonly documents: ExtractedContent[];
  readonly timings: Omit<StageTimings, 'answer'>;
  /** `depth: "research"`: its rounds. */
  readonly steps?: readonly ResearchStep[];
  /** Search queries sent. */
  readonly searches: number;
}

/** Plan → search → gather → rank: everything before the answer. */
async function selectPassages(
  request: PipelineRequest,
  stages: PipelineStages,
  settings: ResolvedPipelineSettings,
  call: PipelineCall,
  clock: { lap(): number },
  onStep?: (step: ResearchStep) => void,
): Promise<Gathered> {
  if (request.depth === 'research') return researchPassages(request, stages, settings, call, clock, onStep);
  const planner = stages.planner ?? deterministicPlanner;
  const planned = await planner(request.prompt, request.context, call.signal, request.depth);
  const queries = subQueries(planned, request);
  const query = queries[0] ?? request.prompt;
  const plan = clock.lap();

  const first = Math.min(request.maxSources ?? settings.maxResults, settings.maxResults * 2);
  const mayExpand = request.maxSources === undefined && request.depth !== 'fast';
  const most = mayExpand ? Math.max(first, settings.expandToResults) : first;
  // Domain filters hold even for providers that cannot filter by themselves (like custom ones).
  const hits = applyDomainFilters(
    await searchAll(queries, most, request, stages.search, call),
    request.filters,
  );
  const search = clock.lap();

  // `fast` answers from what the search returned (snippets or provider text), without fetching pages.
  const fetching = request.depth !== 'fast';
  const maxLatencyMs = request.maxLatencyMs ?? settings.maxLatencyMs;
  const answerBy = Math.min(call.deadline, (call.startedAt ?? Date.now()) + maxLatencyMs);
  const stragglerGraceMs = settings.stragglerGraceMs;
  const reader = createPageReader({
    ...(fetching ? { fetcher: stages.fetcher, extractor: stages.extractor } : {}),
    pageTimeoutMs: settings.pageTimeoutMs,
    stragglerGraceMs,
    answerBy,
    call,
  });
  const budget = { maxTokens: settings.maxPassageTokens };
  const minCoverage = settings.minQueryCoverage;
  const read = request.depth === 'deep' ? most : first;
  // Pages read deeper are extracted only when they mention enough of the question.
  const minMentions = settings.minDeeperPageMentions;
  const mentions = pageMentions(query);
  const admit = minMentions > 0 ? (page: FetchedPage) => mentions(page) >= minMentions : undefined;
  // Results that cost the site nothing new (cached, or a fast host with room) are read with the first ones.
  const cheap =
    mayExpand && request.depth !== 'deep' && reader.fetches && stages.fetcher?.isCheap
      ? cheapHits(hits.slice(read, Math.min(most, settings.cheapResults)), stages.fetcher)
      : [];
  // Results read deeper whose snippet shows they are about something else are not fetched at all.
  const minSnippet = settings.minDeeperSnippetCoverage;
  const deeper = hits
    .slice(read, most)
    .filter((hit) => !cheap.includes(hit) && mayBeAbout(query, hit, minSnippet));
  const mayReadDeeper = deeper.length > 0;
  let gather: number;
  let rank: number;
  let passages: Passage[];
  let docs: ExtractedContent[];
  try {
    const firstReads = reader.read(hits.slice(0, read), { patient: PATIENT_RESULTS });
    const cheapReads = reader.read(cheap);
    // Read-ahead: when not even the snippets of the first results cover the question, reading deeper is
    // likely, so the next pages are fetched now (not extracted) and the wait overlaps the first pages'.
    // Whether they are used is decided exactly as without read-ahead, from the first pages' passages.
    let deeperReads: PageRead[] = [];
    if (mayReadDeeper && reader.fetches && snippetCoverage(query, hits.slice(0, read)) < minCoverage) {
      deeperReads = reader.read(deeper, { extract: false, admit });
    }
    await reader.settle(firstReads);
    // Cheap pages are in already, or nearly: they get their own wait, not a share of the first pages'.
    await reader.settle(cheapReads);
    call.signal.throwIfAborted();
    docs = reader.documents(inSearchOrder([...firstReads, ...cheapReads], hits));
    gather = clock.lap();
    passages = await stages.ranker.rank(query, docs, budget);
    rank = clock.lap();

    // Read deeper only while a full page timeout for reading and one for answering still fit the
    // deadline, and, unless pages were read ahead, before the answer must start.
    const timeLeft = call.deadline - Date.now() >= 2 * settings.pageTimeoutMs;
    const beforeAnswer = deeperReads.length > 0 || Date.now() < answerBy;
    if (mayReadDeeper && timeLeft && beforeAnswer && queryCoverage(query, passages[0]) < minCoverage) {
      if (deeperReads.length > 0) reader.release(deeperReads);
      else deeperReads = reader.read(deeper, { admit });
      // The first pages' stragglers may still arrive while the deeper ones are read.
      await reader.settle([...firstReads.filter((r) => r.state !== 'done'), ...deeperReads], {
        graceMs: stragglerGraceMs * DEEPER_GRACE_SHARE,
      });
      call.signal.throwIfAborted();
      docs = reader.documents(inSearchOrder([...firstReads, ...cheapReads, ...deeperReads], hits));
      gather += clock.lap();
      passages = await stages.ranker.rank(query, docs, budget);
      rank += clock.lap();
    }
  } finally {
    reader.stop();
  }

  call.signal.throwIfAborted();
  const input: AnswerInput = {
    prompt: request.prompt,
    context: request.context,
    query,
    responseType: request.responseType,
    passages,
    ...(request.jsonSchema ? { jsonSchema: request.jsonSchema } : {}),
  };
  return { input, documents: docs, timings: { plan, search, gather, rank }, searches: queries.length };
}

/** `depth: "research"`: rounds of search → read → plan (research/loop.ts), then the evidence of all. */
async function researchPassages(
  request: PipelineRequest,
  stages: PipelineStages,
  settings: ResolvedPipelineSettings,
  call: PipelineCall,
  clock: { lap(): number },
  onStep?: (step: ResearchStep) => void,
): Promise<Gathered> {
  const question = planQuery(request.prompt, request.context);
  const plan = clock.lap();
  const research = settings.research;
  const maxLatencyMs = request.maxLatencyMs ?? research.maxLatencyMs;
  const result = await runResearch({
    question,
    filters: request.filters,
    stages,
    planner: stages.researchPlanner ?? createRulesPlanner(research),
    settings: research,
    pageTimeoutMs: settings.pageTimeoutMs,
    stragglerGraceMs: settings.stragglerGraceMs,
    answerBy: Math.min(call.deadline, (call.startedAt ?? Date.now()) + maxLatencyMs),
    call,
    ...(onStep ? { onStep } : {}),
  });
  const gather = clock.lap();
  call.signal.throwIfAborted();
  const input: AnswerInput = {
    prompt: request.prompt,
    context: request.context,
    // The names a chain led to are what the answer is about too ("Leo McCarey" for "the child of the
    // director of Love Affair"): an answerer that picks sentences by the query picks each hop's. Not for a
    // comparison, whose sides the question names already (the leads of both would dilute the query).
    query:
      result.analysis.sides.length > 0
        ? question
        : [question, ...result.followed.slice(0, ANSWER_QUERY_LEADS)].join(' '),
    responseType: request.responseType,
    passages: result.passages,
    ...(request.jsonSchema ? { jsonSchema: request.jsonSchema } : {}),
    ...(result.chain.length > 0 ? { chain: result.chain } : {}),
    ...(result.verdict ? { verdict: result.verdict } : {}),
    researched: true,
  };
  return {
    input,
    documents: [...result.documents],
    // Research interleaves searching and reading; its time is reported as gathering.
    timings: { plan, search: 0, gather, rank: clock.lap() },
    steps: result.steps,
    searches: result.queries,
  };
}

/** `deep` searches every planned sub-query, plus the prompt as written; other depths the main query. */
function subQueries(planned: readonly string[], request: PipelineRequest): string[] {
  const queries = planned.map((q) => q.trim()).filter(Boolean);
  if (request.depth !== 'deep') return queries.slice(0, 1);
  return [...new Set([...queries, request.prompt.trim()])].slice(0, 4);
}

/** One query, or several fused by reciprocal rank (a URL found by several queries ranks higher). */
async function searchAll(
  queries: readonly string[],
  limit: number,
  request: PipelineRequest,
  provider: SearchProvider,
  call: CallOptions,
): Promise<SearchHit[]> {
  const filters = Object.keys(request.filters).length ? { filters: request.filters } : {};
  const lists = await Promise.all(
    queries.map(async (query, index) => ({
      providerId: `query-${index}`,
      hits: await provider.search({ query, limit, ...filters }, call),
    })),
  );
  return lists.length === 1 ? (lists[0]?.hits ?? []) : fuseRankings(lists);
}

/** The hits (in order) whose pages the fetcher says are cheap to read now. */
function cheapHits(hits: readonly SearchHit[], fetcher: PageFetcher): SearchHit[] {
  return hits.filter((hit) => {
    if (hit.content) return false;
    try {
      return fetcher.isCheap?.(new URL(hit.url)) === true;
    } catch {
      return false;
    }
  });
}

/** Reads in the order of their hits among the search results (the ranker weighs documents by that order). */
function inSearchOrder(reads: readonly PageRead[], hits: readonly SearchHit[]): PageRead[] {
  const position = new Map(hits.map((hit, i) => [hit, i]));
  return [...reads].sort((a, b) => (position.get(a.hit) ?? 0) - (position.get(b.hit) ?? 0));
}

/**
 * Whether a hit read deeper may be about the query: its title and snippet hold `min` of the query's words.
 * True for a hit with provider text (read without a fetch) or without a snippet to judge by.
 */
function mayBeAbout(query: string, hit: SearchHit, min: number): boolean {
  if (hit.content !== undefined || min <= 0 || !hit.snippet?.trim()) return true;
  return snippetCoverage(query, [hit]) >= min;
}

/** Best share of the query's words that one hit's title and snippet cover (a guess before any page is read). */
function snippetCoverage(query: string, hits: readonly SearchHit[]): number {
  let best = 0;
  for (const hit of hits) {
    const text = hit.content ?? hit.snippet ?? '';
    best = Math.max(best, queryCoverage(query, { title: hit.title, text }));
  }
  return best;
}

function stopwatch(): { lap(): number } {
  let last = performance.now();
  return {
    lap() {
      const now = performance.now();
      const elapsed = Math.round((now - last) * 10) / 10;
      last = now;
      return elapsed;
    },
  };
}
