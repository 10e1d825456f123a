/**
 * The whole pipeline of one search, top to bottom:
 *
 *   plan the query → search → gather documents (provider text, or fetch + extract, or the snippet)
 *   → rank passages within the token budget → write the answer with its sources.
 *
 * Every stage gets the request's AbortSignal. Pages that miss the fetch deadline are dropped (their search
 * snippet stands in), never waited for.
 */
import type {
  Answerer,
  AnswerEvent,
  AnswerInput,
  AnswerOutput,
  CallOptions,
  ContentExtractor,
  ExtractedContent,
  PageFetcher,
  Passage,
  PassageRanker,
  SearchHit,
  SearchProvider,
} from './types.ts';
import { fuseRankings } from './search/combine.ts';
import { applyDomainFilters } from './search/providers/http.ts';
import type { NormalizedSearchRequest } from '../http/schema.ts';
import { planQuery } from './query.ts';
import { queryCoverage } from './rank/coverage.ts';

/** {@link PipelineSettings.expandToResults} when not set. */
export const DEFAULT_EXPAND_TO_RESULTS = 40;
/** {@link PipelineSettings.minQueryCoverage} when not set. */
export const DEFAULT_MIN_QUERY_COVERAGE = 0.8;

/**
 * Turns the prompt and the user messages of the conversation into search queries: one standalone query,
 * or several sub-queries for a broad question (the first is the main one). `depth` lets a planner spend
 * more (e.g. a model call) only for `deep` requests. Any `QueryPlanner` (query-model.ts) fits.
 */
export type PipelinePlanner = (
  prompt: string,
  context: NormalizedSearchRequest['context'],
  signal: AbortSignal,
  depth: NormalizedSearchRequest['depth'],
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
}

/** Milliseconds spent per stage. */
export type StageTimings = Readonly<Record<'plan' | 'search' | 'gather' | 'rank' | 'answer', number>>;

/** Result of {@link runPipeline}. */
export interface PipelineResult extends AnswerOutput {
  /** The main search query. */
  readonly query: string;
  /** The passages the answerer was given, best first. */
  readonly passages: readonly Passage[];
  readonly timings: StageTimings;
}

/** Runs one search request through the stages. Throws on failure; the caller refunds. */
export async function runPipeline(
  request: NormalizedSearchRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
): Promise<PipelineResult> {
  const clock = stopwatch();
  const { input, timings } = await selectPassages(request, stages, settings, call, clock);
  const output = await stages.answerer.answer(input, call);
  return {
    ...output,
    query: input.query,
    passages: input.passages,
    timings: { ...timings, answer: clock.lap() },
  };
}

/**
 * Runs the pipeline with a streamed answer: `sources`, then `delta`s, then `done`. An answerer without
 * `stream` is streamed as one delta. `onPassages` sees the passages before the answer starts.
 */
export async function* streamPipeline(
  request: NormalizedSearchRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
  onPassages?: (passages: readonly Passage[]) => void,
): AsyncGenerator<AnswerEvent> {
  const { input } = await selectPassages(request, stages, settings, call, stopwatch());
  onPassages?.(input.passages);
  if (stages.answerer.stream) {
    yield* stages.answerer.stream(input, call);
    return;
  }
  const output = await stages.answerer.answer(input, call);
  yield { type: 'sources', sources: output.sources };
  yield { type: 'delta', text: output.answer };
  yield { type: 'done', answer: output.answer, sources: output.sources };
}

