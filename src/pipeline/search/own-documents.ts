/**
 * The search of a request that asks for its own documents only (`documents: "own"`): the documents the
 * calling account added (`/v1/documents`, `engine.documents`), and nothing else — not the operator's
 * index, not the built-in manual, not the web, and never another account's documents.
 */
import { OPERATOR_OWNER, type DocumentIndex } from '../../documents/types.ts';
import type { SearchProvider } from '../types.ts';
import { documentSearchHit } from './hits.ts';

/** A search provider over the calling account's documents in `index` (see the module comment). */
export function createOwnDocumentsProvider(index: DocumentIndex): SearchProvider {
  return {
    id: 'documents',
    async search(query, call) {
      call.signal.throwIfAborted();
      const account = call.account;
      // A call for no account (or for the operator) owns no API documents: nothing to read.
      if (account === undefined || account === OPERATOR_OWNER || query.limit <= 0) return [];
      const hits = await index.search(query.query, { owners: [account], limit: query.limit });
      return hits.filter((hit) => hit.owner === account).map((hit) => documentSearchHit(hit, 'documents'));
    },
  };
}
