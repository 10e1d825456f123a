/**
 * The engine's options, their defaults and their resolution, written once: {@link resolveEngineOptions}
 * checks what the caller gave against {@link ENGINE_DEFAULTS} for {@link createSearchEngine}, and the CLI's
 * settings table (`citewise serve`, the configuration page) shows and uses the same values.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DocumentsServiceOptions } from './documents.ts';
import type { EmbeddingModel, LanguageModel } from 'ai';
import type { ModelTelemetrySettings } from '../pipeline/answer/telemetry.ts';
import type { ContentCacheOptions } from '../pipeline/extract/content-cache.ts';
import type { NoAnswerText } from '../pipeline/answer/no-answer.ts';
import {
  DEFAULT_CHEAP_RESULTS,
  DEFAULT_EXPAND_TO_RESULTS,
  DEFAULT_MAX_LATENCY_MS,
  DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
  DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
  DEFAULT_MIN_QUERY_COVERAGE,
  DEFAULT_STRAGGLER_GRACE_MS,
  type PipelinePlanner,
} from '../pipeline/run.ts';
import type {
  Answerer,
  ContentExtractor,
  PageFetcher,
  PassageRanker,
  SearchProvider,
} from '../pipeline/types.ts';
import type { UsageRecorder } from '../stores/account-types.ts';
import type { CreditStore, KeyBudget, KeyStore, RateLimiter, RateLimitOptions } from '../stores/types.ts';
import type { IdempotencyStore } from '../contract/idempotency.ts';
import type { EngineMetrics } from '../observability/types.ts';
import { STORE_DEFAULTS } from '../stores/defaults.ts';
import { FAIR_SCHEDULER_DEFAULTS } from '../scheduling/fair-scheduler.ts';
import { normalizeTavilyPrefix } from '../http/compat/tavily.ts';
import { fraction, nonNegativeInteger, positiveInteger } from '../options.ts';
import { normalizePublicUrl } from '../pipeline/search/corpus-url.ts';
import type { IndexedDocumentFile } from '../pipeline/search/local-index.ts';
import {
  RESEARCH_DEFAULTS,
  type ResearchPlanner,
  type ResearchSettings,
} from '../pipeline/research/types.ts';
import { resolveResearchSettings } from '../pipeline/research/settings.ts';
import { resolvePipelineSettings, type ResolvedPipelineSettings } from '../pipeline/settings.ts';
import { resolveJobsSettings, type ResearchJobsOptions } from '../jobs/options.ts';
import type { ResearchServiceSettings } from '../jobs/research-jobs.ts';

/**
 * Defaults of {@link createSearchEngine}'s options, written once: the engine applies them, and the CLI's
 * settings table (`citewise serve`, the configuration page) shows and uses the same values.
 */
export const ENGINE_DEFAULTS = {
  /** Credits a new account receives (the spec's free allowance). */
  freeCredits: 1000,
  creditCost: 1,
  tavilyPrefix: '/compat/tavily',
  extractCreditCost: 1,
  extractFailedShare: 0.25,
  rateLimit: STORE_DEFAULTS.rateLimit,
  maxConcurrentSearches: FAIR_SCHEDULER_DEFAULTS.concurrency,
  maxQueuedSearches: FAIR_SCHEDULER_DEFAULTS.maxQueued,
  maxAccountShare: FAIR_SCHEDULER_DEFAULTS.maxAccountShare,
  requestTimeoutMs: 30_000,
  pageTimeoutMs: 8_000,
  maxResults: 5,
  expandToResults: DEFAULT_EXPAND_TO_RESULTS,
  minQueryCoverage: DEFAULT_MIN_QUERY_COVERAGE,
  minDeeperPageMentions: DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
  minDeeperSnippetCoverage: DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
  cheapResults: DEFAULT_CHEAP_RESULTS,
  maxPassageTokens: 4_000,
  maxLatencyMs: DEFAULT_MAX_LATENCY_MS,
  stragglerGraceMs: DEFAULT_STRAGGLER_GRACE_MS,
  maxBodyBytes: 1_048_576,
  /** How long a completed response is replayed for a retry with the same Idempotency-Key (24 h). */
  idempotencyTtlMs: 86_400_000,
  /** The base of corpus document URLs. */
  publicUrl: 'http://localhost',
  maintenance: false,
  modelFallback: false,
  strictGrounding: false,
} as const satisfies Readonly<Record<string, unknown>>;

/** Credits a new account receives (the spec's free allowance). */
export const FREE_CREDITS = ENGINE_DEFAULTS.freeCredits;

/** The project's own documentation: the default corpus of the embedded local index. */
export const DEFAULT_CORPUS = packageDocsFolder();

