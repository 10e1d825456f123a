/**
 * Several search providers used as one:
 * - {@link createFallbackProvider}: a ladder — try each provider in order, move on when one fails, is blocked,
 *   times out or finds nothing; the first useful answer wins. Costs one provider call in the common case.
 * - {@link createFusionProvider}: ask all providers at once and merge their rankings with reciprocal rank
 *   fusion (RRF); pages several providers agree on rise to the top. Costs one call per provider, and waits
 *   for the slowest provider (bounded by its timeout).
 * Both de-duplicate hits by canonical URL ({@link canonicalizeUrl}) and bound every provider call with a
 * timeout, so a provider that ignores its `AbortSignal` cannot hang the request.
 */
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../types.ts';
import { SearchProviderError } from './providers/errors.ts';
import { canonicalizeUrl } from './url.ts';

/** Options shared by {@link createFallbackProvider} and {@link createFusionProvider}. */
export interface CombinedProviderOptions {
  /** Id of the combined provider. @default `fallback:<ids joined by ,>` / `fusion:<ids joined by +>` */
  readonly id?: string;
  /**
   * Upper bound on each provider call, in milliseconds, on top of the provider's own timeout; also covers
   * providers that have none (a custom or local provider).
   * @default 15000
   */
  readonly providerTimeoutMs?: number;
  /** Called for every provider failure that did not fail the whole search (for logs and metrics). */
  readonly onProviderError?: (error: unknown, providerId: string) => void;
}

/** Options of {@link createFallbackProvider}. */
export interface FallbackProviderOptions extends CombinedProviderOptions {
  /**
   * A provider's answer is accepted when it has at least this many (de-duplicated) hits; otherwise the next
   * provider is tried. When none reaches it, the largest answer is returned.
   * @default 1
   */
  readonly minResults?: number;
}

/** Options of {@link createFusionProvider}. */
export interface FusionProviderOptions extends CombinedProviderOptions {
  /**
   * RRF constant: a hit at rank r (1-based) of a provider adds `weight / (k + r)` to its page's score.
   * Larger k flattens the difference between top and lower ranks.
   * @default 60
   */
  readonly k?: number;
  /** Weight per provider id. @default 1 for every provider */
  readonly weights?: Readonly<Record<string, number>>;
}

/** Defaults of the combined providers' options. */
export const COMBINE_DEFAULTS = {
  /** How long one provider may take. */
  providerTimeoutMs: 15_000,
  /** A fallback provider's answer with fewer hits than this goes on to the next provider. */
  minResults: 1,
  /** The RRF constant of the fusion provider. */
  k: 60,
  /** A provider's weight in the fusion. */
  weight: 1,
} as const;

/** Removes hits whose canonical URL was already seen, keeping the first (best-ranked) one. */
export function dedupeHits(hits: readonly SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    const key = canonicalizeUrl(hit.url);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(hit);
  }
  return out;
}

function checkProviders(name: string, providers: readonly SearchProvider[]): void {
  const list: unknown = providers;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`${name}: providers must be a non-empty array`);
  }
  for (const item of list as unknown[]) {
    const provider = item as Partial<SearchProvider> | null;
    if (!provider || typeof provider.id !== 'string' || typeof provider.search !== 'function') {
      throw new TypeError(`${name}: every provider needs an id and a search() method`);
    }
  }
}

function checkTimeout(name: string, timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`${name}: providerTimeoutMs must be a positive number of milliseconds`);
  }
}

/**
 * Calls one provider with a signal that also fires after `timeoutMs`, and settles as soon as that signal
 * fires even if the provider ignores it. A caller abort rejects with the caller's reason.
 */
