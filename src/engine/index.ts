/**
 * createSearchEngine(): one citewise service, wired from its options. Follow a request down and back:
 *
 *   adapter (adapters/*.ts: node, express, koa, fetch) → http/handler.ts (routes, body, errors)
 *     → engine/protocol.ts (maintenance, API key, rate limit) → engine/search.ts (or stream.ts, extract.ts)
 *     → engine/money-path.ts (credit hold, fair slot) → pipeline/run.ts (plan, search, read, rank, answer)
 *     ← engine/response.ts (grounding, the body) ← money path (commit or refund) ← handler (the response).
 *
 * A library call (`search`, `searchStream`, `extract`, `balance`) passes the same checks (protocol.ts
 * `admit`) and enters at the same module. Options and their defaults: engine/options.ts; the default
 * stages: engine/stages.ts; keys and accounts: engine/admin.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  handleProtocolRequest,
  type ProtocolRequest,
  type ProtocolService,
  type ProtocolResponse,
  type RequestInfo,
} from '../http/handler.ts';
import { parseExtractRequest, type ExtractRequest, type ExtractResponse } from '../contract/extract.ts';
import {
  parseSearchRequest,
  type BalanceResponse,
  type SearchRequest,
  type SearchResponse,
  type SearchStreamEvent,
} from '../contract/search.ts';
import { createDocumentServer } from '../http/docs.ts';
import { createMemoryIdempotencyStore } from '../contract/idempotency.ts';
import { createMemoryCreditStore } from '../stores/memory/credit-store.ts';
import { createMemoryKeyStore } from '../stores/memory/key-store.ts';
import { createMemoryRateLimiter } from '../stores/memory/rate-limiter.ts';
import type { CreditStore, KeyBudget, KeyRecord, KeyStore, RateLimiter } from '../stores/types.ts';
import { createKey, setKeyBudget } from './admin.ts';
import { createCreditsService, type CreditsService } from './credits.ts';
import { runExtract } from './extract.ts';
import { createFairScheduler } from '../scheduling/fair-scheduler.ts';
import { createMoneyPath } from './money-path.ts';
import {
  DEFAULT_CORPUS,
  ENGINE_DEFAULTS,
  FREE_CREDITS,
  resolveEngineOptions,
  type CreateKeyOptions,
  type Logger,
  type ResearchOptions,
  type SearchCallOptions,
  type SearchEngineOptions,
} from './options.ts';
import { CitewiseError } from '../errors.ts';
import { createErrorReporter, createProtocolService } from './protocol.ts';
import type { AddDocumentRequest, DocumentView } from '../contract/documents.ts';
import { createDocumentsService } from './documents.ts';
import { extractContent } from '../pipeline/extract/extract.ts';
import { runSearch, searchPrice, type SearchRuntime } from './search.ts';
import { createEngineResearch, type ResearchJobsApi } from '../jobs/engine.ts';
import { buildStages } from './stages.ts';
import { createOwnDocumentsProvider } from '../pipeline/search/own-documents.ts';
import { runSearchStream } from './stream.ts';
import { runPrepaid } from './prepaid.ts';

export { DEFAULT_CORPUS, ENGINE_DEFAULTS, FREE_CREDITS };
export type { CreateKeyOptions, Logger, ResearchOptions, SearchCallOptions, SearchEngineOptions };

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
   * page type per URL, or the reason it failed. Charges `extractCreditCost` per page read (and
   * `extractFailedShare` of it per page requested but not read).
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
  /**
   * Every change to a credit account with its ledger entry (the `usage` recorder): open an account, grant
   * credits; the engine's own holds, charges and refunds go through it too.
   */
  readonly credits: CreditsService;
  /** Research jobs: long questions that run in the background (`/v1/research` over HTTP). */
  readonly research: ResearchJobsApi;
  /**
   * The documents of the key's account (`/v1/documents` over HTTP; needs the `documents` option): added
   * documents are searched by that account's searches only. Throws {@link CitewiseError} (400, 401, 403
   * `document_quota_exceeded`, 404).
   */
  readonly documents: EngineDocumentsApi;
  /** Creates an API key, opening its account with `credits` if the account is new. */
  createKey(options?: CreateKeyOptions): Promise<{ key: string; record: KeyRecord; accountCreated: boolean }>;
  /**
   * Sets (or with `null` removes) key `id`'s budget, e.g. `{ credits: 500, period: 'day' }`; returns the
   * updated record, or `null` for an unknown key. What it already spent this period still counts.
   */
  setKeyBudget(id: string, budget: KeyBudget | null): Promise<KeyRecord | null>;
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