/** `docs/` of this package, from the sources (`src/`) or from the build (`dist/src/`). */
function packageDocsFolder(): string {
  const candidates = ['../../docs/', '../../../docs/'].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  );
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
   * Refuse an answer whose grounding is `none` (no sentence has a citation verified against its source) with
   * a 422 `ungrounded_answer`, refunded. A request's `grounding` (`strict` or `lenient`) overrides it.
   * @default false
   */
  readonly strictGrounding?: boolean;
  /**
   * Turns prompt + conversation into search queries (a model planner can also propose sub-queries).
   * @default with a model: the model planner (called for follow-ups and `deep`); else deterministicPlanner
   */
  readonly planner?: PipelinePlanner;
  /** Search backend. @default a local full-text index over `corpus` */
  readonly search?: SearchProvider;
  /**
   * The operator's synonym rules, in the Solr synonyms format (Elasticsearch's too), one rule a string or a
   * line: `"badge, access card"` (equivalent phrases), `"PTO => paid time off"` (one way). A query naming a
   * phrase is also searched with its synonyms (ranked below the words as asked), and the extractive answerer
   * counts a synonym below the word itself. Bad rules throw a RangeError naming the line.
   * @default none
   */
  readonly synonyms?: string | readonly string[];
  /**
   * Folders indexed by the default local search provider and served read-only by `handle()` at
   * `GET /docs/<path>` (the first folder at `/docs/`, the second at `/docs/2/`, …).
   * @default [DEFAULT_CORPUS] (the project's docs/); none served when a `search` provider is given
   */
  readonly corpus?: readonly string[];
  /**
   * Where clients reach this service (with the mount path of an adapter, if any), e.g.
   * `https://search.example.com`: the sources of corpus documents are `<publicUrl>/docs/<path>`, never
   * file paths. An absolute http(s) URL. Without it, an adapter's request gives the base: where that request
   * reached the API (`http://127.0.0.1:3000/api` for an Express app mounted at `/api`).
   * @default "http://localhost"
   */
  readonly publicUrl?: string;
  /**
   * Where the Tavily-compatible routes are served: `{tavilyPrefix}/search` and `{tavilyPrefix}/extract`
   * (a path such as `/compat/tavily`), or `false` for none. @default "/compat/tavily"
   */
  readonly tavilyPrefix?: string | false;
  /**
   * Files outside `corpus` that `GET /docs/<path>` serves too, by their exact path below `/docs/`: pass
   * the `indexedFile` of a local index provider whose `indexFiles` hold folders (`citewise index`). A file
   * is served only while its real path is a regular file inside its `root` (a bare path: inside its own
   * folder), so a file replaced by a symbolic link after indexing is refused (404). It may answer with a
   * promise (a lookup in the document index).
   * @default none
   */
  readonly indexedFiles?: (
    encodedPath: string,
  ) => IndexedDocumentFile | string | undefined | Promise<IndexedDocumentFile | string | undefined>;
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
  /**
   * The content cache in front of the extractor (default or given): a page read again, with the same
   * bytes, costs no extraction, and its passages and tokens are not computed again (see
   * `withContentCache`). Pages sent with `Cache-Control: no-store` are only shared between searches
   * reading them at the same moment. `false` turns it off.
   * @default { maxBytes: CONTENT_CACHE_DEFAULTS.maxBytes } (128 MiB)
   */
  readonly contentCache?: ContentCacheOptions | false;
  /** @default BM25 passage ranker */
  readonly ranker?: PassageRanker;
  /** @default the extractive answerer (no model needed) */
  readonly answerer?: Answerer;
  /**
   * What the default answerers say when the sources hold no answer; a function is asked at each answer
   * (`citewise serve` says "No answer in your documents." once you have given documents).
   * @default 'The available sources do not contain an answer to this question.'
   */
  readonly noAnswerText?: NoAnswerText;
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
  /** How long a completed response is replayed for a retry with the same Idempotency-Key (24 h). @default 86_400_000 */
  readonly idempotencyTtlMs?: number;
  /** Credits charged per successful search (a non-negative integer). @default 1 */
  readonly creditCost?: number;
  /** Credits charged per page read by `POST /v1/extract` (failed pages: see `extractFailedShare`). @default 1 */
  readonly extractCreditCost?: number;
  /**
   * Share (0–1) of `extractCreditCost` charged for a page of `POST /v1/extract` that was requested from its
   * server but could not be read (an error status, too many redirects, a timeout, an unreadable body),
   * summed over the request and rounded up: outbound requests are work, and a request of 20 failing
   * redirect chains is no longer free. Pages refused before any request (a bad URL, a private address,
   * robots.txt) stay free. 0 makes every failed page free. @default 0.25
   */
  readonly extractFailedShare?: number;
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
   * costs this, not the page timeout. Pages read deeper (past the first `maxResults`) get half of it.
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
   * When reading deeper, share (0–1) of the question's distinct words a fetched page must contain (anywhere
   * in its bytes) to be extracted; the others are answered from their snippets. 0 extracts every page.
   * @default 0.5
   */
  readonly minDeeperPageMentions?: number;
  /**
   * When reading deeper, share (0–1) of the question's distinct words a result's title and snippet must hold
   * for its page to be fetched at all; results without a snippet are fetched. 0 fetches every result.
   * @default 0.2
   */
  readonly minDeeperSnippetCoverage?: number;
  /**
   * Results read with the first `maxResults` when they are cheap: up to this many from the top of the
   * results, for the pages the fetcher says cost the site nothing new or little (cached, being fetched, or
   * on a fast host with room). Not used with `max_sources` or `depth: "fast"`; ≤ `maxResults` turns it off.
   * @default 10
   */
  readonly cheapResults?: number;
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
   * The ledger: told of every settled search (charged or refunded) with its key, and of every grant
   * (`recordGrant`: accounts opened by `createKey`, credits granted through `engine.credits`), e.g. the
   * console's batching recorder (`createUsageRecorder`, citewise/console). Called synchronously; must not
   * block. @default none
   */
  readonly usage?: UsageRecorder;
  /**
   * `depth: "research"`: its budgets (rounds, queries, pages, passage tokens), its time budget, its price
   * and its planner. Every field has its default in `RESEARCH_DEFAULTS`.
   * @default RESEARCH_DEFAULTS; with a model (`queryModel`, else `model`), the model plans each round
   */
  readonly research?: ResearchOptions;
  /**
   * Telemetry of the model calls (default answerer and model planner) through the AI SDK's telemetry
   * option, e.g. `{ integrations: new OpenTelemetry({ tracer }) }` with `@ai-sdk/otel`. Their function ids
   * are `<functionId>.answer` and `<functionId>.plan`; inputs are not recorded unless `recordInputs`.
   * @default none: the AI SDK's defaults (globally registered integrations, if any)
   */
  readonly telemetry?: ModelTelemetrySettings;
  /**
   * Research jobs (`engine.research`, `POST /v1/research`): their queue (in-process by default; SQLite,
   * Redis or PostgreSQL to survive restarts and spread over machines), workers, caps and webhooks.
   * @default in-process queue, 2 workers
   */
  readonly jobs?: ResearchJobsOptions;
  /**
   * Accounts' own documents (`engine.documents`, `/v1/documents`): kept in `index` under the account of the
   * key that adds them, and searched with the operator's documents by that account's searches only. The
   * default search provider searches `index` too; a `local` provider of your own needs its
   * `documentIndex` set to the same index.
   * @default none: the documents API answers 404
   */
  readonly documents?: DocumentsServiceOptions;
}

