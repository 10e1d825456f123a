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
  PassageRanker,
  SearchHit,
  SearchProvider,
} from './types.ts';
import type { NormalizedSearchRequest } from '../http/schema.ts';
import { planQuery } from './query.ts';

/** The stages one search runs through. */
export interface PipelineStages {
  readonly search: SearchProvider;
  /** Without a fetcher (or extractor), hits without `content` are answered from their snippets. */
  readonly fetcher?: PageFetcher;
  readonly extractor?: ContentExtractor;
  readonly ranker: PassageRanker;
  readonly answerer: Answerer;
}

/** Tuning of one pipeline run. */
export interface PipelineSettings {
  /** Search hits to use. */
  readonly maxResults: number;
  /** Token budget of the passages handed to the answerer. */
  readonly maxPassageTokens: number;
  /** Time allowed to fetch and extract one page, in ms; never past the request deadline. */
  readonly pageTimeoutMs: number;
}

/** Result of {@link runPipeline}. */
export interface PipelineResult extends AnswerOutput {
  readonly query: string;
  /** Milliseconds spent per stage. */
  readonly timings: Readonly<Record<'plan' | 'search' | 'gather' | 'rank' | 'answer', number>>;
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
  return { ...output, query: input.query, timings: { ...timings, answer: clock.lap() } };
}

/**
 * Runs the pipeline with a streamed answer: `sources`, then `delta`s, then `done`. An answerer without
 * `stream` is streamed as one delta.
 */
export async function* streamPipeline(
  request: NormalizedSearchRequest,
  stages: PipelineStages,
  settings: PipelineSettings,
  call: CallOptions & { readonly deadline: number },
): AsyncGenerator<AnswerEvent> {
  const { input } = await selectPassages(request, stages, settings, call, stopwatch());
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
): Promise<{ input: AnswerInput; timings: Omit<PipelineResult['timings'], 'answer'> }> {
  const query = planQuery(request.prompt, request.context);
  const plan = clock.lap();

  const hits = await stages.search.search({ query, limit: settings.maxResults }, call);
  const search = clock.lap();

  const docs = await gatherDocuments(hits.slice(0, settings.maxResults), stages, settings, call);
  const gather = clock.lap();

  const passages = await stages.ranker.rank(query, docs, { maxTokens: settings.maxPassageTokens });
  const rank = clock.lap();

  call.signal.throwIfAborted();
  const input: AnswerInput = {
    prompt: request.prompt,
    context: request.context,
    query,
    responseType: request.responseType,
    passages,
  };
  return { input, timings: { plan, search, gather, rank } };
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
