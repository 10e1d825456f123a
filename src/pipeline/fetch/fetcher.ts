/**
 * The page fetcher: the only module of citewise that requests untrusted URLs.
 *
 * One fetch, top to bottom: validate the URL → serve from cache or join an identical fetch in flight →
 * for each hop: check the address (SSRF guard) and robots.txt, wait for the host's turn (host-scheduler.ts:
 * a concurrency cap, a request rate with a burst, a fair share between searches) and a global slot, send
 * the request over a guarded undici Agent (HTTP/2 where the site offers it; every address re-checked at
 * connection time), follow a redirect manually or check status and media type, then read the body while
 * decoding and counting it. A fetch that every caller gave up on is aborted, and leaves the host's queue
 * if it was still waiting there.
 */
import { rootCertificates } from 'node:tls';
import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import type { CallOptions, FetchedPage, PageFetcher } from '../types.ts';
import {
  createAddressPolicy,
  createGuardedConnector,
  effectivePort,
  resolveChecked,
  systemResolver,
  type AddressPolicy,
  type HostResolver,
} from './address-guard.ts';
import {
  DEFAULT_CONTENT_TYPES,
  SUPPORTED_ENCODINGS,
  parseContentEncoding,
  parseContentType,
  readBody,
  sniffContentType,
} from './body.ts';
import { raceSignal } from '../abort.ts';
import { FetchError } from './errors.ts';
import { createHostScheduler, type SlotTicket } from './host-scheduler.ts';
import {
  createRobotsPolicy,
  ROBOTS_DEFAULTS,
  resolveRobotsOptions,
  type RobotsOptions,
  type RobotsPolicy,
  type RobotsResponse,
} from './robots.ts';
import { nonNegativeInteger, positiveInteger, positiveNumber } from '../../options.ts';
import { USER_AGENT } from '../../package-info.ts';

/**
 * The numeric defaults of {@link createPageFetcher}, written once: the fetcher applies them, and a test
 * holds the JSDoc and the fetching guide's options table to them.
 */
export const FETCHER_DEFAULTS = {
  concurrency: 64,
  perHostConcurrency: 32,
  perHostRate: 64,
  perHostBurst: 96,
  fastHostMs: 200,
  pageTimeoutMs: 15_000,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  maxContentEncodings: 2,
} as const;

/** The default, honest user agent: citewise's one {@link USER_AGENT}. */
export const DEFAULT_USER_AGENT = USER_AGENT;

/** Defaults of {@link PageCacheOptions}. */
export const PAGE_CACHE_DEFAULTS = {
  /** 64 MiB. */
  maxBytes: 64 * 1024 * 1024,
  /** 5 minutes. */
  ttlMs: 300_000,
} as const;

/** Page cache options. */
export interface PageCacheOptions {
  /**
   * Total bytes of cached bodies (plus a small per-entry overhead). Must be finite.
   * @default 67_108_864 (64 MiB)
   */
  readonly maxBytes?: number;
  /**
   * How long a fetched page is served from the cache, in ms. Must be finite.
   * @default 300_000 (5 minutes)
   */
  readonly ttlMs?: number;
}

