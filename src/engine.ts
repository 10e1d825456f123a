/**
 * createSearchEngine(): wires the stores and the pipeline, and exposes the service as a library call
 * (`search`, `balance`), as a framework-agnostic HTTP handler (`handle`, used by every adapter) and as
 * account administration (`createKey`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { CitewiseError, errorBody, toCitewiseError } from './errors.ts';
import {
  handleProtocolRequest,
  type ProtocolRequest,
  type ProtocolResponse,
  type ProtocolService,
  type RequestInfo,
} from './http/handler.ts';
import {
  parseSearchRequest,
  type BalanceResponse,
  type Citation,
  type NormalizedSearchRequest,
  type SearchRequest,
  type SearchResponse,
  type SearchStreamEvent,
} from './http/schema.ts';
import type { EmbeddingModel, LanguageModel } from 'ai';
import { createExtractiveAnswerer, createModelAnswerer } from './pipeline/answer/index.ts';
import type { ModelTelemetrySettings } from './pipeline/answer/telemetry.ts';
import { createModelQueryPlanner } from './pipeline/query-model.ts';
import { withAnswererResilience } from './resilience/index.ts';
import { createEmbeddingReranker } from './pipeline/rank/embeddings.ts';
import { createContentExtractor } from './pipeline/extract/index.ts';
import { createPageFetcher } from './pipeline/fetch/index.ts';
import { createBm25Ranker } from './pipeline/rank/index.ts';
import {
  DEFAULT_EXPAND_TO_RESULTS,
  DEFAULT_MIN_QUERY_COVERAGE,
  runPipeline,
  streamPipeline,
  type PipelineResult,
  type PipelineStages,
  type PipelinePlanner,
  type StageTimings,
} from './pipeline/run.ts';
import { createLocalIndexProvider } from './pipeline/search/local-index.ts';
import type {
  Answerer,
  CallOptions,
  ContentExtractor,
  PageFetcher,
  Passage,
  PassageRanker,
  SearchProvider,
} from './pipeline/types.ts';
import { createMemoryCreditStore } from './stores/memory/credit-store.ts';
import { createMemoryKeyStore } from './stores/memory/key-store.ts';
import { createMemoryRateLimiter } from './stores/memory/rate-limiter.ts';
import type {
  CreditStore,
  KeyRecord,
  KeyStore,
  RateLimiter,
  RateLimitOptions,
  RateLimitResult,
} from './stores/types.ts';
import { createMemoryIdempotencyStore, type IdempotencyStore } from './http/idempotency.ts';
import type { EngineMetrics } from './observability/types.ts';
import type { UsageRecorder } from './stores/accounts/types.ts';

/** Credits a new account receives (the spec's free allowance). */
export const FREE_CREDITS = 1000;

/** The project's own documentation: the default corpus of the embedded local index. */
export const DEFAULT_CORPUS = packageDocsFolder();

/** `docs/` of this package, from the sources (`src/`) or from the build (`dist/src/`). */
function packageDocsFolder(): string {
  const candidates = ['../docs/', '../../docs/'].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  return candidates.find((path) => existsSync(path)) ?? candidates[0]!;
}

