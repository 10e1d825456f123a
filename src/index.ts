/**
 * citewise: web search answers for AI agents.
 *
 * ```ts
 * import { createSearchEngine } from 'citewise';
 * const engine = createSearchEngine();                 // local docs index + extractive answers, in memory
 * const { key } = await engine.createKey();            // new account with 1,000 credits
 * const result = await engine.search({ prompt: 'How do I create an API key?' }, { apiKey: key });
 * ```
 *
 * Adapters live in subpaths: `citewise/node`, `/express`, `/koa`, `/fetch`; stores in `/sqlite`
 * (and `/redis`, `/postgres`); conformance suites in `/testing`.
 */

// The engine
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export {
  createSearchEngine,
  DEFAULT_CORPUS,
  ENGINE_DEFAULTS,
  FREE_CREDITS,
  type CreateKeyOptions,
  type Logger,
  type ResearchOptions,
  type SearchCallOptions,
  type SearchEngine,
  type SearchEngineOptions,
} from './engine/index.ts';
export {
  createCreditsService,
  type CreditsService,
  type CreditsServiceOptions,
  type HoldOf,
} from './engine/credits.ts';
export {
  ARRIVED_SHARE,
  DEFAULT_EXPAND_TO_RESULTS,
  DEFAULT_MAX_LATENCY_MS,
  DEFAULT_MIN_QUERY_COVERAGE,
  DEFAULT_STRAGGLER_GRACE_MS,
  deterministicPlanner,
  runPipeline,
  streamPipeline,
  type PipelineCall,
  type PipelinePlanner,
  type PipelineResult,
  type PipelineSettings,
  type PipelineStages,
  type GatheredEvidence,
  type PipelineEvent,
  type StageTimings,
} from './pipeline/run.ts';
export {
  analyzeQuestion,
  createModelResearchPlanner,
  createRulesPlanner,
  findLeads,
  runResearch,
  MODEL_PLANNER_DEFAULTS,
  RESEARCH_DEFAULTS,
  type Lead,
  type ModelResearchPlannerOptions,
  type PlannedQuery,
  type QuestionAnalysis,
  type ResearchPlan,
  type ResearchPlanner,
  type ResearchResult,
  type ResearchRun,
  type ResearchSettings,
  type ResearchState,
  type ResearchStep,
  type ResearchStopReason,
  type SearchedQuery,
} from './pipeline/research/index.ts';

// Errors
export {
  CitewiseError,
  ERROR_TABLE,
  BudgetExceededError,
  QuotaExceededError,
  errorBody,
  isCitewiseError,
  toCitewiseError,
  type CitewiseErrorOptions,
  type ErrorCode,
} from './errors.ts';

// The HTTP protocol (for writing an adapter of your own)
export {
  bearerToken,
  errorResponse,
  handleProtocolRequest,
  isApiPath,
  isStreamBody,
  passesOn,
  stripBasePath,
  type ProtocolRequest,
  type ProtocolResponse,
} from './http/handler.ts';
export {
  parseSearchRequest,
  searchRequestSchema,
  MAX_CONTEXT_MESSAGES,
  MAX_MESSAGE_CHARS,
  MAX_PROMPT_CHARS,
  type BalanceResponse,
  type NormalizedSearchRequest,
  type Citation,
  type IncludeField,
  type SearchRequest,
  type SearchResponse,
  type SearchStreamEvent,
} from './contract/search.ts';
export {
  createMemoryIdempotencyStore,
  type IdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from './contract/idempotency.ts';

// Stage interfaces
export type * from './pipeline/types.ts';
export { SEARCH_DEPTHS } from './pipeline/types.ts';

// Stage: query planning
export { planQuery } from './pipeline/query.ts';
export {
  createModelQueryPlanner,
  type ModelQueryPlannerOptions,
  type QueryPlanner,
} from './pipeline/query-model.ts';

// Stage: search
export * from './pipeline/search/providers/index.ts';
export {
  createFallbackProvider,
  createFusionProvider,
  dedupeHits,
  fuseRankings,
  type FallbackProviderOptions,
  type FusionProviderOptions,
} from './pipeline/search/combine.ts';
export { canonicalizeUrl, isHttpUrl, isTrackingParam } from './pipeline/search/url.ts';
export {
  LocalIndex,
  createLocalIndexProvider,
  type LocalIndexProvider,
  type IndexedDocumentFile,
  type LocalIndexProviderOptions,
} from './pipeline/search/local-index.ts';
export { corpusDocumentUrl } from './pipeline/search/corpus-url.ts';
export {
  createMemoryDocumentIndex,
  createPostgresDocumentIndex,
  createSqliteDocumentIndex,
  DOCUMENT_INDEX_DEFAULTS,
  DocumentQuotaError,
  OPERATOR_OWNER,
  type DocumentHit,
  type DocumentIndex,
  type DocumentInput,
  type DocumentListOptions,
  type DocumentPage,
  type DocumentQuota,
  type DocumentSearchOptions,
  type DocumentSummary,
  type DocumentUsage,
  type PostgresDocumentIndexOptions,
  type PutOptions,
  type SqliteDocumentIndexOptions,
  type StoredDocument,
} from './documents/index.ts';
export { FILE_TYPES, readDocumentFile, type FileReadResult } from './pipeline/extract/read-file.ts';

// Stage: fetch
export * from './pipeline/fetch/index.ts';

// Stage: extract
export {
  CONTENT_CACHE_DEFAULTS,
  createContentExtractor,
  extractContent,
  withContentCache,
  type CachingContentExtractor,
  type ContentCacheOptions,
  type ContentExtractorOptions,
  type ExtractContentOptions,
} from './pipeline/extract/index.ts';

// Stage: rank
export * from './pipeline/rank/index.ts';
export {
  cosineSimilarity,
  createEmbeddingReranker,
  type EmbeddingRerankerOptions,
} from './pipeline/rank/embeddings.ts';

// Models: `provider:model-id` specs → AI SDK models
export * from './models/index.ts';

// Stage: answer
export * from './pipeline/answer/index.ts';

// Text utilities
export { estimateTokens, splitSentences, tokenize } from './text/index.ts';

// Resilience: retries within the deadline and circuit breakers for upstreams
export * from './resilience/index.ts';

// The OpenAPI 3.1 document of the /v1 API (also served at GET /v1/openapi.json)
export { createOpenApiDocument, openApiDocument } from './http/openapi.ts';

// Stores: interfaces, key helpers, memory stores (SQLite: `citewise/sqlite`)
export * from './stores/index.ts';

// Research jobs: the job queue interface, in-process queue, options and wire types (`engine.research`)
export * from './jobs/index.ts';