/** Options of {@link createPageFetcher}. Every limit is on by default. */
export interface PageFetcherOptions {
  /**
   * `User-Agent` header; its product token (before `/`) is matched against robots.txt groups.
   * @default DEFAULT_USER_AGENT
   */
  readonly userAgent?: string;
  /** `Accept-Language` header, if any. @default undefined */
  readonly acceptLanguage?: string;
  /**
   * Requests in flight at once, over all hosts. Pages mostly wait on the network, and a search reads up
   * to 40 of them at once, so the cap is about sockets and memory, not CPU.
   * @default 64
   */
  readonly concurrency?: number;
  /**
   * Requests in flight at once to one host (`host:port`). A host's waiting requests are served fairly
   * between searches (a search's first results before anyone's later ones), so a popular site shared by
   * many searches does not queue them behind each other. Sized for the engine's default of 8 searches at
   * once all reading one site.
   * @default 32
   */
  readonly perHostConcurrency?: number;
  /**
   * Requests started per second to one host, sustained (a token bucket refilled at this rate). May be
   * fractional (0.5: one every 2 s).
   * @default 64
   */
  readonly perHostRate?: number;
  /**
   * Requests that may start at once to one host after a quiet spell (the token bucket's size); at least 1.
   * @default 96
   */
  readonly perHostBurst?: number;
  /**
   * A host whose recent pages took at most this long (a moving average, in ms) counts as fast: while it
   * has room, {@link PageFetcherInstance.isCheap} says its pages are cheap to read.
   * @default 200
   */
  readonly fastHostMs?: number;
  /**
   * Offer HTTP/2 (ALPN `h2`) to https sites; the site chooses. One connection then carries many requests.
   * @default true
   */
  readonly allowH2?: boolean;
  /**
   * Certificate authorities (PEM) trusted besides Node's bundled ones, e.g. an intranet's private CA.
   * @default [] (Node's bundled CAs only)
   */
  readonly extraCaCertificates?: readonly string[];
  /**
   * Time allowed for one page, all hops included, in ms. The caller's `deadline` applies as well; the
   * earlier one wins.
   * @default 15_000
   */
  readonly pageTimeoutMs?: number;
  /** Time allowed for TCP + TLS connect, in ms. @default 5_000 */
  readonly connectTimeoutMs?: number;
  /** Time allowed for the response headers after the request is sent, in ms. @default 10_000 */
  readonly headersTimeoutMs?: number;
  /** Longest pause between two body chunks, in ms. @default 10_000 */
  readonly bodyIdleTimeoutMs?: number;
  /** Cap on the decoded body, in bytes; larger pages fail with `too_large`. @default 5_242_880 (5 MiB) */
  readonly maxBodyBytes?: number;
  /** Redirects followed (every hop is re-checked). @default 5 */
  readonly maxRedirects?: number;
  /** Content-codings undone at most (e.g. `gzip, br` is two). @default 2 */
  readonly maxContentEncodings?: number;
  /** Media types accepted (without parameters). @default DEFAULT_CONTENT_TYPES */
  readonly allowedContentTypes?: readonly string[];
  /** robots.txt handling; `false` ignores robots.txt. @default {} (on, with its defaults) */
  readonly robots?: RobotsOptions | false;
  /** Page cache; `false` disables it. Concurrent fetches of one URL share one request either way. @default {} */
  readonly cache?: PageCacheOptions | false;
  /**
   * Hosts that may resolve to non-public addresses (SSRF guard relaxation, e.g. an intranet docs host).
   * Exact, case-insensitive; `host:port` (`[::1]:8080`) allows only that port, a bare host every port.
   * Redirects to other hosts or ports are still checked.
   * @default []
   */
  readonly allowPrivateHosts?: readonly string[];
  /** Addresses or CIDR ranges any host may connect to (SSRF guard relaxation). @default [] */
  readonly allowPrivateAddresses?: readonly string[];
  /** Resolves host names to addresses; every answer is checked. @default system `dns.lookup` */
  readonly resolver?: HostResolver;
}

/** Options of one {@link fetchPage} call: the fetcher's options plus the call's signal and deadline. */
export interface FetchPageOptions extends PageFetcherOptions {
  readonly signal?: AbortSignal;
  /** Epoch-ms instant after which the fetch gives up. @default now + pageTimeoutMs */
  readonly deadline?: number;
  /** Correlates logs. @default 'fetchPage' */
  readonly requestId?: string;
}

interface Settings {
  readonly userAgent: string;
  readonly acceptLanguage: string | undefined;
  readonly concurrency: number;
  readonly perHostConcurrency: number;
  readonly perHostRate: number;
  readonly perHostBurst: number;
  readonly fastHostMs: number;
  readonly allowH2: boolean;
  readonly extraCaCertificates: readonly string[];
  readonly pageTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyIdleTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxRedirects: number;
  readonly maxContentEncodings: number;
  readonly allowedContentTypes: ReadonlySet<string>;
}