/** Options of `depth: "research"` ({@link SearchEngineOptions.research}). */
export interface ResearchOptions extends ResearchSettings {
  /**
   * Time after the request arrived by which research stops and the answer is written from what was read,
   * in ms (a request's `max_latency_ms` replaces it; the request timeout still bounds everything).
   * @default RESEARCH_DEFAULTS.maxLatencyMs (20000)
   */
  readonly maxLatencyMs?: number;
  /**
   * Credits per search query a research search sends: `maxQueries` times this is held up front (or the
   * request's `max_credits`, when lower), the queries sent are charged, the rest returned.
   * @default RESEARCH_DEFAULTS.creditsPerQuery (1)
   */
  readonly creditsPerQuery?: number;
  /**
   * Plans each round. @default with a model: the model planner falling back to the rules; else the rules
   * (createRulesPlanner)
   */
  readonly planner?: ResearchPlanner;
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
  /**
   * What the key may spend per UTC day, per UTC month or in all, on top of its account's credits, e.g.
   * `{ credits: 500, period: 'day' }`; a search that would pass it gets a 433. @default no budget
   */
  readonly budget?: KeyBudget | null;
}

/** A no-op {@link Logger}: the engine is silent unless given one. */
const NO_LOGGER: Logger = { info() {}, warn() {}, error() {} };

