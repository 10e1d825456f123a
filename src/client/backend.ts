/**
 * What the MCP server and the AI SDK tool need from citewise: a search, a page read and a balance on behalf of one
 * API key. Both an in-process engine (with a key) and an HTTP client provide it.
 */
import type { SearchEngine } from '../engine/index.ts';
import type { ExtractRequest, ExtractResponse } from '../contract/extract.ts';
import type { BalanceResponse, SearchRequest, SearchResponse } from '../contract/search.ts';
import type { CitewiseClient } from './client.ts';
import type { ResearchJob, ResearchRequest } from '../contract/research.ts';
import type { AddDocumentRequest } from '../contract/documents.ts';

/** The research jobs a backend offers (the MCP tool `research` uses them). */
export interface ResearchBackend {
  create(request: ResearchRequest, options?: { readonly signal?: AbortSignal }): Promise<ResearchJob>;
  wait(id: string, options?: { readonly signal?: AbortSignal }): Promise<ResearchJob>;
  cancel(id: string): Promise<ResearchJob>;
}

/** The account's own documents a backend offers (the MCP tool `add_document` uses them). */
export interface DocumentsBackend {
  add(
    request: AddDocumentRequest,
    options?: { readonly signal?: AbortSignal },
  ): Promise<{ id: string; url: string }>;
}

/** Search and balance of one account: an {@link CitewiseClient}, or an engine bound to a key. */
export interface CitewiseBackend {
  search(request: SearchRequest, options?: { readonly signal?: AbortSignal }): Promise<SearchResponse>;
  balance(): Promise<BalanceResponse>;
  /** Reads pages (`POST /v1/extract`). */
  extract(request: ExtractRequest, options?: { readonly signal?: AbortSignal }): Promise<ExtractResponse>;
  /** Research jobs (`/v1/research`); absent on a backend without them. */
  readonly research?: ResearchBackend;
  /** The account's documents (`/v1/documents`); absent on a backend without them. */
  readonly documents?: DocumentsBackend;
}

/** Binds an engine to an API key (the key is verified, charged and rate limited on every call). */
export function engineBackend(engine: SearchEngine, apiKey: string): CitewiseBackend {
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('apiKey is required with an engine');
  return {
    search: (request, options) =>
      engine.search(request, { apiKey, ...(options?.signal ? { signal: options.signal } : {}) }),
    balance: () => engine.balance(apiKey),
    extract: (request, options) =>
      engine.extract(request, { apiKey, ...(options?.signal ? { signal: options.signal } : {}) }),
    research: {
      create: (request, options) =>
        engine.research.create(request, { apiKey, ...(options?.signal ? { signal: options.signal } : {}) }),
      wait: (id, options) =>
        engine.research.wait(id, { apiKey, ...(options?.signal ? { signal: options.signal } : {}) }),
      cancel: (id) => engine.research.cancel(id, { apiKey }),
    },
    documents: { add: (request) => engine.documents.add(request, { apiKey }) },
  };
}

/** True for a {@link SearchEngine} (it has `handle`), as opposed to a client. */
export function isSearchEngine(
  value: SearchEngine | CitewiseClient | CitewiseBackend,
): value is SearchEngine {
  return typeof (value as Partial<SearchEngine>).handle === 'function';
}

/** An engine (bound to `apiKey`) or a client, as a backend. */
export function toBackend(
  engineOrClient: SearchEngine | CitewiseClient | CitewiseBackend,
  apiKey: string | undefined,
): CitewiseBackend {
  if (isSearchEngine(engineOrClient)) {
    if (apiKey === undefined) throw new TypeError('apiKey is required when an engine is given');
    return engineBackend(engineOrClient, apiKey);
  }
  return engineOrClient;
}

/**
 * A failed search as one line a model can read: the spec's description, the HTTP status and when to retry.
 * Never includes internal details (an CitewiseError's `message` may hold them; only `description` is public).
 */
export function describeSearchFailure(error: unknown): string {
  const details = (error ?? {}) as { status?: unknown; description?: unknown; retryAfterMs?: unknown };
  const description = typeof details.description === 'string' ? details.description : 'Server Error';
  const status = typeof details.status === 'number' ? ` (HTTP ${details.status})` : '';
  const retry =
    typeof details.retryAfterMs === 'number'
      ? ` Retry after ${Math.ceil(details.retryAfterMs / 1000)} s.`
      : '';
  return `web search failed${status}: ${description}.${retry}`;
}
