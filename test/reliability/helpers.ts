/** Shared pieces of the reliability suite: engines over scripted providers, and request helpers. */
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';

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
