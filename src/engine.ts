/**
 * createSearchEngine(): wires the stores and the pipeline, and exposes the service as a library call
 * (`search`, `balance`), as a framework-agnostic HTTP handler (`handle`, used by every adapter) and as
 * account administration (`createKey`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CitewiseError, errorBody, toCitewiseError } from './errors.ts';
import {
  handleProtocolRequest,
  type ProtocolRequest,
  type ProtocolResponse,
  type IdempotencySettings,
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
  DEFAULT_MAX_LATENCY_MS,
  DEFAULT_MIN_QUERY_COVERAGE,
  DEFAULT_STRAGGLER_GRACE_MS,
  runPipeline,
  streamPipeline,
  type PipelineResult,
  type PipelineStages,
  type PipelinePlanner,
  type StageTimings,
} from './pipeline/run.ts';
import { createLocalIndexProvider, normalizePublicUrl } from './pipeline/search/local-index.ts';
import { createDocumentServer } from './http/docs.ts';
import type {
  Answerer,
  ContentExtractor,
  PageFetcher,
  Passage,
  PassageRanker,
  SearchProvider,
} from './pipeline/types.ts';
import { createFairScheduler } from './engine/fair-scheduler.ts';
import { createMoneyPath } from './engine/money-path.ts';
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
import { fraction, nonNegativeInteger, positiveInteger } from './options.ts';

/**
 * Defaults of {@link createSearchEngine}'s options, written once: the engine applies them, and the CLI's
 * settings table (`citewise serve`, the configuration page) shows and uses the same values.
 */
export const ENGINE_DEFAULTS = {
  /** Credits a new account receives (the spec's free allowance). */
  freeCredits: 1000,
  creditCost: 1,
  rateLimit: { limit: 60, windowMs: 60_000 },
  maxConcurrentSearches: 8,
  maxQueuedSearches: 64,
  maxAccountShare: 0.5,
  requestTimeoutMs: 30_000,
  pageTimeoutMs: 8_000,
  maxResults: 5,
  expandToResults: DEFAULT_EXPAND_TO_RESULTS,
  minQueryCoverage: DEFAULT_MIN_QUERY_COVERAGE,
  maxPassageTokens: 4_000,
  maxLatencyMs: DEFAULT_MAX_LATENCY_MS,
  stragglerGraceMs: DEFAULT_STRAGGLER_GRACE_MS,
  maxBodyBytes: 1_048_576,
  maintenance: false,
  modelFallback: false,
} as const satisfies Readonly<Record<string, unknown>>;
import type { UsageRecorder } from './stores/accounts/types.ts';

/** Credits a new account receives (the spec's free allowance). */
export const FREE_CREDITS = ENGINE_DEFAULTS.freeCredits;

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
  /**
   * Folders indexed by the default local search provider and served read-only by `handle()` at
   * `GET /docs/<path>` (the first folder at `/docs/`, the second at `/docs/2/`, …).
   * @default [DEFAULT_CORPUS] (the project's docs/); none served when a `search` provider is given
   */
  readonly corpus?: readonly string[];
  /**
   * Where clients reach this service (with the mount path of an adapter, if any), e.g.
   * `https://search.example.com`: the sources of corpus documents are `<publicUrl>/docs/<path>`, never
   * file paths. An absolute http(s) URL. @default 'http://localhost'
   */
  readonly publicUrl?: string;
  /**
   * Files outside `corpus` that `GET /docs/<path>` serves too, by their exact path below `/docs/`: pass
   * the `indexedFile` of a local index provider whose `indexFiles` hold folders (`citewise index`).
   * @default none
   */
  readonly indexedFiles?: (encodedPath: string) => string | undefined;
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
   * charging again; `false` ignores the header. Several instances behind one load balancer need a shared
   * store (Redis or PostgreSQL, see `citewise/redis` and `citewise/postgres`).
   * @default an in-memory store (10,000 keys)
   */
  readonly idempotency?: IdempotencyStore | false;
  /** How long a completed response is replayed for a retry with the same Idempotency-Key. @default 86_400_000 (24 h) */
  readonly idempotencyTtlMs?: number;
  /** Credits charged per successful search (a non-negative integer). @default 1 */
  readonly creditCost?: number;
  /** Searches running at once; more wait in a queue. @default 8 */
  readonly maxConcurrentSearches?: number;
  /** Searches allowed to wait; past this, 503. @default 64 */
  readonly maxQueuedSearches?: number;
  /**
   * Largest share (0–1] of the running searches, and of the waiting ones, that one account may hold; a freed
   * slot goes to the waiting account running the fewest (among equals, in turn), so one tenant cannot keep
   * the others waiting. 1 lets one account use every slot (a single-tenant service).
   * @default 0.5
   */
  readonly maxAccountShare?: number;
  /** Deadline of one search, queueing included, in ms. @default 30_000 */
  readonly requestTimeoutMs?: number;
  /** Time allowed to fetch and extract one page, in ms. @default 8_000 */
  readonly pageTimeoutMs?: number;
  /**
   * Time after a request arrived by which the pipeline stops waiting for pages and answers from those
   * that arrived (the others from their search snippets), in ms. A request's `max_latency_ms` replaces it.
   * @default 2_000
   */
  readonly maxLatencyMs?: number;
  /**
   * Most time the last pages of a batch are waited for once 80 % of them arrived, in ms: a hung page
   * costs this, not the page timeout.
   * @default 400
   */
  readonly stragglerGraceMs?: number;
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
  /**
   * Largest request body in bytes, after decoding (the /v1 limit; MCP uses the same), e.g. for a host
   * framework's body parser.
   */
  readonly maxBodyBytes: number;
  /** Creates an API key, opening its account with `credits` if the account is new. */
  createKey(options?: CreateKeyOptions): Promise<{ key: string; record: KeyRecord; accountCreated: boolean }>;
  /** Turns maintenance mode on or off (503 for every /v1 request while on). */
  setMaintenance(on: boolean): void;
  /**
   * Starts the extraction workers and loads their modules now, so that the first search that reads web
   * pages does not pay for it (`citewise serve` calls it at start when a web search provider is used).
   */
  warm(): Promise<void>;
  readonly stores: {
    readonly keys: KeyStore;
    readonly credits: CreditStore;
    readonly rateLimiter: RateLimiter | null;
  };
  /** Closes stores and stages that hold resources. */
  close(): Promise<void>;
}

