/**
 * The documents of the typed client (`client.documents`): `/v1/documents` with the engine's shapes, so a
 * client and an in-process engine (`engine.documents`) are interchangeable.
 */
import type { AddDocumentRequest, DocumentView } from '../contract/documents.ts';
import type { ResearchClientCallOptions, SendRequest } from './research-jobs.ts';

/** `client.documents`: the documents of the key's account. */
export interface DocumentsClient {
  /** `POST /v1/documents`: adds (or, for a URL the account already has, replaces) a document. */
  add(request: AddDocumentRequest, options?: ResearchClientCallOptions): Promise<{ id: string; url: string }>;
  /** `GET /v1/documents?limit=&cursor=`. */
  list(
    query?: { readonly limit?: number; readonly cursor?: string },
    options?: ResearchClientCallOptions,
  ): Promise<{ data: DocumentView[]; next_cursor: string | null }>;
  /** `GET /v1/documents/{id}`: the document with its content. */
  get(id: string, options?: ResearchClientCallOptions): Promise<DocumentView>;
  /** `DELETE /v1/documents/{id}`. */
  remove(id: string, options?: ResearchClientCallOptions): Promise<void>;
}

/** Builds `client.documents` on the client's `send`. */
export function createDocumentsClient(
  send: SendRequest,
  headers: Readonly<Record<string, string>>,
): DocumentsClient {
  const path = (id: string) => `/v1/documents/${encodeURIComponent(id)}`;
  const json = (response: Response) => response.json();
  const accept = { ...headers, accept: 'application/json' };
  return {
    async add(request, call) {
      return (await send(
        '/v1/documents',
        {
          method: 'POST',
          headers: { ...accept, 'content-type': 'application/json' },
          body: JSON.stringify(request),
        },
        call,
        json,
      )) as { id: string; url: string };
    },
    async list(query = {}, call) {
      const search = new URLSearchParams();
      if (query.limit !== undefined) search.set('limit', String(query.limit));
      if (query.cursor !== undefined) search.set('cursor', query.cursor);
      const suffix = search.size > 0 ? `?${search.toString()}` : '';
      return (await send(`/v1/documents${suffix}`, { method: 'GET', headers: accept }, call, json)) as {
        data: DocumentView[];
        next_cursor: string | null;
      };
    },
    async get(id, call) {
      return (await send(path(id), { method: 'GET', headers: accept }, call, json)) as DocumentView;
    },
    async remove(id, call) {
      await send(path(id), { method: 'DELETE', headers: accept }, call, async () => undefined);
    },
  };
}
