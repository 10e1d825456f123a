/**
 * The content cache: a page read again costs no extraction. It wraps any {@link ContentExtractor} and keeps
 * what it returned for a page by URL and a digest of the page's bytes (with its media type and charset):
 * the same URL with the same bytes is the same extraction, whatever the page's headers claim, and a page
 * that changed is extracted again. Entries are evicted least recently used first, within a byte budget.
 *
 * The object returned is the cached one itself, so the passage ranker's passages and tokens of it (which
 * it keeps by object) are reused too; the budget counts them.
 *
 * A page sent with `Cache-Control: no-store` is never kept. Calls for the same fetched page object (the
 * page fetcher hands one object to every search that asked for the URL at the same moment) share one
 * extraction, cached or not; it is aborted when every caller has given up.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { positiveInteger } from '../../options.ts';
import { raceSignal } from '../abort.ts';
import type { CallOptions, ContentExtractor, ExtractedContent, FetchedPage } from '../types.ts';

/** Defaults of {@link withContentCache}, written once (the configuration page shows them). */
export const CONTENT_CACHE_DEFAULTS = {
  /** 128 MiB. */
  maxBytes: 128 * 1024 * 1024,
} as const;

/** Options of {@link withContentCache}. */
export interface ContentCacheOptions {
  /**
   * Bytes the cache may hold, counted per entry as its text and Markdown (2 bytes a character) plus 9
   * bytes per character of text for the ranker's passages and tokens kept with it (measured on the
   * bench:qa pages: 8.7), plus 1 KiB. Must be finite.
   * @default 134_217_728 (128 MiB)
   */
  readonly maxBytes?: number;
}

/** A {@link ContentExtractor} with its cache's counters. */
export interface CachingContentExtractor extends ContentExtractor {
  /** Extractions answered from the cache or shared with one in progress, and extractions run. */
  readonly stats: { readonly hits: number; readonly misses: number; readonly entries: number };
}

interface Entry {
  readonly validator: string;
  readonly content: ExtractedContent | null;
}

/** One extraction in progress (or done), shared by every caller holding the same page object. */
interface Shared {
  readonly promise: Promise<ExtractedContent | null>;
  readonly controller: AbortController;
  callers: number;
  settled: boolean;
}

/** Whether a response may be stored (RFC 9111 §5.2.2.5). */
export function isNoStore(page: FetchedPage): boolean {
  return /(?:^|,)\s*no-store\s*(?:,|$)/i.test(page.headers['cache-control'] ?? '');
}

/** What identifies the extraction of a page's bytes: media type, charset, length and SHA-256. */
function validatorOf(page: FetchedPage): string {
  const digest = createHash('sha256').update(page.body).digest('base64url');
  return `${page.contentType};${page.charset ?? ''};${page.body.byteLength};${digest}`;
}

function entrySize(entry: Entry): number {
  const content = entry.content;
  if (!content) return 1024;
  return 2 * (content.text.length + content.markdown.length) + 9 * content.text.length + 1024;
}

/**
 * Wraps `extractor` with a content cache (see the module comment). Throws RangeError on a budget that is
 * not a positive finite integer.
 *
 * @example
 * const extractor = withContentCache(createContentExtractor(), { maxBytes: 64 * 1024 * 1024 });
 */
export function withContentCache(
  extractor: ContentExtractor,
  options: ContentCacheOptions = {},
): CachingContentExtractor {
  const maxBytes = positiveInteger(
    'contentCache.maxBytes',
    options.maxBytes,
    CONTENT_CACHE_DEFAULTS.maxBytes,
  );
  const cache = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: entrySize });
  const sharing = new WeakMap<FetchedPage, Shared>();
  let hits = 0;
  let misses = 0;

  const start = (page: FetchedPage, call: CallOptions): Shared => {
    const controller = new AbortController();
    const storable = !isNoStore(page);
    const validator = storable ? validatorOf(page) : '';
    const cached = storable ? cache.get(page.url) : undefined;
    if (cached && cached.validator === validator) {
      hits++;
      return { promise: Promise.resolve(cached.content), controller, callers: 0, settled: true };
    }
    misses++;
    const { deadline: _deadline, ...rest } = call;
    const shared: Shared = {
      // The first caller's deadline is not the others': the extractor's own time limit bounds it.
      promise: extractor.extract(page, { ...rest, signal: controller.signal }).then((content) => {
        if (storable) cache.set(page.url, { validator, content });
        return content;
      }),
      controller,
      callers: 0,
      settled: false,
    };
    shared.promise.then(
      () => (shared.settled = true),
      () => {
        // A failed or abandoned extraction is not shared with later callers: they try again.
        if (sharing.get(page) === shared) sharing.delete(page);
      },
    );
    return shared;
  };

  return {
    async extract(page, call) {
      call.signal.throwIfAborted();
      let shared = sharing.get(page);
      if (shared) hits++;
      else {
        shared = start(page, call);
        sharing.set(page, shared);
      }
      if (shared.settled) return shared.promise;
      shared.callers++;
      const joined = shared;
      try {
        return await raceSignal(joined.promise, call.signal);
      } finally {
        joined.callers--;
        if (joined.callers === 0 && !joined.settled) {
          joined.controller.abort(new DOMException('every caller gave up', 'AbortError'));
        }
      }
    },
    ...(extractor.warm ? { warm: () => extractor.warm!() } : {}),
    async close() {
      cache.clear();
      await extractor.close?.();
    },
    get stats() {
      return { hits, misses, entries: cache.size };
    },
  };
}