const DEFAULT_RATE_LIMIT: RateLimitOptions = ENGINE_DEFAULTS.rateLimit;

/** The base of corpus document URLs when no `publicUrl` is given. */
const DEFAULT_PUBLIC_URL = 'http://localhost';

/** How long `GET /readyz` waits for each store's ping. */
const READINESS_TIMEOUT_MS = 2_000;

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

const MAINTENANCE_MESSAGE = 'maintenance mode';

/** Waits for `work` (nothing to wait for when undefined), rejecting after `ms`. */
async function withTimeout(work: Promise<void> | undefined, ms: number, message: string): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates a search engine. With no options it answers from the project's docs with in-memory stores. */
export function createSearchEngine(options: SearchEngineOptions = {}): SearchEngine {
  const defaults = ENGINE_DEFAULTS;
  const creditCost = nonNegativeInteger('creditCost', options.creditCost, defaults.creditCost);
  const maxConcurrent = positiveInteger(
    'maxConcurrentSearches',
    options.maxConcurrentSearches,
    defaults.maxConcurrentSearches,
  );
  const maxQueued = nonNegativeInteger(
    'maxQueuedSearches',
    options.maxQueuedSearches,
    defaults.maxQueuedSearches,
  );
  const requestTimeoutMs = positiveInteger(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    defaults.requestTimeoutMs,
  );
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes, defaults.maxBodyBytes);
  const settings = {
    maxResults: positiveInteger('maxResults', options.maxResults, defaults.maxResults),
    expandToResults: positiveInteger('expandToResults', options.expandToResults, defaults.expandToResults),
    minQueryCoverage: fraction('minQueryCoverage', options.minQueryCoverage, defaults.minQueryCoverage),
    maxPassageTokens: positiveInteger(
      'maxPassageTokens',
      options.maxPassageTokens,
      defaults.maxPassageTokens,
    ),
    pageTimeoutMs: positiveInteger('pageTimeoutMs', options.pageTimeoutMs, defaults.pageTimeoutMs),
    maxLatencyMs: positiveInteger('maxLatencyMs', options.maxLatencyMs, defaults.maxLatencyMs),
    stragglerGraceMs: nonNegativeInteger(
      'stragglerGraceMs',
      options.stragglerGraceMs,
      defaults.stragglerGraceMs,
    ),
  };
  const logger = options.logger ?? NO_LOGGER;
  const publicUrl = normalizePublicUrl(options.publicUrl ?? DEFAULT_PUBLIC_URL);
  const corpus = options.corpus ?? (options.search ? [] : [DEFAULT_CORPUS]);
  const serveDocument = createDocumentServer(corpus, options.indexedFiles);

  const keys = options.keys ?? createMemoryKeyStore();
  const credits = options.credits ?? createMemoryCreditStore();
  const rateLimiter =
    options.rateLimiter === false
      ? null
      : (options.rateLimiter ?? createMemoryRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT));
  const idempotencyTtlMs = positiveInteger('idempotencyTtlMs', options.idempotencyTtlMs, 86_400_000);
  const idempotencyStore =
    options.idempotency === false ? undefined : (options.idempotency ?? createMemoryIdempotencyStore());
  const idempotency: IdempotencySettings | undefined = idempotencyStore && {
    store: idempotencyStore,
    // As long as the credit reservation: a claim outlives its search, and lapses if its instance died.
    leaseMs: requestTimeoutMs + 60_000,
    ttlMs: idempotencyTtlMs,
    // A retry waits as long as the first search may run.
    waitMs: requestTimeoutMs,
  };
  const planner =
    options.planner ?? modelPlanner(options.queryModel ?? options.model, stageTelemetry(options, 'plan'));
  // `response_type: "json"` needs an answerer that writes structured output (the model answerer does).
  const structuredOutput = options.answerer
    ? options.answerer.structuredOutput === true
    : options.model !== undefined;
  const bm25 = options.ranker ?? createBm25Ranker();
  const stages: PipelineStages = {
    ...(planner ? { planner } : {}),
    search: options.search ?? createLocalIndexProvider({ paths: corpus, publicUrl }),
    ranker: options.embeddingModel
      ? createEmbeddingReranker({ inner: bm25, model: options.embeddingModel })
      : bm25,
    answerer: options.answerer ?? defaultAnswerer(options),
    ...(options.fetcher === false ? {} : { fetcher: options.fetcher ?? lazyPageFetcher() }),
    ...(options.extractor === false ? {} : { extractor: options.extractor ?? lazyContentExtractor() }),
  };
  // Admission to a fair slot, the credit hold, and its commit or refund: one path for every search.
  const scheduler = createFairScheduler({
    concurrency: maxConcurrent,
    maxQueued,
    maxAccountShare: options.maxAccountShare ?? defaults.maxAccountShare,
  });
  const moneyPath = createMoneyPath({
    credits,
    scheduler,
    creditCost,
    requestTimeoutMs,
    onSettleError: (error, requestId, action) =>
      logger.error({ requestId, err: error }, `credit ${action} failed`),
    ...(options.usage
      ? {
          onSettled: (target, action, amount) => {
            if (target.keyId === undefined) return;
            options.usage?.recordSearch({
              accountId: target.account,
              keyId: target.keyId,
              kind: action === 'commit' ? 'charge' : 'refund',
              credits: amount,
            });
          },
        }
      : {}),
  });
  let maintenance = options.maintenance ?? defaults.maintenance;
  // The policy announced in `RateLimit-Policy`: the option, else what the limiter says it enforces.
  const rateLimitPolicy = options.rateLimit ?? rateLimiter?.policy;

  const service: ProtocolService = {
    maxBodyBytes,
    assertAvailable() {
      if (maintenance) {
        throw new CitewiseError('service_unavailable', MAINTENANCE_MESSAGE, {
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
      const headers = rateLimitHeaders(result, rateLimitPolicy);
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
    checkReadiness,
    serveDocument,
    observeRequest(observation) {
      options.metrics?.observeRequest?.(observation);
      // The access log: one line per request; never the key nor the request body.
      const { method, route, status, durationMs, requestId, keyId, errorCode } = observation;
      logger.info(
        {
          method,
          route,
          status,
          durationMs: Math.round(durationMs * 10) / 10,
          requestId,
          keyId: keyId ?? null,
          ...(errorCode ? { errorCode } : {}),
        },
        'request',
      );
    },
    reportError(error, info) {
      if (error.status < 500) return;
      if (error.status === 503) {
        // An expected state (maintenance, overload, an upstream circuit open), not a bug: no stack.
        // Maintenance is the operator's own doing: the access line (status 503) says enough.
        if (error.message !== MAINTENANCE_MESSAGE) {
          logger.warn({ requestId: info.requestId, code: error.code }, error.message);
        }
        return;
      }
      logger.error({ requestId: info.requestId, code: error.code, err: error.cause ?? error }, error.message);
    },
  };

  /** Pings every store; throws 503 naming those that did not answer within {@link READINESS_TIMEOUT_MS}. */
  async function checkReadiness(): Promise<void> {
    const probes: [string, { ping?(): Promise<void> } | null][] = [
      ['key store', keys],
      ['credit store', credits],
      ['rate limiter', rateLimiter],
    ];
    const failed = (
      await Promise.all(
        probes.map(async ([name, store]) => {
          try {
            await withTimeout(store?.ping?.(), READINESS_TIMEOUT_MS, `${name} did not answer`);
            return null;
          } catch (error) {
            logger.warn({ err: error }, `not ready: ${name} unreachable`);
            return name;
          }
        }),
      )
    ).filter((name) => name !== null);
    if (failed.length > 0) {
      throw new CitewiseError('service_unavailable', `not ready: ${failed.join(', ')} unreachable`, {
        description: `Service Unavailable: ${failed.join(', ')} unreachable`,
      });
    }
  }

  async function runSearch(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
  ): Promise<SearchResponse> {
    assertAnswerable(request);
    let signal = info.signal;
    let result: PipelineResult;
    try {
      result = await moneyPath.run(
        chargeTarget(key, info),
        (call) => {
          signal = call.signal;
          return runPipeline(request, stages, settings, call);
        },
        (found) => isChargeable(found.sources),
      );
    } catch (thrown) {
      const error = pipelineError(thrown, signal);
      observeSearch(info, false, error);
      throw error;
    }
    const charged = isChargeable(result.sources) ? creditCost : 0;
    observeSearch(info, false, undefined, result.timings, charged);
    return responseBody(key, request, result, info, charged);
  }

  /**
   * A streamed search: admitted (and charged) like a plain one, committed just before the `done` event,
   * refunded on failure and when the consumer stops early (a client that disconnected).
   */
  async function runSearchStream(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    info: RequestInfo,
  ): Promise<AsyncIterable<SearchStreamEvent>> {
    assertAnswerable(request);
    let signal = info.signal;
    let passages: readonly Passage[] = [];
    const events = await moneyPath.stream(
      chargeTarget(key, info),
      (call) => {
        signal = call.signal;
        return streamPipeline(request, stages, settings, call, (selected) => (passages = selected));
      },
      (event) => event.type === 'done',
      (event) => event.type === 'done' && isChargeable(event.sources),
    );
    return (async function* respond(): AsyncGenerator<SearchStreamEvent> {
      try {
        for await (const event of events) {
          if (event.type !== 'done') {
            yield event;
            continue;
          }
          const charged = isChargeable(event.sources) ? creditCost : 0;
          observeSearch(info, true, undefined, undefined, charged);
          const result = { answer: event.answer, sources: [...event.sources], passages };
          yield { type: 'done', body: await responseBody(key, request, result, info, charged) };
        }
      } catch (thrown) {
        const error = pipelineError(thrown, signal);
        service.reportError(error, info);
        observeSearch(info, true, error);
        yield { type: 'error', error: errorBody(error).error };
      }
    })();
  }

  /** Refuses, before any charge, a request the configured answerer cannot answer. */
  function assertAnswerable(request: NormalizedSearchRequest): void {
    if (request.jsonSchema && !structuredOutput) {
      const description =
        'Invalid request: response_type "json" needs a model (start the service with --model)';
      throw new CitewiseError('invalid_request', description, { description });
    }
  }

  /** The spec body, plus the fields the request asked for with `include`. */
  async function responseBody(
    key: KeyRecord,
    request: NormalizedSearchRequest,
    result: Pick<PipelineResult, 'answer' | 'sources' | 'passages'> & { timings?: StageTimings },
    info: RequestInfo,
    charged: number,
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
      body.usage = { credits_charged: charged, credits_remaining: await credits.balance(key.accountId) };
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
    charged = 0,
  ): void {
    options.metrics?.observeSearch?.({
      outcome: error ? 'error' : 'success',
      stream,
      creditsCharged: charged,
      durationMs: performance.now() - info.startedAt,
      ...(timings ? { timings } : {}),
      ...(error ? { errorCode: error.code } : {}),
    });
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
    maxBodyBytes,
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
    async warm() {
      await stages.extractor?.warm?.();
    },
    stores: { keys, credits, rateLimiter },
    async close() {
      scheduler.close();
      await Promise.all([
        keys.close?.(),
        credits.close?.(),
        rateLimiter?.close?.(),
        idempotencyStore?.close?.(),
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
    ...((options.modelFallback ?? ENGINE_DEFAULTS.modelFallback) ? { fallback: extractive } : {}),
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
    warm: async () => (extractor ??= createContentExtractor()).warm?.(),
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

/** Who pays for a search: the key's account, held under the request id. */
function chargeTarget(key: KeyRecord, info: RequestInfo) {
  // The latency budget counts from the request's arrival, queueing included.
  const arrivedAt = Date.now() - (performance.now() - info.startedAt);
  return { account: key.accountId, keyId: key.id, requestId: info.requestId, signal: info.signal, arrivedAt };
}

/** A search is charged only when its answer has sources: finding nothing costs nothing. */
function isChargeable(sources: readonly string[]): boolean {
  return sources.length > 0;
}

/** A client that went away or a deadline that passed is not the pipeline's fault: say what happened. */
function pipelineError(thrown: unknown, signal: AbortSignal): CitewiseError {
  if (signal.aborted && !(thrown instanceof CitewiseError)) {
    return new CitewiseError('timeout', 'search aborted or past its deadline', { cause: signal.reason });
  }
  return toCitewiseError(thrown);
}