function resolveSettings(options: PageFetcherOptions): Settings {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  if (typeof userAgent !== 'string' || userAgent.trim() === '' || /[\r\n]/.test(userAgent)) {
    throw new TypeError('userAgent must be a non-empty single-line string');
  }
  if (options.acceptLanguage !== undefined && /[\r\n]/.test(options.acceptLanguage)) {
    throw new TypeError('acceptLanguage must be a single-line string');
  }
  const types: unknown = options.allowedContentTypes ?? DEFAULT_CONTENT_TYPES;
  const isMediaType = (type: unknown): type is string => typeof type === 'string' && type.includes('/');
  if (!Array.isArray(types) || !(types as unknown[]).every(isMediaType)) {
    throw new TypeError('allowedContentTypes must be a list of media types like "text/html"');
  }
  if (options.resolver !== undefined && typeof options.resolver !== 'function') {
    throw new TypeError('resolver must be a function');
  }
  if (options.allowH2 !== undefined && typeof options.allowH2 !== 'boolean') {
    throw new TypeError('allowH2 must be a boolean');
  }
  const extraCa: unknown = options.extraCaCertificates ?? [];
  if (
    !Array.isArray(extraCa) ||
    !(extraCa as unknown[]).every(
      (pem) => typeof pem === 'string' && pem.includes('-----BEGIN CERTIFICATE-----'),
    )
  ) {
    throw new TypeError('extraCaCertificates must be a list of PEM certificates');
  }
  return {
    userAgent,
    acceptLanguage: options.acceptLanguage,
    concurrency: positiveInteger('concurrency', options.concurrency, FETCHER_DEFAULTS.concurrency),
    perHostConcurrency: positiveInteger(
      'perHostConcurrency',
      options.perHostConcurrency,
      FETCHER_DEFAULTS.perHostConcurrency,
    ),
    perHostRate: positiveNumber('perHostRate', options.perHostRate, FETCHER_DEFAULTS.perHostRate),
    perHostBurst: positiveInteger('perHostBurst', options.perHostBurst, FETCHER_DEFAULTS.perHostBurst),
    fastHostMs: nonNegativeInteger('fastHostMs', options.fastHostMs, FETCHER_DEFAULTS.fastHostMs),
    allowH2: options.allowH2 ?? true,
    extraCaCertificates: extraCa as string[],
    pageTimeoutMs: positiveInteger('pageTimeoutMs', options.pageTimeoutMs, FETCHER_DEFAULTS.pageTimeoutMs),
    connectTimeoutMs: positiveInteger(
      'connectTimeoutMs',
      options.connectTimeoutMs,
      FETCHER_DEFAULTS.connectTimeoutMs,
    ),
    headersTimeoutMs: positiveInteger(
      'headersTimeoutMs',
      options.headersTimeoutMs,
      FETCHER_DEFAULTS.headersTimeoutMs,
    ),
    bodyIdleTimeoutMs: positiveInteger(
      'bodyIdleTimeoutMs',
      options.bodyIdleTimeoutMs,
      FETCHER_DEFAULTS.bodyIdleTimeoutMs,
    ),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes, FETCHER_DEFAULTS.maxBodyBytes),
    maxRedirects: nonNegativeInteger('maxRedirects', options.maxRedirects, FETCHER_DEFAULTS.maxRedirects),
    maxContentEncodings: nonNegativeInteger(
      'maxContentEncodings',
      options.maxContentEncodings,
      FETCHER_DEFAULTS.maxContentEncodings,
    ),
    allowedContentTypes: new Set((types as string[]).map((type) => type.trim().toLowerCase())),
  };
}

function resolveCache(
  options: PageCacheOptions | false | undefined,
): LRUCache<string, FetchedPage> | undefined {
  if (options === false) return undefined;
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError('cache must be an options object or false');
  }
  const maxBytes = positiveInteger('cache.maxBytes', options?.maxBytes, PAGE_CACHE_DEFAULTS.maxBytes);
  const ttlMs = positiveInteger('cache.ttlMs', options?.ttlMs, PAGE_CACHE_DEFAULTS.ttlMs);
  return new LRUCache<string, FetchedPage>({
    maxSize: maxBytes,
    ttl: ttlMs,
    sizeCalculation: (page) => page.body.byteLength + page.url.length + 1024,
  });
}