/** Plan → search → gather → rank: everything before the answer. */
async function selectPassages(
  request: NormalizedSearchRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
  clock: { lap(): number },
): Promise<{ input: AnswerInput; timings: Omit<StageTimings, 'answer'> }> {
  const planner = stages.planner ?? deterministicPlanner;
  const planned = await planner(request.prompt, request.context, call.signal, request.depth);
  const queries = subQueries(planned, request);
  const query = queries[0] ?? request.prompt;
  const plan = clock.lap();

  const first = Math.min(request.maxSources ?? settings.maxResults, settings.maxResults * 2);
  const mayExpand = request.maxSources === undefined && request.depth !== 'fast';
  const most = mayExpand ? Math.max(first, settings.expandToResults ?? DEFAULT_EXPAND_TO_RESULTS) : first;
  // Domain filters hold even for providers that cannot filter by themselves (like custom ones).
  const hits = applyDomainFilters(
    await searchAll(queries, most, request, stages.search, call),
    request.filters,
  );
  const search = clock.lap();

  // `fast` answers from what the search returned (snippets or provider text), without fetching pages.
  const reader = request.depth === 'fast' ? { ...stages, fetcher: undefined } : stages;
  const budget = { maxTokens: settings.maxPassageTokens };
  const read = request.depth === 'deep' ? most : first;
  let docs = await gatherDocuments(hits.slice(0, read), reader, settings, call);
  let gather = clock.lap();
  let passages = await stages.ranker.rank(query, docs, budget);
  let rank = clock.lap();

  const minCoverage = settings.minQueryCoverage ?? DEFAULT_MIN_QUERY_COVERAGE;
  // Read deeper only while a full page timeout for reading and one for answering still fit the deadline.
  const timeLeft = call.deadline - Date.now() >= 2 * settings.pageTimeoutMs;
  if (hits.length > read && read < most && timeLeft && queryCoverage(query, passages[0]) < minCoverage) {
    docs = [...docs, ...(await gatherDocuments(hits.slice(read, most), reader, settings, call))];
    gather += clock.lap();
    passages = await stages.ranker.rank(query, docs, budget);
    rank += clock.lap();
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
  return { input, timings: { plan, search, gather, rank } };
}

/** `deep` searches every planned sub-query, plus the prompt as written; other depths the main query. */
function subQueries(planned: readonly string[], request: NormalizedSearchRequest): string[] {
  const queries = planned.map((q) => q.trim()).filter(Boolean);
  if (request.depth !== 'deep') return queries.slice(0, 1);
  return [...new Set([...queries, request.prompt.trim()])].slice(0, 4);
}

/** One query, or several fused by reciprocal rank (a URL found by several queries ranks higher). */
async function searchAll(
  queries: readonly string[],
  limit: number,
  request: NormalizedSearchRequest,
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

/** One document per hit: the provider's own text, else the fetched and extracted page, else the snippet. */
async function gatherDocuments(
  hits: readonly SearchHit[],
  stages: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
): Promise<ExtractedContent[]> {
  const docs = await Promise.all(hits.map((hit) => documentFor(hit, stages, settings, call)));
  return docs.filter((doc): doc is ExtractedContent => doc !== null);
}

async function documentFor(
  hit: SearchHit,
  { fetcher, extractor }: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
): Promise<ExtractedContent | null> {
  if (hit.content) return { url: hit.url, title: hit.title, text: hit.content, markdown: hit.content };
  const fromSnippet = hit.snippet
    ? { url: hit.url, title: hit.title, text: hit.snippet, markdown: hit.snippet }
    : null;
  if (!fetcher || !extractor) return fromSnippet;

  const deadline = Math.min(call.deadline, Date.now() + settings.pageTimeoutMs);
  const pageSignal = AbortSignal.any([call.signal, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]);
  const pageCall = { ...call, signal: pageSignal, deadline };
  try {
    // The race guarantees the deadline even against a stage that ignores its signal.
    const content = await Promise.race([
      fetcher.fetch(new URL(hit.url), pageCall).then((page) => extractor.extract(page, pageCall)),
      rejectOnAbort(pageSignal),
    ]);
    if (content && content.text.trim()) return { ...content, title: content.title || hit.title };
    return fromSnippet;
  } catch {
    // A page that failed or missed its deadline is dropped; its snippet stands in.
    call.signal.throwIfAborted();
    return fromSnippet;
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
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
