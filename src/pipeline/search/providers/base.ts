/**
 * The frame every built-in provider shares: the query checked and its limit clamped to what the provider
 * can return, the provider's own request, then the domain filters applied, duplicates dropped and the list
 * capped at the limit.
 */
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../../types.ts';
import { clampLimit, filterAndFinalizeHits } from './results.ts';

/** Who a provider is, for the shared frame. */
export interface SearchProviderIdentity {
  /** The provider's id, e.g. `brave`. */
  readonly id: string;
  /** Human name used in messages, e.g. `Brave Search`. */
  readonly label: string;
  /** Most hits one query may ask of this provider; a larger `limit` is lowered to it. */
  readonly maxResults: number;
}

/** A provider's own request: up to `limit` hits for `query` (the frame filters, deduplicates and caps them). */
export type FetchHits = (query: SearchQuery, limit: number, call: CallOptions) => Promise<SearchHit[]>;

/** Makes a {@link SearchProvider} from a provider's identity and its own request. */
export function defineSearchProvider(provider: SearchProviderIdentity, fetchHits: FetchHits): SearchProvider {
  return {
    id: provider.id,
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      const limit = clampLimit(provider.label, query, provider.maxResults);
      const hits = await fetchHits(query, limit, call);
      return filterAndFinalizeHits(hits, query.filters, limit);
    },
  };
}
