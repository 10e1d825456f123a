/**
 * The engine's default stages: the answerer (model or extractive), the model query planner, and a page
 * fetcher and extractor created on first use.
 */
import type { LanguageModel } from 'ai';
import { createExtractiveAnswerer, createModelAnswerer } from '../pipeline/answer/index.ts';
import type { ModelTelemetrySettings } from '../pipeline/answer/telemetry.ts';
import { createContentExtractor } from '../pipeline/extract/index.ts';
import { withContentCache } from '../pipeline/extract/content-cache.ts';
import { createPageFetcher } from '../pipeline/fetch/index.ts';
import { createModelQueryPlanner } from '../pipeline/query-model.ts';
import type { PipelinePlanner, PipelineStages } from '../pipeline/run.ts';
import { createEmbeddingReranker } from '../pipeline/rank/embeddings.ts';
import { createBm25Ranker } from '../pipeline/rank/index.ts';
import { createModelResearchPlanner } from '../pipeline/research/model-planner.ts';
import { createRulesPlanner } from '../pipeline/research/rules-planner.ts';
import type { ResolvedResearchSettings } from '../pipeline/research/settings.ts';
import type { ResearchPlanner } from '../pipeline/research/types.ts';
import { createLocalIndexProvider } from '../pipeline/search/local-index.ts';
import { withHitFields } from '../pipeline/search/hits.ts';
import { withSynonymSearch } from '../pipeline/search/synonyms.ts';
import { parseSynonymRules, SynonymSet } from '../text/synonym-rules.ts';
import type { DocumentIndex } from '../documents/types.ts';
import type { Answerer, ContentExtractor, PageFetcher, SearchProvider } from '../pipeline/types.ts';
import { withAnswererResilience } from '../resilience/index.ts';
import type { ResolvedEngineOptions, SearchEngineOptions } from './options.ts';

/** The engine's telemetry settings for one stage: function id `<functionId or citewise>.<stage>`. */
export function stageTelemetry(
  options: SearchEngineOptions,
  stage: 'answer' | 'plan' | 'research',
): ModelTelemetrySettings | undefined {
  if (!options.telemetry) return undefined;
  return { ...options.telemetry, functionId: `${options.telemetry.functionId ?? 'citewise'}.${stage}` };
}

/** The model answerer when a model is given (with the extractive one as fallback if asked), else extractive. */
export function defaultAnswerer(
  options: SearchEngineOptions,
  modelFallback: boolean,
  synonyms?: SynonymSet,
): Answerer {
  const noAnswer = options.noAnswerText === undefined ? {} : { noAnswerText: options.noAnswerText };
  const extractive = createExtractiveAnswerer({ ...noAnswer, ...(synonyms ? { synonyms } : {}) });
  if (!options.model) return extractive;
  const telemetry = stageTelemetry(options, 'answer');
  const model = createModelAnswerer({
    model: options.model,
    ...noAnswer,
    ...(telemetry ? { telemetry } : {}),
    ...(modelFallback ? { fallback: extractive } : {}),
  });
  // The model answerer retries within the deadline itself; the wrapper adds a circuit breaker, so a model
  // that is down answers 503 at once instead of every request waiting for its retries.
  return withAnswererResilience(model, { retries: 0, upstream: 'model' });
}

/**
 * The default search: the local index of `corpus`, citing `<publicUrl>/docs/…`. Without a `publicUrl` option
 * (`fromRequest`), a request's own base URL replaces the default one, so that an engine mounted at
 * `http://127.0.0.1:3000/api` cites `http://127.0.0.1:3000/api/docs/…`, which it serves.
 */
function localSearch(
  corpus: readonly string[],
  publicUrl: string,
  fromRequest: boolean,
  documentIndex: DocumentIndex | undefined,
): SearchProvider {
  const local = createLocalIndexProvider({
    paths: corpus,
    publicUrl,
    ...(documentIndex ? { documentIndex } : {}),
  });
  if (!fromRequest) return local;
  const served = `${publicUrl}/docs/`;
  return {
    id: local.id,
    async search(query, call) {
      const hits = await local.search(query, call);
      const base = call.requestBaseUrl;
      if (!base) return hits;
      return hits.map((hit) =>
        hit.url.startsWith(served)
          ? withHitFields(hit, { url: `${base}/docs/${hit.url.slice(served.length)}` })
          : hit,
      );
    },
  };
}

/**
 * With a model, follow-ups are rewritten by it and `deep` requests get its sub-queries; a plain first
 * question is searched as written, saving a model call.
 */