/** `engine.documents`: the documents of the account of `apiKey`. */
export interface EngineDocumentsApi {
  /**
   * Adds (or, for a URL the account already has, replaces) a document; content over `maxBodyBytes` (a
   * PDF's decoded bytes) is a 413, as over HTTP.
   */
  add(request: AddDocumentRequest, options: { apiKey: string }): Promise<{ id: string; url: string }>;
  /** The account's documents by URL, a page at a time (`limit` 1–100, default 20). */
  list(options: { apiKey: string; limit?: number; cursor?: string }): Promise<{
    data: DocumentView[];
    next_cursor: string | null;
  }>;
  /** One document with its content; another account's id is a 404. */
  get(id: string, options: { apiKey: string }): Promise<DocumentView>;
  remove(id: string, options: { apiKey: string }): Promise<void>;
}

/** Creates a search engine. With no options it answers from the project's docs with in-memory stores. */
export function createSearchEngine(options: SearchEngineOptions = {}): SearchEngine {
  const resolved = resolveEngineOptions(options);
  const keys = options.keys ?? createMemoryKeyStore();
  const creditStore = options.credits ?? createMemoryCreditStore();
  // Every grant, charge and refund, with its ledger entry (the `usage` recorder).
  const credits = createCreditsService({ store: creditStore, ledger: options.usage });
  const rateLimiter =
    options.rateLimiter === false
      ? null
      : (options.rateLimiter ?? createMemoryRateLimiter(resolved.rateLimit));
  const idempotencyStore =
    options.idempotency === false ? undefined : (options.idempotency ?? createMemoryIdempotencyStore());
  const { stages, structuredOutput } = buildStages(options, resolved);
  // Admission to a fair slot, the credit hold, and its commit or refund: one path for every search.
  const scheduler = createFairScheduler({
    concurrency: resolved.maxConcurrentSearches,
    maxQueued: resolved.maxQueuedSearches,
    maxAccountShare: resolved.maxAccountShare,
  });
  const { logger } = resolved;
  const moneyPath = createMoneyPath({
    credits,
    scheduler,
    creditCost: resolved.creditCost,
    requestTimeoutMs: resolved.requestTimeoutMs,
    onSettleError: (error, requestId, action) =>
      logger.error({ requestId, err: error }, `credit ${action} failed`),
  });
  const runtime: SearchRuntime = {
    stages,
    ...(options.documents ? { ownDocuments: createOwnDocumentsProvider(options.documents.index) } : {}),
    structuredOutput,
    settings: resolved.pipeline,
    moneyPath,
    credits,
    creditCost: resolved.creditCost,
    researchCreditsPerQuery: resolved.researchCreditsPerQuery,
    extractCreditCost: resolved.extractCreditCost,
    extractFailedShare: resolved.extractFailedShare,
    strictGrounding: resolved.strictGrounding,
    metrics: options.metrics,
    reportError: createErrorReporter(logger),
  };
  const service = createProtocolService({
    resolved,
    keys,
    credits: creditStore,
    creditsService: credits,
    rateLimiter,
    // The policy announced in `RateLimit-Policy`: the option, else what the limiter says it enforces.
    rateLimitPolicy: options.rateLimit ?? rateLimiter?.policy,
    idempotencyStore,
    serveDocument: createDocumentServer(resolved.corpus, options.indexedFiles),
    work: {
      runSearch: (key, request, info) => runSearch(runtime, key, request, info),
      runSearchStream: (key, request, info) => runSearchStream(runtime, key, request, info),
      runExtract: (key, request, info) => runExtract(runtime, key, request, info),
    },
    reportError: runtime.reportError,
    metrics: options.metrics,
  });
  // Research jobs (src/jobs/): held by their own reservation, run on workers with this engine's prepaid run.
  const research = createEngineResearch(options.jobs, resolved.jobs, {
    service,
    runPrepaid: (search) => runPrepaid(runtime, search),
    credits,
    price: (request) => searchPrice(runtime, request).hold,
    structuredOutput,
    onError: (error, context, jobId) =>
      logger.error({ err: error, jobId }, `research job: ${context} failed`),
  });
  // The documents read HTML and PDF uploads with the extractor of web pages, given from here (above both).
  const documents = options.documents ? createDocumentsService(options.documents, extractContent) : undefined;
  // What the router serves: the protocol service, with research jobs and (when configured) documents.
  const routed: ProtocolService = {
    ...service,
    research: research.service,
    ...(documents ? { documents } : {}),
  };
  const documentsOf = async (apiKey: string) => {
    if (!documents) throw new CitewiseError('not_found', 'no documents option', { description: 'Not Found' });
    return { documents, account: (await service.admit(apiKey, 'key')).key.accountId };
  };

  return {
    async search(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const { key } = await service.admit(apiKey, 'key+rate');
      return service.runSearch(key, parseSearchRequest(request), info);
    },
    async searchStream(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const { key } = await service.admit(apiKey, 'key+rate');
      return service.runSearchStream(key, parseSearchRequest(request), info);
    },
    async extract(request, { apiKey, signal }) {
      const info = newRequestInfo(signal);
      const { key } = await service.admit(apiKey, 'key+rate');
      return service.runExtract(key, parseExtractRequest(request), info);
    },
    async balance(apiKey) {
      return service.balance((await service.admit(apiKey, 'key')).key);
    },
    handle: (request) => handleProtocolRequest(routed, request),
    maxBodyBytes: resolved.maxBodyBytes,
    tavilyPrefix: resolved.tavilyPrefix,
    createKey: (input = {}) => createKey(keys, credits, input),
    setKeyBudget: (id, budget) => setKeyBudget(keys, id, budget),
    setMaintenance: (on) => service.setMaintenance(on),
    async warm() {
      await stages.extractor?.warm?.();
    },
    credits,
    research: research.api,
    documents: {
      async add(request, { apiKey }) {
        const { documents: service, account } = await documentsOf(apiKey);
        const { id, url } = await service.add(account, request, resolved.publicUrl, {
          maxContentBytes: resolved.maxBodyBytes,
        });
        return { id, url };
      },
      async list({ apiKey, limit, cursor }) {
        const { documents: service, account } = await documentsOf(apiKey);
        return service.list(account, {
          ...(limit === undefined ? {} : { limit: String(limit) }),
          ...(cursor === undefined ? {} : { cursor }),
        });
      },
      async get(id, { apiKey }) {
        const { documents: service, account } = await documentsOf(apiKey);
        return service.get(account, id);
      },
      async remove(id, { apiKey }) {
        const { documents: service, account } = await documentsOf(apiKey);
        await service.remove(account, id);
      },
    },
    stores: { keys, credits: creditStore, rateLimiter },
    async close() {
      await research.service.close();
      scheduler.close();
      await Promise.all([
        keys.close?.(),
        creditStore.close?.(),
        rateLimiter?.close?.(),
        idempotencyStore?.close?.(),
        stages.search.close?.(),
        stages.fetcher?.close?.(),
        stages.extractor?.close?.(),
      ]);
    },
  };
}

/** A library call's request information (an HTTP request gets its own in http/handler.ts). */
function newRequestInfo(signal: AbortSignal | undefined): RequestInfo {
  return {
    requestId: randomUUID(),
    startedAt: performance.now(),
    signal: signal ?? new AbortController().signal,
  };
}