/** A pino-compatible logger. */
export interface Logger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** Options of {@link createSearchEngine}. Every option has a working default. */
export interface SearchEngineOptions {
  /**
   * An AI SDK language model (OpenAI, Anthropic, Google, or any OpenAI-compatible server). With it, answers
   * are written by the model with validated citations, and follow-ups are rewritten by it.
   * @default none: extractive answers, deterministic query planning
   */
  readonly model?: LanguageModel;
  /** Model for query planning; `false` keeps the deterministic planner. @default `model` */
  readonly queryModel?: LanguageModel | false;
  /** Embedding model that re-ranks BM25's passages by meaning. @default none */
  readonly embeddingModel?: EmbeddingModel;
  /** When the model fails after its retries, answer extractively instead of failing (500). @default false */
  readonly modelFallback?: boolean;
  /**
   * Turns prompt + conversation into search queries (a model planner can also propose sub-queries).
   * @default with a model: the model planner (called for follow-ups and `deep`); else deterministicPlanner
   */
  readonly planner?: PipelinePlanner;
  /** Search backend. @default a local full-text index over `corpus` */
  readonly search?: SearchProvider;
  /** Folders indexed by the default local search provider. @default [DEFAULT_CORPUS] (the project's docs/) */
  readonly corpus?: readonly string[];
  /**
   * Fetches result pages that the provider returned without text; `false` answers from snippets only.
   * @default createPageFetcher() (SSRF guard, robots.txt, limits), created on first use
   */
  readonly fetcher?: PageFetcher | false;
  /**
   * Extracts main content from fetched pages; `false` answers from snippets only.
   * @default createContentExtractor() (worker pool), created on first use
   */
  readonly extractor?: ContentExtractor | false;
  /** @default BM25 passage ranker */
  readonly ranker?: PassageRanker;
  /** @default the extractive answerer (no model needed) */
  readonly answerer?: Answerer;
  /** @default in-memory key store */
  readonly keys?: KeyStore;
  /** @default in-memory credit store */
  readonly credits?: CreditStore;
  /** Per-key limiter of search requests; `false` disables it. @default in-memory, `rateLimit` */
  readonly rateLimiter?: RateLimiter | false;
  /**
   * Limits of the default rate limiter; with a custom `rateLimiter`, the policy announced in the
   * `RateLimit-Policy` header. @default { limit: 60, windowMs: 60_000 }
   */
  readonly rateLimit?: RateLimitOptions;
  /**
   * Remembers searches sent with an `Idempotency-Key` header so a retry replays the response instead of
   * charging again; `false` ignores the header. @default an in-memory store (24 h, 10,000 keys)
   */
  readonly idempotency?: IdempotencyStore | false;
  /** Credits charged per successful search (a non-negative integer). @default 1 */
  readonly creditCost?: number;
  /** Searches running at once; more wait in a queue. @default 8 */
  readonly maxConcurrentSearches?: number;
  /** Searches allowed to wait; past this, 503. @default 64 */
  readonly maxQueuedSearches?: number;
  /** Deadline of one search, queueing included, in ms. @default 30_000 */
  readonly requestTimeoutMs?: number;
  /** Time allowed to fetch and extract one page, in ms. @default 8_000 */
  readonly pageTimeoutMs?: number;
  /** Search results read first for each request (fetched, extracted, ranked). @default 5 */
  readonly maxResults?: number;
  /**
   * Most search results read for one request: when the best passage of the first `maxResults` pages
   * covers less than `minQueryCoverage` of the question's words, the following results are read too, up to
   * this many, and all passages are ranked again. Set it to `maxResults` to never read more.
   * @default 40
   */
  readonly expandToResults?: number;
  /**
   * Share (0–1) of the question's distinct words the best passage must contain before the first
   * `maxResults` pages are considered enough. 0 never reads more results.
   * @default 0.8
   */
  readonly minQueryCoverage?: number;
  /**
   * Token budget of the passages given to the answerer (≈ 4 characters per token). Size it to the model:
   * budget + prompt + answer must fit its context window.
   * @default 4_000
   */
  readonly maxPassageTokens?: number;
  /** Largest accepted request body in bytes. @default 1_048_576 */
  readonly maxBodyBytes?: number;
  /** Start in maintenance mode (every /v1 request answers 503). @default false */
  readonly maintenance?: boolean;
  /** Where request failures are logged. @default silent */
  readonly logger?: Logger;
  /** Opt-in metrics callbacks, e.g. `createMetrics().hook` (citewise/observability). @default none */
  readonly metrics?: EngineMetrics;
  /**
   * Told of every settled search (charged or refunded) with its key, e.g. the console's batching
   * recorder (`createUsageRecorder`, citewise/console). Called synchronously; must not block. @default none
   */
  readonly usage?: UsageRecorder;
  /**
   * Telemetry of the model calls (default answerer and model planner) through the AI SDK's telemetry
   * option, e.g. `{ integrations: new OpenTelemetry({ tracer }) }` with `@ai-sdk/otel`. Their function ids
   * are `<functionId>.answer` and `<functionId>.plan`; inputs are not recorded unless `recordInputs`.
   * @default none: the AI SDK's defaults (globally registered integrations, if any)
   */
  readonly telemetry?: ModelTelemetrySettings;
}

/** Options of one library search call. */
export interface SearchCallOptions {
  readonly apiKey: string;
  /** Abort to cancel the search; the reservation is refunded. */
  readonly signal?: AbortSignal;
}

/** Input of {@link SearchEngine.createKey}. */
export interface CreateKeyOptions {
  /** Existing or new account id. @default a new `acct_…` id */
  readonly accountId?: string;
  /** Credits of the account when it is new. @default FREE_CREDITS (1000) */
  readonly credits?: number;
  readonly name?: string;
  /** Epoch ms after which the key stops working. @default never */
  readonly expiresAt?: number;
}

