/**
 * `agent-search/client`: a typed client of the /v1 HTTP API.
 *
 * ```ts
 * import { createClient, AgentSearchApiError } from 'agent-search/client';
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.AGENT_SEARCH_KEY! });
 * const { answer, sources } = await client.search({ prompt: 'What is BM25?' });
 * ```
 */
export {
  createClient,
  type AgentSearchClient,
  type ClientCallOptions,
  type ClientOptions,
  type ClientSearchOptions,
} from './client.ts';
export {
  AgentSearchApiError,
  isAgentSearchApiError,
  parseRetryAfter,
  type AgentSearchApiErrorOptions,
} from './errors.ts';
export { readServerSentEvents, type ServerSentEvent } from './sse.ts';
export { describeSearchFailure, engineBackend, toBackend, type AgentSearchBackend } from './backend.ts';
export type { BalanceResponse, SearchRequest, SearchResponse, SearchStreamEvent } from '../http/schema.ts';