/** The engine's options, checked and with every default applied (what the engine's modules run on). */
export interface ResolvedEngineOptions {
  readonly creditCost: number;
  readonly extractCreditCost: number;
  readonly extractFailedShare: number;
  readonly strictGrounding: boolean;
  readonly maxConcurrentSearches: number;
  readonly maxQueuedSearches: number;
  readonly maxAccountShare: number;
  readonly requestTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly idempotencyTtlMs: number;
  /** The rate limit of the in-memory limiter the engine makes when no `rateLimiter` is given. */
  readonly rateLimit: RateLimitOptions;
  /** Whether the model answerer falls back to the extractive one when the model fails. */
  readonly modelFallback: boolean;
  /**
   * The tuning of every pipeline run, research's budgets included, complete: resolved here once, and read as
   * they are by the pipeline, the research loop and its planners.
   */
  readonly pipeline: ResolvedPipelineSettings;
  /** Research jobs' settings, complete (`jobs`, each option else its `JOBS_DEFAULTS` value). */
  readonly jobs: ResearchServiceSettings;
  /** `publicUrl`, checked, without a trailing slash. */
  readonly publicUrl: string;
  /** The folders of the local corpus (none when a `search` provider is given). */
  readonly corpus: readonly string[];
  /** Where the Tavily-compatible routes are served, or `null` for none. */
  readonly tavilyPrefix: string | null;
  readonly maintenance: boolean;
  readonly logger: Logger;
  /** Credits per search query of `depth: "research"`. */
  readonly researchCreditsPerQuery: number;
}

/**
 * Checks the engine's options and applies {@link ENGINE_DEFAULTS}. Throws `TypeError`/`RangeError` naming the
 * first bad option. Stores and stages are not made here (see {@link createSearchEngine}).
 */
export function resolveEngineOptions(options: SearchEngineOptions): ResolvedEngineOptions {
  const defaults = ENGINE_DEFAULTS;
  const creditCost = nonNegativeInteger('creditCost', options.creditCost, defaults.creditCost);
  const extractCreditCost = nonNegativeInteger(
    'extractCreditCost',
    options.extractCreditCost,
    defaults.extractCreditCost,
  );
  if (options.strictGrounding !== undefined && typeof options.strictGrounding !== 'boolean')
    throw new TypeError('strictGrounding must be a boolean');
  return {
    creditCost,
    extractCreditCost,
    extractFailedShare: fraction(
      'extractFailedShare',
      options.extractFailedShare,
      defaults.extractFailedShare,
    ),
    strictGrounding: options.strictGrounding ?? defaults.strictGrounding,
    maxConcurrentSearches: positiveInteger(
      'maxConcurrentSearches',
      options.maxConcurrentSearches,
      defaults.maxConcurrentSearches,
    ),
    maxQueuedSearches: nonNegativeInteger(
      'maxQueuedSearches',
      options.maxQueuedSearches,
      defaults.maxQueuedSearches,
    ),
    // Checked by the fair scheduler, which takes it.
    maxAccountShare: options.maxAccountShare ?? defaults.maxAccountShare,
    requestTimeoutMs: positiveInteger(
      'requestTimeoutMs',
      options.requestTimeoutMs,
      defaults.requestTimeoutMs,
    ),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes, defaults.maxBodyBytes),
    jobs: resolveJobsSettings(options.jobs),
    pipeline: resolvePipelineSettings({
      maxResults: positiveInteger('maxResults', options.maxResults, defaults.maxResults),
      expandToResults: positiveInteger('expandToResults', options.expandToResults, defaults.expandToResults),
      minQueryCoverage: fraction('minQueryCoverage', options.minQueryCoverage, defaults.minQueryCoverage),
      minDeeperPageMentions: fraction(
        'minDeeperPageMentions',
        options.minDeeperPageMentions,
        defaults.minDeeperPageMentions,
      ),
      minDeeperSnippetCoverage: fraction(
        'minDeeperSnippetCoverage',
        options.minDeeperSnippetCoverage,
        defaults.minDeeperSnippetCoverage,
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
      research: resolveResearchSettings(options.research),
    }),
    researchCreditsPerQuery: nonNegativeInteger(
      'research.creditsPerQuery',
      options.research?.creditsPerQuery,
      RESEARCH_DEFAULTS.creditsPerQuery,
    ),
    publicUrl: normalizePublicUrl(options.publicUrl ?? defaults.publicUrl),
    corpus: options.corpus ?? (options.search ? [] : [DEFAULT_CORPUS]),
    idempotencyTtlMs: positiveInteger(
      'idempotencyTtlMs',
      options.idempotencyTtlMs,
      defaults.idempotencyTtlMs,
    ),
    tavilyPrefix:
      options.tavilyPrefix === false
        ? null
        : normalizeTavilyPrefix(options.tavilyPrefix ?? defaults.tavilyPrefix),
    maintenance: options.maintenance ?? defaults.maintenance,
    rateLimit: options.rateLimit ?? defaults.rateLimit,
    modelFallback: options.modelFallback ?? defaults.modelFallback,
    logger: options.logger ?? NO_LOGGER,
  };
}
