/**
 * robots.txt (RFC 9309) per origin, parsed with robots-parser and cached in an LRU with a TTL.
 * Concurrent checks of one origin share one robots.txt request.
 */
import { LRUCache } from 'lru-cache';
import robotsParserModule from 'robots-parser';
import { raceSignal } from '../abort.ts';

/** What robots.txt fetching returned: a status and (possibly truncated) bytes. */
export interface RobotsResponse {
  readonly status: number;
  readonly body: Uint8Array;
}

/** Fetches `/robots.txt` through the guarded client, following redirects; rejects with a FetchError. */
export type RobotsLoader = (robotsUrl: URL, signal: AbortSignal) => Promise<RobotsResponse>;

/** robots.txt options. */
export interface RobotsOptions {
  /**
   * How long a fetched (2xx) or missing (4xx) robots.txt is trusted, in ms.
   * @default 3_600_000 (1 hour; RFC 9309 asks for at most 24 hours)
   */
  readonly cacheTtlMs?: number;
  /**
   * How long a 5xx robots.txt disallows the whole origin, and how long an unreachable one is treated as
   * allowing everything, in ms.
   * @default 300_000 (5 minutes)
   */
  readonly errorTtlMs?: number;
  /**
   * Origins kept in the cache.
   * @default 1000
   */
  readonly maxOrigins?: number;
  /**
   * Bytes of robots.txt parsed; the rest is ignored (RFC 9309 asks for at least 500 KiB).
   * @default 512_000
   */
  readonly maxBytes?: number;
  /**
   * Time allowed to fetch robots.txt, in ms (also bounded by the page's own deadline).
   * @default 5_000
   */
  readonly timeoutMs?: number;
}

type Verdict =
  { readonly kind: 'all' } | { readonly kind: 'none' } | { readonly kind: 'rules'; readonly rules: Robot };

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}

// robots-parser is CommonJS (`module.exports = fn`); its typings describe an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

/** Checks URLs against their origin's robots.txt. */
export interface RobotsPolicy {
  /** Resolves true when the URL may be fetched; rejects only when aborted or closed. */
  isAllowed(url: URL, signal: AbortSignal): Promise<boolean>;
  clear(): void;
}

/** Resolved robots options with defaults applied. */
export interface ResolvedRobotsOptions {
  readonly cacheTtlMs: number;
  readonly errorTtlMs: number;
  readonly maxOrigins: number;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** Defaults of {@link RobotsOptions}. */
export const ROBOTS_DEFAULTS = {
  cacheTtlMs: 3_600_000,
  errorTtlMs: 300_000,
  maxOrigins: 1000,
  maxBytes: 512_000,
  timeoutMs: 5_000,
} as const;

/** Applies defaults and validates; throws RangeError for unbounded or invalid values. */
export function resolveRobotsOptions(options: RobotsOptions = {}): ResolvedRobotsOptions {
  const resolved = {
    cacheTtlMs: options.cacheTtlMs ?? ROBOTS_DEFAULTS.cacheTtlMs,
    errorTtlMs: options.errorTtlMs ?? ROBOTS_DEFAULTS.errorTtlMs,
    maxOrigins: options.maxOrigins ?? ROBOTS_DEFAULTS.maxOrigins,
    maxBytes: options.maxBytes ?? ROBOTS_DEFAULTS.maxBytes,
    timeoutMs: options.timeoutMs ?? ROBOTS_DEFAULTS.timeoutMs,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`robots.${name} must be a positive finite integer, got ${String(value)}`);
    }
  }
  return resolved;
}

/** Builds a robots policy over a loader (the fetcher's guarded client). */
export function createRobotsPolicy(
  loader: RobotsLoader,
  userAgent: string,
  options: ResolvedRobotsOptions,
  closedSignal: AbortSignal,
): RobotsPolicy {
  const cache = new LRUCache<string, Verdict>({ max: options.maxOrigins, ttl: options.cacheTtlMs });
  const inFlight = new Map<string, Promise<Verdict>>();

  const load = async (origin: string): Promise<Verdict> => {
    const signal = AbortSignal.any([closedSignal, AbortSignal.timeout(options.timeoutMs)]);
    let verdict: Verdict;
    let ttl = options.cacheTtlMs;
    try {
      const response = await loader(new URL('/robots.txt', origin), signal);
      if (response.status >= 200 && response.status < 300) {
        const text = Buffer.from(response.body).toString('utf8');
        verdict = { kind: 'rules', rules: robotsParser(new URL('/robots.txt', origin).href, text) };
      } else if (response.status >= 500) {
        // RFC 9309 §2.3.1.4: a server error means "complete disallow" for a while.
        verdict = { kind: 'none' };
        ttl = options.errorTtlMs;
      } else {
        // 4xx (and anything else that is not an answer): no robots.txt, everything allowed.
        verdict = { kind: 'all' };
      }
    } catch (error) {
      if (closedSignal.aborted) throw error;
      // Unreachable robots.txt (network error, timeout, redirect loop, or a redirect the SSRF guard
      // blocked): allow, and ask again soon. The page's own connections are guarded separately.
      verdict = { kind: 'all' };
      ttl = options.errorTtlMs;
    }
    cache.set(origin, verdict, { ttl });
    return verdict;
  };

  const verdictFor = (origin: string): Promise<Verdict> => {
    const cached = cache.get(origin);
    if (cached) return Promise.resolve(cached);
    let pending = inFlight.get(origin);
    if (!pending) {
      pending = load(origin).finally(() => inFlight.delete(origin));
      inFlight.set(origin, pending);
    }
    return pending;
  };

  return {
    async isAllowed(url, signal) {
      const verdict = await raceSignal(verdictFor(url.origin), signal);
      if (verdict.kind === 'rules') return verdict.rules.isAllowed(url.href, userAgent) !== false;
      return verdict.kind === 'all';
    },
    clear() {
      cache.clear();
    },
  };
}
