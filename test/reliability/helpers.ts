/** Shared pieces of the reliability suite: engines over scripted providers, and request helpers. */
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import type { SearchHit, SearchProvider } from '../../src/pipeline/types.ts';

/** A provider answering every query with the same hits, counting its calls. */
export function scriptedProvider(
  hits: readonly SearchHit[] | ((query: string) => readonly SearchHit[]),
  id = 'scripted',
): SearchProvider & { readonly calls: number } {
  let calls = 0;
  return {
    id,
    async search(query) {
      calls++;
      return [...(typeof hits === 'function' ? hits(query.query) : hits)];
    },
    get calls() {
      return calls;
    },
  };
}

/** An engine with no rate limit, and one key whose account holds `credits`. */
export async function engineWithKey(
  options: SearchEngineOptions,
  credits = 1_000_000,
): Promise<{ engine: SearchEngine; key: string; accountId: string; balance: () => Promise<number> }> {
  const engine = createSearchEngine({ rateLimiter: false, ...options });
  const { key, record } = await engine.createKey({ credits });
  return {
    engine,
    key,
    accountId: record.accountId,
    balance: () => engine.stores.credits.balance(record.accountId),
  };
}

/** POSTs a search to an adapter base URL. */
export function postSearch(
  baseUrl: string,
  key: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}