/** The engine: library API, HTTP handler and administration of one citewise service. */
export interface SearchEngine {
  /** Runs one search as the owner of `apiKey`. Throws {@link CitewiseError} (status and description). */
  search(request: SearchRequest, options: SearchCallOptions): Promise<SearchResponse>;
  /**
   * Runs one search with a streamed answer: `sources`, `delta`s, then `done` with the spec body (or `error`).
   * Errors before the stream starts (401, 429, 433, 503) are thrown. Stop iterating to cancel (refunded).
   */
  searchStream(request: SearchRequest, options: SearchCallOptions): Promise<AsyncIterable<SearchStreamEvent>>;
  /** Credits still available to the owner of `apiKey`. */
  balance(apiKey: string): Promise<BalanceResponse>;
  /** Handles one HTTP request of the /v1 API (what the adapters call). Never throws. */
  handle(request: ProtocolRequest): Promise<ProtocolResponse>;
  /** Creates an API key, opening its account with `credits` if the account is new. */
  createKey(options?: CreateKeyOptions): Promise<{ key: string; record: KeyRecord; accountCreated: boolean }>;
  /** Turns maintenance mode on or off (503 for every /v1 request while on). */
  setMaintenance(on: boolean): void;
  readonly stores: {
    readonly keys: KeyStore;
    readonly credits: CreditStore;
    readonly rateLimiter: RateLimiter | null;
  };
  /** Closes stores and stages that hold resources. */
  close(): Promise<void>;
}

/** Call options of one search, with its deadline and the function that releases its timer. */
type SearchCall = CallOptions & { readonly deadline: number; done(): void };

const DEFAULT_RATE_LIMIT: RateLimitOptions = { limit: 60, windowMs: 60_000 };

/**
 * `RateLimit` and `RateLimit-Policy` headers (IETF draft-ietf-httpapi-ratelimit-headers): remaining quota
 * and seconds until it is replenished; the policy when the window is known.
 */
function rateLimitHeaders(
  result: RateLimitResult,
  policy: RateLimitOptions | undefined,
): Record<string, string> {
  const resetSeconds = Math.max(0, Math.ceil((result.resetAt - Date.now()) / 1000));
  return {
    ratelimit: `"per-key";r=${Math.max(0, Math.floor(result.remaining))};t=${resetSeconds}`,
    ...(policy
      ? { 'ratelimit-policy': `"per-key";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}` }
      : {}),
  };
}

const NO_LOGGER: Logger = { info() {}, warn() {}, error() {} };