export function modelPlanner(
  model: LanguageModel | false | undefined,
  telemetry: ModelTelemetrySettings | undefined,
): PipelinePlanner | undefined {
  if (!model) return undefined;
  const withTelemetry = telemetry ? { telemetry } : {};
  const forFollowUps = createModelQueryPlanner({ model, onlyWithContext: true, ...withTelemetry });
  const withSubQueries = createModelQueryPlanner({ model, ...withTelemetry });
  return (prompt, context, signal, depth) =>
    (depth === 'deep' ? withSubQueries : forFollowUps)(prompt, context, signal);
}

// The default fetcher and extractor are created on first use, so they cost nothing (no connection pool,
// no worker threads) for engines whose provider already returns page text, like the local index.

export function lazyPageFetcher(): PageFetcher {
  let fetcher: PageFetcher | undefined;
  return {
    fetch: (url, call) => (fetcher ??= createPageFetcher()).fetch(url, call),
    // Nothing fetched yet: nothing is cached and no host is known to be fast.
    isCheap: (url) => fetcher?.isCheap?.(url) ?? false,
    close: async () => fetcher?.close?.(),
  };
}

export function lazyContentExtractor(): ContentExtractor {
  let extractor: ContentExtractor | undefined;
  return {
    extract: (page, call) => (extractor ??= createContentExtractor()).extract(page, call),
    warm: async () => (extractor ??= createContentExtractor()).warm?.(),
    close: async () => extractor?.close?.(),
  };
}

/** The extractor given (or the lazy default) behind the content cache, unless `contentCache: false`. */
function cachedExtractor(options: SearchEngineOptions): ContentExtractor {
  const extractor = options.extractor || lazyContentExtractor();
  return options.contentCache === false ? extractor : withContentCache(extractor, options.contentCache);
}

/**
 * The planner of `depth: "research"`: the one given, else with a model (`queryModel`, else `model`) the
 * model planner falling back to the rules, else the rules alone; on the research settings
 * `resolveEngineOptions` resolved.
 */
export function researchPlanner(
  options: SearchEngineOptions,
  settings: ResolvedResearchSettings,
): ResearchPlanner {
  if (options.research?.planner) return options.research.planner;
  const rules = createRulesPlanner(settings);
  const model = options.queryModel ?? options.model;
  if (!model) return rules;
  const telemetry = stageTelemetry(options, 'research');
  return createModelResearchPlanner({
    model,
    fallback: rules,
    settings,
    ...(telemetry ? { telemetry } : {}),
  });
}

/**
 * The pipeline's stages from the engine's options: each one given is used as it is, the others are the
 * defaults (the local index of `corpus` as search, BM25 with the optional embedding re-ranker, the default
 * answerer and planner, the lazy fetcher and extractor). `structuredOutput`: whether `response_type: "json"`
 * can be answered.
 */
export function buildStages(
  options: SearchEngineOptions,
  resolved: Pick<ResolvedEngineOptions, 'corpus' | 'publicUrl' | 'pipeline' | 'modelFallback'>,
): { stages: PipelineStages; structuredOutput: boolean } {
  const { corpus, publicUrl } = resolved;
  const planner =
    options.planner ?? modelPlanner(options.queryModel ?? options.model, stageTelemetry(options, 'plan'));
  // `response_type: "json"` needs an answerer that writes structured output (the model answerer does).
  const structuredOutput = options.answerer
    ? options.answerer.structuredOutput === true
    : options.model !== undefined;
  const bm25 = options.ranker ?? createBm25Ranker();
  const synonyms =
    options.synonyms === undefined ? undefined : new SynonymSet(parseSynonymRules(options.synonyms));
  const stages: PipelineStages = {
    ...(planner ? { planner } : {}),
    researchPlanner: researchPlanner(options, resolved.pipeline.research),
    search: withSynonymSearch(
      options.search ??
        localSearch(corpus, publicUrl, options.publicUrl === undefined, options.documents?.index),
      synonyms,
    ),
    ranker: options.embeddingModel
      ? createEmbeddingReranker({ inner: bm25, model: options.embeddingModel })
      : bm25,
    answerer: options.answerer ?? defaultAnswerer(options, resolved.modelFallback, synonyms),
    ...(options.fetcher === false ? {} : { fetcher: options.fetcher ?? lazyPageFetcher() }),
    ...(options.extractor === false ? {} : { extractor: cachedExtractor(options) }),
  };
  return { stages, structuredOutput };
}
