/**
 * createSearchEngine(): wires the stores and the pipeline, and exposes the service as a library call
 * (`search`, `balance`), as a framework-agnostic HTTP handler (`handle`, used by every adapter) and as
 * account administration (`createKey`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { normalizeTavilyPrefix } from './http/compat/tavily.ts';
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
  type NormalizedSearchRequest,
  type SearchRequest,
  type SearchResponse,
  type SearchStreamEvent,
} from './http/schema.ts';
import { runPipeline, streamPipeline, type PipelineResult, type StageTimings } from './pipeline/run.ts';
import { normalizePublicUrl } from './pipeline/search/local-index.ts';
import { createDocumentServer } from './http/docs.ts';
import type { ExtractedContent, Passage } from './pipeline/types.ts';
import { chargeTarget, isChargeable, recordUsageOf } from './engine/billing.ts';
import { isExtracted, readPages } from './engine/extract.ts';
import {
  parseExtractRequest,
  type ExtractRequest,
  type ExtractResponse,
  type NormalizedExtractRequest,
} from './http/extract.ts';
import { createFairScheduler } from './engine/fair-scheduler.ts';
import { createMoneyPath } from './engine/money-path.ts';
import {
  DEFAULT_CORPUS,
  ENGINE_DEFAULTS,
  FREE_CREDITS,
  type CreateKeyOptions,
  type Logger,
  type SearchCallOptions,
  type SearchEngineOptions,
} from './engine/options.ts';
import {
  groundingFields,
  groundingOf,
  pipelineError,
  rateLimitHeaders,
  searchResultsOf,
  ungroundedError,
  type AnsweredSearch,
} from './engine/response.ts';
import type { GroundingCheck } from './pipeline/answer/grounding.ts';
import { buildStages } from './engine/stages.ts';
import { createMemoryCreditStore } from './stores/memory/credit-store.ts';
import { createMemoryKeyStore } from './stores/memory/key-store.ts';
import { createMemoryRateLimiter } from './stores/memory/rate-limiter.ts';
import type { CreditStore, KeyRecord, KeyStore, RateLimiter, RateLimitOptions } from './stores/types.ts';
import { createMemoryIdempotencyStore } from './http/idempotency.ts';
import { fraction, nonNegativeInteger, positiveInteger } from './options.ts';

// The options and their defaults live in engine/options.ts; this module's importers keep their path.
export { DEFAULT_CORPUS, ENGINE_DEFAULTS, FREE_CREDITS };
export type { CreateKeyOptions, Logger, SearchCallOptions, SearchEngineOptions };

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
  /**
   * Reads up to 20 pages as the owner of `apiKey` (`POST /v1/extract`): clean content, title, date and
   * page type per URL, or the reason it failed. Charges `extractCreditCost` per page read.
   */
  extract(request: ExtractRequest, options: SearchCallOptions): Promise<ExtractResponse>;
  /** Handles one HTTP request of the /v1 API (what the adapters call). Never throws. */
  handle(request: ProtocolRequest): Promise<ProtocolResponse>;
  /**
   * Largest request body in bytes, after decoding (the /v1 limit; MCP uses the same), e.g. for a host
   * framework's body parser.
   */
  readonly maxBodyBytes: number;
  /** Where the Tavily-compatible routes are served (`{prefix}/search`, `{prefix}/extract`), or `null`. */
  readonly tavilyPrefix: string | null;
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
  const extractCreditCost = nonNegativeInteger(
    'extractCreditCost',
    options.extractCreditCost,
    defaults.extractCreditCost,
  );
  if (options.strictGrounding !== undefined && typeof options.strictGrounding !== 'boolean')
    throw new TypeError('strictGrounding must be a boolean');
  const strictGrounding = options.strictGrounding ?? defaults.strictGrounding;
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
    minDeeperPageMentions: fraction(
      'minDeeperPageMentions',
      options.minDeeperPageMentions,
      defaults.minDeeperPageMentions,
    ),
    cheapResults: positiveInteger('cheapResults', options.cheapResults, defaults.cheapResults),
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
  const { stages, structuredOutput } = buildStages(options, corpus, publicUrl);
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
    ...(options.usage ? { onSettled: recordUsageOf(options.usage) } : {}),
  });
  let maintenance = options.maintenance ?? defaults.maintenance;
  // The policy announced in `RateLimit-Policy`: the option, else what the limiter says it enforces.
  const rateLimitPolicy = options.rateLimit ?? rateLimiter?.policy;

  const tavilyPrefix =
    options.tavilyPrefix === false
      ? null
      : normalizeTavilyPrefix(options.tavilyPrefix ?? defaults.tavilyPrefix);

  const service: ProtocolService = {
    maxBodyBytes,
    tavilyPrefix,
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
    runExtract,
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
    let grounding: GroundingCheck | undefined;
    try {
      result = await moneyPath.run(
        chargeTarget(key, info),
        async (call) => {
          signal = call.signal;
          const found = await runPipeline(request, stages, settings, call);
          grounding = checkGroundingOf(request, found);
          return found;
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
    return responseBody(key, request, result, info, charged, grounding);
  }

  /**
   * The grounding check of a finished search, when the response shows it or strict grounding needs it.
   * Under strict grounding, an answer citing sources none of which supports a sentence is refused (thrown
   * inside the money path, so it is refunded); an answer that says the sources hold none is returned.
   */
  function checkGroundingOf(
    request: NormalizedSearchRequest,
    found: Omit<AnsweredSearch, 'json'>,
  ): GroundingCheck | undefined {
    const strict = (request.grounding ?? (strictGrounding ? 'strict' : 'lenient')) === 'strict';
    if (!strict && !request.include.includes('citations')) return undefined;
    const check = groundingOf({ ...found, json: request.jsonSchema !== undefined });
    if (strict && isChargeable(found.sources) && check.report.level === 'none') throw ungroundedError();
    return check;
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
    let documents: readonly ExtractedContent[] = [];
    // Checked once, when the stream is done: before the hold is settled (a refused answer is refunded).
    let grounding: { check: GroundingCheck | undefined } | { refused: CitewiseError } | undefined;
    const groundingAtEnd = (event: { answer: string; sources: readonly string[] }) => {
      if (grounding === undefined) {
        try {
          grounding = { check: checkGroundingOf(request, { ...event, passages, documents }) };
        } catch (thrown) {
          grounding = { refused: toCitewiseError(thrown) };
        }
      }
      return grounding;
    };
    const events = await moneyPath.stream(
      chargeTarget(key, info),
      (call) => {
        signal = call.signal;
        return streamPipeline(request, stages, settings, call, (selected, read) => {
          passages = selected;
          documents = read;
        });
      },
      (event) => event.type === 'done',
      (event) =>
        event.type === 'done' && isChargeable(event.sources) && !('refused' in groundingAtEnd(event)),
    );
    return (async function* respond(): AsyncGenerator<SearchStreamEvent> {
      try {
        for await (const event of events) {
          if (event.type !== 'done') {
            yield event;
            continue;
          }
          const checked = groundingAtEnd(event);
          if ('refused' in checked) throw checked.refused;
          const charged = isChargeable(event.sources) ? creditCost : 0;
          observeSearch(info, true, undefined, undefined, charged);
          const result = { answer: event.answer, sources: [...event.sources], passages };
          const body = await responseBody(key, request, result, info, charged, checked.check);
          yield { type: 'done', body };
        }
      } catch (thrown) {
        const error = pipelineError(thrown, signal);
        service.reportError(error, info);
        observeSearch(info, true, error);
        yield { type: 'error', error: errorBody(error).error };
      }
    })();
  }

  /** `POST /v1/extract`: a hold for every URL, then a charge for each page read (failed pages are free). */
  async function runExtract(
    key: KeyRecord,
    request: NormalizedExtractRequest,
    info: RequestInfo,
  ): Promise<ExtractResponse> {
    const { fetcher, extractor } = stages;
    if (!fetcher || !extractor) {
      throw new CitewiseError('not_found', 'page fetching is off', {
        description: 'Not Found: this service does not fetch pages (its fetcher or extractor is turned off)',
      });
    }
    let signal = info.signal;
    let results: Awaited<ReturnType<typeof readPages>>;
    try {
      results = await moneyPath.run(
        { ...chargeTarget(key, info), amount: request.urls.length * extractCreditCost },
        (call) => {
          signal = call.signal;
          return readPages(request, { fetcher, extractor }, call, settings.pageTimeoutMs);
        },
        (read) => read.filter(isExtracted).length * extractCreditCost,
      );
    } catch (thrown) {
      throw pipelineError(thrown, signal);
    }
    return {
      results,
      credits_charged: results.filter(isExtracted).length * extractCreditCost,
      response_time: Math.round(performance.now() - info.startedAt),
    };
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
    grounding: GroundingCheck | undefined,
  ): Promise<SearchResponse> {
    const responseTime = Math.round(performance.now() - info.startedAt);
    const body: SearchResponse = {
      answer: result.answer,
      response_type: request.jsonSchema ? 'json' : request.responseType,
      sources: result.sources,
      response_time: responseTime,
    };
    if (request.include.includes('citations') && grounding) Object.assign(body, groundingFields(grounding));
    if (request.include.includes('search_results')) {
      body.search_results = searchResultsOf(result.sources, result.passages);
    }
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
    async extract(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const key = await admitSearch(apiKey);
      return runExtract(key, parseExtractRequest(request), info);
    },
    async balance(apiKey) {
      service.assertAvailable();
      return service.balance(await service.authenticate(apiKey));
    },
    handle: (request) => handleProtocolRequest(service, request),
    maxBodyBytes,
    tavilyPrefix,
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