/** Creates a search engine. With no options it answers from the project's docs with in-memory stores. */
export function createSearchEngine(options: SearchEngineOptions = {}): SearchEngine {
  const creditCost = options.creditCost ?? 1;
  if (!Number.isSafeInteger(creditCost) || creditCost < 0) {
    throw new RangeError(`creditCost must be a non-negative integer, got ${String(creditCost)}`);
  }
  const maxConcurrent = positiveInteger('maxConcurrentSearches', options.maxConcurrentSearches, 8);
  const maxQueued = nonNegativeInteger('maxQueuedSearches', options.maxQueuedSearches, 64);
  const requestTimeoutMs = positiveInteger('requestTimeoutMs', options.requestTimeoutMs, 30_000);
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes, 1_048_576);
  const settings = {
    maxResults: positiveInteger('maxResults', options.maxResults, 5),
    expandToResults: positiveInteger('expandToResults', options.expandToResults, DEFAULT_EXPAND_TO_RESULTS),
    minQueryCoverage: fraction('minQueryCoverage', options.minQueryCoverage, DEFAULT_MIN_QUERY_COVERAGE),
    maxPassageTokens: positiveInteger('maxPassageTokens', options.maxPassageTokens, 4_000),
    pageTimeoutMs: positiveInteger('pageTimeoutMs', options.pageTimeoutMs, 8_000),
  };
  const logger = options.logger ?? NO_LOGGER;

  const keys = options.keys ?? createMemoryKeyStore();
  const credits = options.credits ?? createMemoryCreditStore();
  const rateLimiter =
    options.rateLimiter === false
      ? null
      : (options.rateLimiter ?? createMemoryRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT));
  const idempotency =
    options.idempotency === false ? undefined : (options.idempotency ?? createMemoryIdempotencyStore());
  const planner =
    options.planner ?? modelPlanner(options.queryModel ?? options.model, stageTelemetry(options, 'plan'));
  // `response_type: "json"` needs an answerer that writes structured output (the model answerer does).
  const structuredOutput = options.answerer
    ? options.answerer.structuredOutput === true
    : options.model !== undefined;
  const bm25 = options.ranker ?? createBm25Ranker();
  const stages: PipelineStages = {
    ...(planner ? { planner } : {}),
    search: options.search ?? createLocalIndexProvider({ paths: options.corpus ?? [DEFAULT_CORPUS] }),
    ranker: options.embeddingModel
      ? createEmbeddingReranker({ inner: bm25, model: options.embeddingModel })
      : bm25,
    answerer: options.answerer ?? defaultAnswerer(options),
    ...(options.fetcher === false ? {} : { fetcher: options.fetcher ?? lazyPageFetcher() }),
    ...(options.extractor === false ? {} : { extractor: options.extractor ?? lazyContentExtractor() }),
  };
  const queue = new PQueue({ concurrency: maxConcurrent });
  let maintenance = options.maintenance ?? false;

  const service: ProtocolService = {
    maxBodyBytes,
    assertAvailable() {
      if (maintenance) {
        throw new CitewiseError('service_unavailable', 'maintenance mode', {
          description: 'Service Unavailable: down for maintenance',
          retryAfterMs: 60_000,
        });
      }
    },
    async authenticate(apiKey) {
      const record = apiKey ? await keys.verify(apiKey) : null;
      if (!record) throw new CitewiseError('invalid_api_key');
      return record;
    },
    async enforceRateLimit(key) {
      if (!rateLimiter) return {};
      const result = await rateLimiter.consume(`key:${key.id}`);
      const headers = rateLimitHeaders(
        result,
        options.rateLimit ?? (options.rateLimiter ? undefined : DEFAULT_RATE_LIMIT),
      );
      if (!result.allowed) {
        throw new CitewiseError('rate_limited', undefined, { retryAfterMs: result.retryAfterMs, headers });
      }
      return headers;
    },
    idempotency,
    async balance(key) {
      return { available_credits: await credits.balance(key.accountId) };
    },
    runSearch,
    runSearchStream,
    ...(options.metrics?.observeRequest
      ? { observeRequest: options.metrics.observeRequest.bind(options.metrics) }
      : {}),
    reportError(error, info) {
      if (error.status >= 500) {
        logger.error(
          { requestId: info.requestId, code: error.code, err: error.cause ?? error },
          error.message,
        );
      }
    },
  };

  /**
   * Refuses when overloaded, then reserves the search's credits. Returns the search's call options; the
   * caller must call `done()` when the search settles (it clears the deadline timer).
   */
  async function reserveSearch(key: KeyRecord, info: RequestInfo): Promise<SearchCall> {
    if (queue.pending >= maxConcurrent && queue.size >= maxQueued) {
      throw new CitewiseError('service_unavailable', 'search queue full', {
        description: 'Service Unavailable: too many searches in progress, retry shortly',
        retryAfterMs: 1_000,
      });
    }
    // A timer cleared on settlement, not AbortSignal.timeout(), which would hold every finished search's
    // signal in memory until its deadline.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('search deadline passed', 'TimeoutError')),
      requestTimeoutMs,
    );
    const call: SearchCall = {
      signal: AbortSignal.any([info.signal, deadline.signal]),
      requestId: info.requestId,
      deadline: Date.now() + requestTimeoutMs,
      done: () => clearTimeout(timer),
    };
    try {
      // Reserve before any work; exactly one of commit/refund settles it.
      await credits.reserve({
        account: key.accountId,
        id: info.requestId,
        amount: creditCost,
        ttlMs: requestTimeoutMs + 60_000,
      });
    } catch (error) {
      call.done();
      throw error;
    }
    return call;
  }

  async function runSearch(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
  ): Promise<SearchResponse> {
    assertAnswerable(request);
    const call = await reserveSearch(key, info);
    let result: PipelineResult;
    try {
      result = await queue.add(() => runPipeline(request, stages, settings, call), { signal: call.signal });
    } catch (thrown) {
      await settle(() => credits.refund(info.requestId), info, 'refund', key);
      const error = pipelineError(thrown, call.signal);
      observeSearch(info, false, error);
      throw error;
    } finally {
      call.done();
    }
    await settle(() => credits.commit(info.requestId), info, 'commit', key);
    observeSearch(info, false, undefined, result.timings);
    return responseBody(key, request, result, info);
  }

  async function runSearchStream(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
  ): Promise<AsyncIterable<SearchStreamEvent>> {
    assertAnswerable(request);
    const call = await reserveSearch(key, info);
    return streamSearch(key, request, info, call);
  }

  /**
   * The streamed search, after its credits are reserved. It commits just before the `done` event and
   * refunds on failure, and also when the consumer stops early (a client that disconnected).
   */
  async function* streamSearch(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
    call: SearchCall,
  ): AsyncGenerator<SearchStreamEvent> {
    let release: (() => void) | undefined;
    let settled = false;
    try {
      release = await acquireSlot(call.signal);
      let passages: readonly Passage[] = [];
      const events = streamPipeline(request, stages, settings, call, (selected) => (passages = selected));
      for await (const event of events) {
        if (event.type !== 'done') {
          yield event;
          continue;
        }
        settled = true;
        await settle(() => credits.commit(info.requestId), info, 'commit', key);
        observeSearch(info, true);
        const result = { answer: event.answer, sources: [...event.sources], passages };
        yield { type: 'done', body: await responseBody(key, request, result, info) };
      }
    } catch (thrown) {
      if (!settled) {
        settled = true;
        await settle(() => credits.refund(info.requestId), info, 'refund', key);
      }
      const error = pipelineError(thrown, call.signal);
      service.reportError(error, info);
      observeSearch(info, true, error);
      yield { type: 'error', error: errorBody(error).error };
    } finally {
      call.done();
      release?.();
      if (!settled) await settle(() => credits.refund(info.requestId), info, 'refund', key);
    }
  }

  /** Refuses, before any charge, a request the configured answerer cannot answer. */
  function assertAnswerable(request: NormalizedSearchRequest): void {
    if (request.jsonSchema && !structuredOutput) {
      const description =
        'Invalid request: response_type "json" needs a model (start the service with --model)';
      throw new CitewiseError('invalid_request', description, { description });
    }
  }

  /** Waits for a search slot and holds it until the returned function is called. */
  function acquireSlot(signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      queue.add(() => new Promise<void>((done) => resolve(done)), { signal }).catch(reject);
    });
  }

  /** The spec body, plus the fields the request asked for with `include`. */
  async function responseBody(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    result: Pick<PipelineResult, 'answer' | 'sources' | 'passages'> & { timings?: StageTimings },
    info: RequestInfo,
  ): Promise<SearchResponse> {
    const responseTime = Math.round(performance.now() - info.startedAt);
    const body: SearchResponse = {
      answer: result.answer,
      response_type: request.jsonSchema ? 'json' : request.responseType,
      sources: result.sources,
      response_time: responseTime,
    };
    if (request.include.includes('citations')) body.citations = citationsOf(result.sources, result.passages);
    if (request.include.includes('usage')) {
      body.usage = { credits_charged: creditCost, credits_remaining: await credits.balance(key.accountId) };
    }
    if (request.include.includes('timings')) body.timings = { ...result.timings, total: responseTime };
    return body;
  }

  /** Reports a settled search to the opt-in metrics hook. */
  function observeSearch(
    info: RequestInfo,
    stream: boolean,
    error?: CitewiseError,
    timings?: StageTimings,
  ): void {
    options.metrics?.observeSearch?.({
      outcome: error ? 'error' : 'success',
      stream,
      creditsCharged: error ? 0 : creditCost,
      durationMs: performance.now() - info.startedAt,
      ...(timings ? { timings } : {}),
      ...(error ? { errorCode: error.code } : {}),
    });
  }

  /** A failed settlement must not turn a delivered answer into an error; the hold lapses after its TTL. */
  async function settle(
    action: () => Promise<boolean>,
    info: RequestInfo,
    what: 'commit' | 'refund',
    key: KeyRecord,
  ): Promise<void> {
    try {
      if (await action()) {
        options.usage?.recordSearch({
          accountId: key.accountId,
          keyId: key.id,
          kind: what === 'commit' ? 'charge' : 'refund',
          credits: creditCost,
        });
      }
    } catch (error) {
      logger.error({ requestId: info.requestId, err: error }, `credit ${what} failed`);
    }
  }

  /** The checks a library search passes before its body: maintenance, key, rate limit (as over HTTP). */
  async function admitSearch(apiKey: string): Promise<KeyRecord> {
    service.assertAvailable();
    const key = await service.authenticate(apiKey);
    await service.enforceRateLimit(key);
    return key;
  }

  function newRequestInfo(signal: AbortSignal | undefined): RequestInfo {
    return {
      requestId: randomUUID(),
      startedAt: performance.now(),
      signal: signal ?? new AbortController().signal,
    };
  }

  return {
    async search(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const key = await admitSearch(apiKey);
      return runSearch(key, parseSearchRequest(request), info);
    },
    async searchStream(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const key = await admitSearch(apiKey);
      return runSearchStream(key, parseSearchRequest(request), info);
    },
    async balance(apiKey) {
      service.assertAvailable();
      return service.balance(await service.authenticate(apiKey));
    },
    handle: (request) => handleProtocolRequest(service, request),
    async createKey(input = {}) {
      const accountId = input.accountId ?? `acct_${randomBytes(6).toString('hex')}`;
      const accountCreated = await credits.openAccount(accountId, input.credits ?? FREE_CREDITS);
      const created = await keys.create({
        accountId,
        name: input.name ?? null,
        expiresAt: input.expiresAt ?? null,
      });
      return { ...created, accountCreated };
    },
    setMaintenance(on) {
      maintenance = on;
    },
    stores: { keys, credits, rateLimiter },
    async close() {
      queue.clear();
      await Promise.all([
        keys.close?.(),
        credits.close?.(),
        rateLimiter?.close?.(),
        stages.search.close?.(),
        stages.fetcher?.close?.(),
        stages.extractor?.close?.(),
      ]);
    },
  };
}

