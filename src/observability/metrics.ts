/**
 * Prometheus metrics of an citewise service (prom-client): requests by route and status, errors by code,
 * searches by outcome, search and stage latency histograms, credits charged. Opt-in: pass `metrics.hook`
 * as the engine's `metrics` option and serve `metrics.handler` (or `metrics.render()`) at a path of your choice.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PageFetcher } from '../pipeline/types.ts';
import type { EngineMetrics } from './types.ts';

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Registry the metrics are registered in. @default a new Registry */
  readonly registry?: Registry;
  /** Prefix of every metric name. @default 'citewise_' */
  readonly prefix?: string;
  /** Also collect Node process metrics (CPU, memory, event loop lag). @default true */
  readonly processMetrics?: boolean;
  /** Buckets of the latency histograms, in seconds. @default [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] */
  readonly latencyBuckets?: readonly number[];
}

/** The metrics of one service. */
export interface Metrics {
  readonly registry: Registry;
  /** Pass as `createSearchEngine({ metrics: metrics.hook })`. */
  readonly hook: EngineMetrics;
  /** The Prometheus text exposition and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
  /** A node:http handler answering with {@link render} (GET and HEAD only). */
  handler(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Wraps a page fetcher (or a factory, called on first use) to count pages fetched from the network or
   * reused (cache hit, or shared with an identical fetch in flight), and failures by reason. Pass the result
   * as the engine's `fetcher`.
   */
  instrumentFetcher(fetcher: PageFetcher | (() => PageFetcher)): PageFetcher;
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Creates the metrics. Throws TypeError for a prefix that is not a valid metric name prefix. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const prefix = options.prefix ?? 'citewise_';
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix)) throw new TypeError(`invalid metric prefix "${prefix}"`);
  const buckets = [...(options.latencyBuckets ?? DEFAULT_BUCKETS)];
  if (buckets.length === 0 || buckets.some((b, i) => !(b > 0) || (i > 0 && b <= buckets[i - 1]!))) {
    throw new RangeError('latencyBuckets must be positive and increasing');
  }
  const registry = options.registry ?? new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix });

  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests of the /v1 API by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time to build the response of a /v1 request (for a stream: until it started).',
    labelNames: ['route', 'method'] as const,
    buckets,
    registers: [registry],
  });
  const errors = new Counter({
    name: `${prefix}errors_total`,
    help: 'Error responses of the /v1 API and failed searches, by error code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const searches = new Counter({
    name: `${prefix}searches_total`,
    help: 'Searches that reserved credits, by outcome (success: committed, error: refunded) and mode.',
    labelNames: ['outcome', 'mode'] as const,
    registers: [registry],
  });
  const searchDuration = new Histogram({
    name: `${prefix}search_duration_seconds`,
    help: 'Time from the request to the settled search.',
    labelNames: ['outcome', 'mode'] as const,
    buckets,
    registers: [registry],
  });
  const stageDuration = new Histogram({
    name: `${prefix}stage_duration_seconds`,
    help: 'Time spent per pipeline stage (plan, search, gather, rank, answer) of non-streamed searches.',
    labelNames: ['stage'] as const,
    buckets,
    registers: [registry],
  });
  const pageFetches = new Counter({
    name: `${prefix}page_fetches_total`,
    help: 'Pages returned by the fetcher: from the network, or reused (cache hit or a shared fetch in flight).',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const fetchFailures = new Counter({
    name: `${prefix}fetch_failures_total`,
    help: 'Page fetches that failed, by reason (timeout, robots_disallowed, blocked_address, bad_status, …).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const credits = new Counter({
    name: `${prefix}credits_charged_total`,
    help: 'Credits committed by successful searches.',
    registers: [registry],
  });

  const hook: EngineMetrics = {
    observeRequest({ route, method, status, errorCode, durationMs }) {
      requests.inc({ route, method, status: String(status) });
      requestDuration.observe({ route, method }, durationMs / 1000);
      // Search failures are counted by observeSearch; count here only errors that ended the request early.
      if (errorCode) errors.inc({ code: errorCode });
    },
    observeSearch({ outcome, stream, creditsCharged, timings, durationMs, errorCode }) {
      const mode = stream ? 'stream' : 'json';
      searches.inc({ outcome, mode });
      searchDuration.observe({ outcome, mode }, durationMs / 1000);
      if (creditsCharged > 0) credits.inc(creditsCharged);
      if (timings) {
        for (const [stage, ms] of Object.entries(timings)) {
          if (stage !== 'total') stageDuration.observe({ stage }, ms / 1000);
        }
      }
      // A streamed search fails after its 200 started, so no request observation carries its code.
      if (errorCode && stream) errors.inc({ code: errorCode });
    },
  };

  async function render() {
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  function instrumentFetcher(fetcherOrFactory: PageFetcher | (() => PageFetcher)): PageFetcher {
    let inner: PageFetcher | undefined =
      typeof fetcherOrFactory === 'function' ? undefined : fetcherOrFactory;
    const get = () => (inner ??= (fetcherOrFactory as () => PageFetcher)());
    // The fetcher hands out the same page object for a cache hit or a joined fetch: seeing it again means reuse.
    const seen = new WeakSet<object>();
    return {
      async fetch(url, options) {
        try {
          const page = await get().fetch(url, options);
          pageFetches.inc({ source: seen.has(page) ? 'reused' : 'network' });
          seen.add(page);
          return page;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          fetchFailures.inc({ reason: typeof code === 'string' ? code : 'unknown' });
          throw error;
        }
      },
      isCheap: (url) => inner?.isCheap?.(url) ?? false,
      close: async () => inner?.close?.(),
    };
  }

  return {
    registry,
    hook,
    render,
    instrumentFetcher,
    handler(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return;
      }
      render().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => res.writeHead(500).end(),
      );
    },
  };
}
