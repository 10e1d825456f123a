/**
 * `citewise/client`: a typed client of the /v1 HTTP API.
 *
 * ```ts
 * import { createClient, CitewiseApiError } from 'citewise/client';
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.CITEWISE_KEY! });
 * const { answer, sources } = await client.search({ prompt: 'What is BM25?' });
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export {
  createClient,
  type CitewiseClient,
  type ClientCallOptions,
  type ClientOptions,
  type ClientSearchOptions,
} from './client.ts';
export {
  CitewiseApiError,
  CitewiseConnectionError,
  isCitewiseApiError,
  type CitewiseApiErrorOptions,
  type CitewiseConnectionErrorCode,
  type CitewiseConnectionErrorOptions,
} from './errors.ts';
export { parseRetryAfter } from '../text/retry-after.ts';
export { readServerSentEvents, type ServerSentEvent } from './sse.ts';
export type { ResearchClient, ResearchClientCallOptions } from './research-jobs.ts';
export type { DocumentsClient } from './documents.ts';
export type { AddDocumentRequest, DocumentView } from '../contract/documents.ts';
export type { ResearchEvent, ResearchJobList, ResearchListQuery } from '../contract/research.ts';
export type { ResearchJob, ResearchRequest } from '../contract/research.ts';
export { describeSearchFailure, engineBackend, toBackend, type CitewiseBackend } from './backend.ts';
export type {
  BalanceResponse,
  SearchRequest,
  SearchResponse,
  SearchStreamEvent,
} from '../contract/search.ts';