/** The engine's telemetry settings for one stage: function id `<functionId or citewise>.<stage>`. */
function stageTelemetry(
  options: SearchEngineOptions,
  stage: 'answer' | 'plan',
): ModelTelemetrySettings | undefined {
  if (!options.telemetry) return undefined;
  return { ...options.telemetry, functionId: `${options.telemetry.functionId ?? 'citewise'}.${stage}` };
}

/** The model answerer when a model is given (with the extractive one as fallback if asked), else extractive. */
function defaultAnswerer(options: SearchEngineOptions): Answerer {
  const extractive = createExtractiveAnswerer();
  if (!options.model) return extractive;
  const telemetry = stageTelemetry(options, 'answer');
  const model = createModelAnswerer({
    model: options.model,
    ...(telemetry ? { telemetry } : {}),
    ...(options.modelFallback ? { fallback: extractive } : {}),
  });
  // The model answerer retries within the deadline itself; the wrapper adds a circuit breaker, so a model
  // that is down answers 503 at once instead of every request waiting for its retries.
  return withAnswererResilience(model, { retries: 0, upstream: 'model' });
}

/**
 * With a model, follow-ups are rewritten by it and `deep` requests get its sub-queries; a plain first
 * question is searched as written, saving a model call.
 */
function modelPlanner(
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

function lazyPageFetcher(): PageFetcher {
  let fetcher: PageFetcher | undefined;
  return {
    fetch: (url, call) => (fetcher ??= createPageFetcher()).fetch(url, call),
    close: async () => fetcher?.close?.(),
  };
}

function lazyContentExtractor(): ContentExtractor {
  let extractor: ContentExtractor | undefined;
  return {
    extract: (page, call) => (extractor ??= createContentExtractor()).extract(page, call),
    close: async () => extractor?.close?.(),
  };
}

/** Each cited source with the best passage of it that the answerer was given. */
function citationsOf(sources: readonly string[], passages: readonly Passage[]): Citation[] {
  return sources.map((url, index) => {
    const passage = passages.find((p) => p.url === url);
    return { index: index + 1, url, title: passage?.title ?? '', quote: passage?.text ?? '' };
  });
}

/** A client that went away or a deadline that passed is not the pipeline's fault: say what happened. */
function pipelineError(thrown: unknown, signal: AbortSignal): CitewiseError {
  if (signal.aborted && !(thrown instanceof CitewiseError)) {
    return new CitewiseError('timeout', 'search aborted or past its deadline', { cause: signal.reason });
  }
  return toCitewiseError(thrown);
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return resolved;
}

function fraction(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !(resolved >= 0 && resolved <= 1)) {
    throw new RangeError(`${name} must be between 0 and 1, got ${String(value)}`);
  }
  return resolved;
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return resolved;
}