/** Validates a URL for fetching and returns a copy without its fragment. Throws `bad_url`. */
export function toFetchableUrl(input: URL | string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw new FetchError('bad_url', `not an absolute URL: ${String(input).slice(0, 200)}`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('bad_url', `scheme ${url.protocol} is not http or https`, { url: url.href });
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchError('bad_url', 'credentials in URLs are refused');
  }
  if (url.hostname === '') throw new FetchError('bad_url', 'URL has no host');
  url.hash = '';
  return url;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Finds our own FetchError in an error's cause chain (undici and net may wrap it). */
function findFetchError(error: unknown, depth = 0): FetchError | undefined {
  if (error instanceof FetchError) return error;
  if (depth > 4 || error === null || typeof error !== 'object') return undefined;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = findFetchError(inner, depth + 1);
      if (found) return found;
    }
  }
  return findFetchError((error as { cause?: unknown }).cause, depth + 1);
}

/** Maps anything thrown during a hop to a FetchError, preferring the abort reason when aborted. */
function toFetchError(error: unknown, url: URL, signal: AbortSignal): FetchError {
  if (signal.aborted && signal.reason instanceof FetchError) return signal.reason;
  const own = findFetchError(error);
  if (own) return own;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new FetchError('timeout', `${code} for ${url.href}`, { url: url.href, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError('network_error', `${message} (${url.href})`, { url: url.href, cause: error });
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'set-cookie') continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

type HopResult =
  | { readonly kind: 'redirect'; readonly location: URL }
  | {
      readonly kind: 'page';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: Uint8Array;
      readonly contentType?: string;
      readonly charset?: string;
    };

interface HopOptions {
  /** robots.txt requests accept any status and media type and truncate at their cap. */
  readonly forRobots: boolean;
  readonly maxBytes: number;
}

/**
 * One caller waiting for a shared fetch (its own object, so the same call joining twice counts twice): its
 * call names its search and the page's place among its results (read live).
 */
interface Caller {
  readonly call: CallOptions;
}

/** A fetch shared by every caller asking for the same URL at the same time. */
interface Flight {
  readonly promise: Promise<FetchedPage>;
  readonly controller: AbortController;
  /** The callers still waiting; when the last leaves, the fetch is aborted. */
  readonly callers: Set<Caller>;
}

/** robots.txt goes before the pages of its host, which all wait for it. */
const ROBOTS_TICKET: SlotTicket = { owner: () => 'robots.txt', priority: () => -1 };

/** A flight's ticket for its host's queue: its most urgent caller's place, its first caller's search. */
function flightTicket(callers: ReadonlySet<Caller>): SlotTicket {
  let lastOwner = '';
  return {
    owner() {
      for (const caller of callers) return (lastOwner = caller.call.requestId);
      return lastOwner;
    },
    priority() {
      let best = Infinity;
      for (const caller of callers) best = Math.min(best, caller.call.priority ?? 0);
      return Number.isFinite(best) ? best : 0;
    },
  };
}

/** A {@link PageFetcher} with its resources. */
export interface PageFetcherInstance extends PageFetcher {
  fetch(url: URL, options: CallOptions): Promise<FetchedPage>;
  /**
   * Whether fetching `url` now costs the site no new request or a quick one: the page is cached or being
   * fetched already, or its host is fast (`fastHostMs`) and has a free slot and a token. Never throws.
   */
  isCheap(url: URL): boolean;
  /** Aborts fetches in flight, empties the caches, and closes connections. */
  close(): Promise<void>;
}

/**
 * Creates the page fetcher. Throws TypeError/RangeError on invalid options (an unbounded cache included).
 *
 * @example
 * const fetcher = createPageFetcher({ maxBodyBytes: 2 * 1024 * 1024 });
 * const controller = new AbortController();
 * const page = await fetcher.fetch(new URL('https://example.org/'), {
 *   signal: controller.signal, requestId: 'r1', deadline: Date.now() + 8_000,
 * });
 * await fetcher.close();
 */
export function createPageFetcher(options: PageFetcherOptions = {}): PageFetcherInstance {
  const settings = resolveSettings(options);
  const policy: AddressPolicy = createAddressPolicy({
    allowPrivateHosts: options.allowPrivateHosts,
    allowPrivateAddresses: options.allowPrivateAddresses,
  });
  const resolver = options.resolver ?? systemResolver;
  const cache = resolveCache(options.cache);
  const robotsSettings = options.robots === false ? undefined : resolveRobotsOptions(options.robots ?? {});

  const agent = new Agent({
    connect: createGuardedConnector({
      policy,
      resolver,
      connectTimeoutMs: settings.connectTimeoutMs,
      allowH2: settings.allowH2,
      ...(settings.extraCaCertificates.length > 0
        ? { ca: [...rootCertificates, ...settings.extraCaCertificates] }
        : {}),
    }),
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyIdleTimeoutMs,
    connections: settings.perHostConcurrency,
    allowH2: settings.allowH2,
  });
  const globalQueue = new PQueue({ concurrency: settings.concurrency });
  const hosts = createHostScheduler({
    concurrency: settings.perHostConcurrency,
    ratePerSecond: settings.perHostRate,
    burst: settings.perHostBurst,
    fastMs: settings.fastHostMs,
  });
  const flights = new Map<string, Flight>();
  const closed = new AbortController();

  const acceptHeader = [...settings.allowedContentTypes]
    .map((type) => (type === 'text/html' ? type : `${type};q=0.9`))
    .join(', ');
  const requestHeaders: Record<string, string> = {
    'user-agent': settings.userAgent,
    accept: `${acceptHeader}, */*;q=0.1`,
    'accept-encoding': settings.maxContentEncodings > 0 ? SUPPORTED_ENCODINGS.join(', ') : 'identity',
    ...(settings.acceptLanguage ? { 'accept-language': settings.acceptLanguage } : {}),
  };

  /** Runs a hop once its host gives it a turn and a global slot is free; waiting does not hold a global slot. */
  const withSlots = <T>(
    host: string,
    ticket: SlotTicket,
    signal: AbortSignal,
    task: () => Promise<T>,
  ): Promise<T> => hosts.run(host, ticket, signal, () => globalQueue.add(task, { signal }));

  const hop = async (url: URL, signal: AbortSignal, hopOptions: HopOptions): Promise<HopResult> => {
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: requestHeaders,
      signal,
    });
    const { statusCode, headers, body } = response;
    try {
      if (REDIRECT_STATUSES.has(statusCode) && headerValue(headers, 'location')) {
        const location = headerValue(headers, 'location') ?? '';
        let target: URL;
        try {
          target = new URL(location, url);
        } catch (error) {
          throw new FetchError('bad_url', `invalid redirect Location ${location.slice(0, 200)}`, {
            url: url.href,
            cause: error,
          });
        }
        await body.dump({ limit: 16_384, signal });
        return { kind: 'redirect', location: target };
      }
      if (!hopOptions.forRobots && (statusCode < 200 || statusCode > 299)) {
        throw new FetchError('bad_status', `HTTP ${statusCode}`, { url: url.href, status: statusCode });
      }
      const mediaType = parseContentType(headerValue(headers, 'content-type'));
      if (
        !hopOptions.forRobots &&
        mediaType &&
        !settings.allowedContentTypes.has(mediaType.type) &&
        !isSniffable(mediaType.type)
      ) {
        throw new FetchError('unsupported_type', `media type ${mediaType.type} is not accepted`, {
          url: url.href,
        });
      }
      const codings = parseContentEncoding(
        headerValue(headers, 'content-encoding'),
        settings.maxContentEncodings,
      );
      const declaredLength = Number(headerValue(headers, 'content-length'));
      if (
        codings.length === 0 &&
        !hopOptions.forRobots &&
        Number.isFinite(declaredLength) &&
        declaredLength > hopOptions.maxBytes
      ) {
        throw new FetchError('too_large', `Content-Length ${declaredLength} exceeds ${hopOptions.maxBytes}`, {
          url: url.href,
        });
      }
      const bytes = await readBody(body, {
        codings,
        maxBytes: hopOptions.maxBytes,
        onOverflow: hopOptions.forRobots ? 'truncate' : 'throw',
        signal,
      });
      const result = {
        kind: 'page' as const,
        status: statusCode,
        headers: flattenHeaders(headers),
        body: bytes,
      };
      if (hopOptions.forRobots) return result;
      const contentType = decideContentType(mediaType?.type, bytes);
      if (!contentType || !settings.allowedContentTypes.has(contentType)) {
        throw new FetchError(
          'unsupported_type',
          `media type ${contentType ?? 'unknown (binary)'} is not accepted`,
          { url: url.href },
        );
      }
      return mediaType?.charset
        ? { ...result, contentType, charset: mediaType.charset }
        : { ...result, contentType };
    } catch (error) {
      body.destroy();
      throw error;
    }
  };

  /** Follows redirects manually; every hop is checked by the SSRF guard (and robots.txt for pages). */
  const fetchWithRedirects = async (
    start: URL,
    signal: AbortSignal,
    hopOptions: HopOptions,
    ticket: SlotTicket,
  ): Promise<{ url: URL; result: Extract<HopResult, { kind: 'page' }> }> => {
    let current = start;
    for (let redirects = 0; ; redirects++) {
      try {
        await raceSignal(
          resolveChecked(current.hostname, policy, resolver, effectivePort(current.port, current.protocol)),
          signal,
        );
        if (robots && !hopOptions.forRobots && !(await robots.isAllowed(current, signal))) {
          throw new FetchError('robots_disallowed', `robots.txt disallows ${current.href}`, {
            url: current.href,
          });
        }
        const target = current;
        const result = await withSlots(current.host, ticket, signal, () => hop(target, signal, hopOptions));
        if (result.kind === 'page') return { url: current, result };
        if (redirects >= settings.maxRedirects) {
          throw new FetchError('too_many_redirects', `more than ${settings.maxRedirects} redirects`, {
            url: current.href,
          });
        }
        current = toFetchableUrl(result.location);
      } catch (error) {
        const failure = toFetchError(error, current, signal);
        throw failure.url === undefined
          ? new FetchError(failure.code, failure.message, {
              url: current.href,
              status: failure.status,
              cause: failure.cause,
            })
          : failure;
      }
    }
  };

  const loadRobots = async (robotsUrl: URL, signal: AbortSignal): Promise<RobotsResponse> => {
    const { result } = await fetchWithRedirects(
      robotsUrl,
      signal,
      { forRobots: true, maxBytes: robotsSettings?.maxBytes ?? ROBOTS_DEFAULTS.maxBytes },
      ROBOTS_TICKET,
    );
    return { status: result.status, body: result.body };
  };
  const robots: RobotsPolicy | undefined = robotsSettings
    ? createRobotsPolicy(loadRobots, settings.userAgent, robotsSettings, closed.signal)
    : undefined;

  const startFlight = (url: URL): Flight => {
    const controller = new AbortController();
    const callers = new Set<Caller>();
    const pageTimer = setTimeout(() => {
      controller.abort(
        new FetchError('timeout', `page timeout of ${settings.pageTimeoutMs} ms`, { url: url.href }),
      );
    }, settings.pageTimeoutMs);
    const signal = AbortSignal.any([controller.signal, closed.signal]);
    const promise = fetchWithRedirects(
      url,
      signal,
      { forRobots: false, maxBytes: settings.maxBodyBytes },
      flightTicket(callers),
    )
      .then(({ url: finalUrl, result }): FetchedPage => {
        const page: FetchedPage = {
          url: finalUrl.href,
          requestedUrl: url.href,
          status: result.status,
          contentType: result.contentType ?? 'application/octet-stream',
          ...(result.charset ? { charset: result.charset } : {}),
          body: result.body,
          headers: result.headers,
        };
        // A page that asks not to be stored is fetched again next time (RFC 9111 §5.2.2.5).
        if (!/(?:^|,)\s*no-store\s*(?:,|$)/i.test(page.headers['cache-control'] ?? '')) {
          cache?.set(url.href, page);
        }
        return page;
      })
      .finally(() => {
        clearTimeout(pageTimer);
        if (flights.get(url.href) === flight) flights.delete(url.href);
      });
    // Nobody may be waiting any more when it fails (all callers gave up); that is not an unhandled error.
    promise.catch(() => undefined);
    const flight: Flight = { promise, controller, callers };
    return flight;
  };

  const fetchPage = async (input: URL, call: CallOptions): Promise<FetchedPage> => {
    if (!call || !(call.signal instanceof AbortSignal))
      throw new TypeError('options.signal must be an AbortSignal');
    if (call.deadline !== undefined && (typeof call.deadline !== 'number' || Number.isNaN(call.deadline)))
      throw new TypeError('options.deadline must be an epoch-ms number');
    const deadline = call.deadline ?? Date.now() + settings.pageTimeoutMs;
    const url = toFetchableUrl(input);
    if (closed.signal.aborted) throw new FetchError('aborted', 'the fetcher is closed', { url: url.href });
    const cached = cache?.get(url.href);
    if (cached) return cached;

    let flight = flights.get(url.href);
    const caller: Caller = { call };
    if (!flight) {
      flight = startFlight(url);
      flights.set(url.href, flight);
    }
    flight.callers.add(caller);
    const joined = flight;
    try {
      return await waitWithDeadline(joined.promise, call.signal, deadline, url);
    } finally {
      joined.callers.delete(caller);
      // The last caller gone: stop the request instead of finishing it for nobody (a request still waiting
      // for its host's turn leaves the queue without being sent).
      if (joined.callers.size === 0) {
        if (flights.get(url.href) === joined) flights.delete(url.href);
        joined.controller.abort(new FetchError('aborted', 'every caller gave up', { url: url.href }));
      }
    }
  };

  return {
    fetch: fetchPage,
    isCheap(input) {
      let url: URL;
      try {
        url = toFetchableUrl(input);
      } catch {
        return false;
      }
      if (closed.signal.aborted) return false;
      return cache?.has(url.href) === true || flights.has(url.href) || hosts.isFastWithRoom(url.host);
    },
    async close() {
      const reason = new FetchError('aborted', 'the fetcher is closed');
      closed.abort(reason);
      globalQueue.clear();
      hosts.clear(reason);
      cache?.clear();
      robots?.clear();
      await agent.destroy();
    },
  };
}