function callWithTimeout(
  provider: SearchProvider,
  query: SearchQuery,
  call: CallOptions,
  timeoutMs: number,
): Promise<SearchHit[]> {
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)]);
  return new Promise<SearchHit[]>((resolve, reject) => {
    const onAbort = (): void => {
      // The caller's reason is whatever it aborted with (usually a DOMException AbortError): pass it on as is.
      if (call.signal.aborted) reject(call.signal.reason as Error);
      else {
        reject(
          new SearchProviderError(
            provider.id,
            'timeout',
            `search provider ${provider.id} did not answer within ${timeoutMs} ms`,
          ),
        );
      }
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<SearchHit[]>;
    try {
      pending = Promise.resolve(provider.search(query, { ...call, signal }));
    } catch (error) {
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.then(
      (hits) => {
        signal.removeEventListener('abort', onAbort);
        if (!Array.isArray(hits)) {
          reject(
            new SearchProviderError(
              provider.id,
              'bad_response',
              `search provider ${provider.id} returned no hit list`,
            ),
          );
        } else resolve(hits);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

interface Failure {
  readonly providerId: string;
  readonly error: unknown;
}

function describeFailure(failure: Failure): string {
  const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
  return `${failure.providerId}: ${message}`;
}

/** One error for "every provider failed", keeping each failure as the cause. */
function allFailedError(id: string, failures: readonly Failure[]): SearchProviderError {
  const errors = failures.map((f) => f.error);
  const providerErrors = errors.filter((e): e is SearchProviderError => e instanceof SearchProviderError);
  const kinds = new Set(providerErrors.map((e) => e.kind));
  const onlyKind = providerErrors.length === errors.length && kinds.size === 1 ? [...kinds][0] : undefined;
  const waits = providerErrors.map((e) => e.retryAfterMs).filter((ms): ms is number => ms !== undefined);
  return new SearchProviderError(
    id,
    onlyKind ?? 'unavailable',
    `All search providers failed — ${failures.map(describeFailure).join('; ')}`,
    {
      // Worth retrying when any provider might answer later.
      retryable: errors.some((e) => !(e instanceof SearchProviderError) || e.retryable),
      retryAfterMs: waits.length > 0 ? Math.min(...waits) : undefined,
      cause: new AggregateError(errors, 'every search provider failed'),
    },
  );
}

async function closeAll(providers: readonly SearchProvider[]): Promise<void> {
  await Promise.allSettled(providers.map((p) => (p.close ? p.close() : Promise.resolve())));
}

/**
 * A provider that tries `providers` in order and returns the first answer with at least `minResults` hits;
 * errors (auth, quota, rate limit, timeout, bot challenge, ...) and short answers move on to the next
 * provider. Returns the largest answer when no provider reaches `minResults` but some answered, and throws
 * a {@link SearchProviderError} (`unavailable` or the shared kind) only when every provider failed.
 * A caller abort stops the ladder immediately.
 */
export function createFallbackProvider(
  providers: readonly SearchProvider[],
  options: FallbackProviderOptions = {},
): SearchProvider {
  checkProviders('createFallbackProvider', providers);
  const list = [...providers];
  const timeoutMs = options.providerTimeoutMs ?? COMBINE_DEFAULTS.providerTimeoutMs;
  checkTimeout('createFallbackProvider', timeoutMs);
  const minResults = options.minResults ?? COMBINE_DEFAULTS.minResults;
  if (!Number.isInteger(minResults) || minResults < 0) {
    throw new RangeError('createFallbackProvider: minResults must be a non-negative integer');
  }
  const id = options.id ?? `fallback:${list.map((p) => p.id).join(',')}`;

  return {
    id,
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      const failures: Failure[] = [];
      let best: SearchHit[] | undefined;
      for (const provider of list) {
        call.signal.throwIfAborted();
        try {
          const hits = dedupeHits(await callWithTimeout(provider, query, call, timeoutMs)).slice(
            0,
            query.limit,
          );
          if (hits.length >= minResults) return hits;
          if (!best || hits.length > best.length) best = hits;
        } catch (error) {
          if (call.signal.aborted) throw call.signal.reason;
          failures.push({ providerId: provider.id, error });
          options.onProviderError?.(error, provider.id);
        }
      }
      if (best) return best;
      throw allFailedError(id, failures);
    },
    close: () => closeAll(list),
  };
}

interface FusedEntry {
  hit: SearchHit;
  score: number;
  bestRank: number;
  readonly order: number;
}

/** Fills the fields `primary` lacks from `other`. */
function mergeHits(primary: SearchHit, other: SearchHit): SearchHit {
  return {
    ...primary,
    snippet: primary.snippet ?? other.snippet,
    content: primary.content ?? other.content,
    publishedAt: primary.publishedAt ?? other.publishedAt,
  };
}

/**
 * Reciprocal rank fusion of ranked hit lists: each list contributes `weight / (k + rank)` (rank 1-based)
 * to the score of each canonical URL it contains. Ties keep the better single rank, then first appearance.
 * The merged hit is the best-ranked provider's, with missing snippet/content/date filled from the others,
 * and `score` set to the fused score.
 */
export function fuseRankings(
  lists: readonly { readonly providerId: string; readonly hits: readonly SearchHit[] }[],
  options: { readonly k?: number; readonly weights?: Readonly<Record<string, number>> } = {},
): SearchHit[] {
  const k = options.k ?? COMBINE_DEFAULTS.k;
  const entries = new Map<string, FusedEntry>();
  for (const { providerId, hits } of lists) {
    const weight = options.weights?.[providerId] ?? COMBINE_DEFAULTS.weight;
    dedupeHits(hits).forEach((hit, index) => {
      const rank = index + 1;
      const key = canonicalizeUrl(hit.url);
      const contribution = weight / (k + rank);
      const entry = entries.get(key);
      if (!entry) {
        entries.set(key, { hit, score: contribution, bestRank: rank, order: entries.size });
        return;
      }
      entry.score += contribution;
      if (rank < entry.bestRank) {
        entry.hit = mergeHits(hit, entry.hit);
        entry.bestRank = rank;
      } else {
        entry.hit = mergeHits(entry.hit, hit);
      }
    });
  }
  return [...entries.values()]
    .sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || a.order - b.order)
    .map((entry) => ({ ...entry.hit, score: entry.score }));
}

/**
 * A provider that queries all `providers` in parallel (each bounded by `providerTimeoutMs`) and merges
 * their answers with reciprocal rank fusion ({@link fuseRankings}). Failing providers are tolerated and
 * reported through `onProviderError`; the search fails only when every provider failed.
 */
export function createFusionProvider(
  providers: readonly SearchProvider[],
  options: FusionProviderOptions = {},
): SearchProvider {
  checkProviders('createFusionProvider', providers);
  const list = [...providers];
  const timeoutMs = options.providerTimeoutMs ?? COMBINE_DEFAULTS.providerTimeoutMs;
  checkTimeout('createFusionProvider', timeoutMs);
  const k = options.k ?? COMBINE_DEFAULTS.k;
  if (!Number.isFinite(k) || k < 0)
    throw new RangeError('createFusionProvider: k must be a non-negative number');
  for (const [providerId, weight] of Object.entries(options.weights ?? {})) {
    if (!Number.isFinite(weight) || weight < 0) {
      throw new RangeError(`createFusionProvider: weight of ${providerId} must be a non-negative number`);
    }
  }
  const id = options.id ?? `fusion:${list.map((p) => p.id).join('+')}`;

  return {
    id,
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      call.signal.throwIfAborted();
      const settled = await Promise.allSettled(list.map((p) => callWithTimeout(p, query, call, timeoutMs)));
      call.signal.throwIfAborted();
      const answers: { providerId: string; hits: SearchHit[] }[] = [];
      const failures: Failure[] = [];
      settled.forEach((result, index) => {
        const providerId = list[index]?.id ?? String(index);
        if (result.status === 'fulfilled') answers.push({ providerId, hits: result.value });
        else failures.push({ providerId, error: result.reason });
      });
      if (answers.length === 0) throw allFailedError(id, failures);
      for (const failure of failures) options.onProviderError?.(failure.error, failure.providerId);
      return fuseRankings(answers, { k, weights: options.weights }).slice(0, query.limit);
    },
    close: () => closeAll(list),
  };
}