/** Media types that may hide an accepted one and are sniffed (only PDFs are recognised in them). */
function isSniffable(type: string): boolean {
  return type === 'application/octet-stream' || type === 'binary/octet-stream' || type === 'unknown/unknown';
}

function decideContentType(declared: string | undefined, body: Uint8Array): string | undefined {
  if (declared === undefined) return sniffContentType(body);
  if (isSniffable(declared))
    return sniffContentType(body) === 'application/pdf' ? 'application/pdf' : declared;
  return declared;
}

/** Waits for a shared fetch, failing at this caller's own deadline or abort. */
function waitWithDeadline<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  deadline: number,
  url: URL,
): Promise<T> {
  if (signal.aborted)
    return Promise.reject(
      new FetchError('aborted', 'aborted by the caller', { url: url.href, cause: signal.reason }),
    );
  const remaining = deadline - Date.now();
  if (remaining <= 0)
    return Promise.reject(new FetchError('timeout', 'deadline already passed', { url: url.href }));
  const controller = new AbortController();
  const onCallerAbort = (): void =>
    controller.abort(
      new FetchError('aborted', 'aborted by the caller', { url: url.href, cause: signal.reason }),
    );
  signal.addEventListener('abort', onCallerAbort, { once: true });
  // setTimeout caps at 2^31-1 ms; a far deadline is left to the page timeout.
  const timer =
    remaining < 2_147_483_647
      ? setTimeout(
          () => controller.abort(new FetchError('timeout', 'deadline passed', { url: url.href })),
          remaining,
        )
      : undefined;
  return raceSignal(promise, controller.signal).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onCallerAbort);
  });
}

/**
 * Fetches one page with a throw-away fetcher (no cache shared between calls). For many pages, create one
 * fetcher with {@link createPageFetcher} and reuse it: it keeps connections, robots.txt and the cache.
 *
 * @example
 * const page = await fetchPage('https://example.org/', { maxBodyBytes: 1_000_000 });
 * console.log(page.contentType, page.charset, page.body.byteLength);
 */
export async function fetchPage(url: URL | string, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const { signal, deadline, requestId, ...fetcherOptions } = options;
  const fetcher = createPageFetcher({ ...fetcherOptions, cache: false });
  try {
    return await fetcher.fetch(toFetchableUrl(url), {
      signal: signal ?? new AbortController().signal,
      requestId: requestId ?? 'fetchPage',
      deadline: deadline ?? Date.now() + (fetcherOptions.pageTimeoutMs ?? FETCHER_DEFAULTS.pageTimeoutMs),
    });
  } finally {
    await fetcher.close();
  }
}
