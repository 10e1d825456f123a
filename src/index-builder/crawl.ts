/**
 * The crawler: a site from its start page (breadth-first, same-origin links up to `maxDepth`), or the pages
 * of a sitemap. Pages are fetched (the fetcher's SSRF guard, robots.txt and limits) and extracted
 * `concurrency` at a time by a p-queue, in the order they were found, up to `maxPages` per source; the
 * links found past that are counted as not visited.
 */
import PQueue from 'p-queue';
import { decodeBytes } from '../pipeline/extract/decode.ts';
import { contentKind, extractContent } from '../pipeline/extract/extract.ts';
import { isFetchError } from '../pipeline/fetch/errors.ts';
import { canonicalizeUrl } from '../pipeline/search/url.ts';
import type { FetchedPage } from '../pipeline/types.ts';
import { readPageLinks } from './html-links.ts';
import { GZIP_TYPES, messageOf, skipReasonOf, XML_TYPES, type BuildRun } from './run.ts';
import { gunzipCapped, isGzip, parseSitemap, type Sitemap } from './sitemap.ts';

/** A unit of crawl work. */
export interface CrawlItem {
  readonly url: string;
  readonly depth: number;
  /** Links of the page are followed (false for sitemap entries). */
  readonly follow: boolean;
  /** A start URL: may turn out to be a sitemap. */
  readonly seed: boolean;
  /** A sitemap listed by a sitemap index. */
  readonly sitemap: boolean;
}

/** Extensions that are never pages; links to them are not fetched. */
const NON_PAGE_EXTENSIONS =
  /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|json|woff2?|ttf|otf|eot|mp[34]|m4[av]|webm|ogg|wav|flac|mov|avi|zip|tar|tgz|bz2|xz|7z|rar|exe|dmg|msi|deb|rpm|apk|iso|docx?|xlsx?|pptx?|odt|csv)$/i;

/** One crawl of a source: what it has seen and counted. */
interface Crawl {
  readonly run: BuildRun;
  readonly source: string;
  /** Origins whose links are followed; `undefined`: any (`sameOrigin: false`, or a sitemap file). */
  readonly allowedOrigins: Set<string> | undefined;
  readonly seen: Set<string>;
  readonly indexedThisRun: Set<string>;
  enqueue(item: CrawlItem): void;
  /** Pages started; a start URL that turns out to be a sitemap gives its place back. */
  started: number;
  sitemapsRead: number;
}

/** Crawls a site, or the pages of a sitemap, from `seeds`. */
export async function crawl(
  run: BuildRun,
  source: string,
  seeds: readonly CrawlItem[],
  allowedOrigins: Set<string> | undefined,
): Promise<void> {
  const { settings, summary } = run;
  const { maxPages, signal } = settings;
  const queue = new PQueue({ concurrency: settings.concurrency });
  let done = 0;
  let active = 0;
  let current: string | undefined;
  // Once a page finds no place under `maxPages`, nothing after it is started (as links come in order).
  let full = false;
  const report = (): void =>
    run.progress({
      source,
      done,
      pending: Math.min(queue.size + active, Math.max(0, maxPages - done)),
      ...(current === undefined ? {} : { current }),
    });

  const start = async (item: CrawlItem): Promise<void> => {
    if (signal.aborted || full || (!item.sitemap && state.started >= maxPages)) {
      if (!signal.aborted && !item.sitemap) full = true;
      if (!item.sitemap) summary.notVisited++;
      return;
    }
    if (!item.sitemap) state.started++;
    active++;
    current = item.url;
    report();
    try {
      await processItem(state, item);
    } finally {
      done++;
      await run.checkpoint().catch(() => undefined);
      active--;
      report();
    }
  };
  const state: Crawl = {
    run,
    source,
    allowedOrigins,
    seen: new Set(),
    indexedThisRun: new Set(),
    started: 0,
    sitemapsRead: 0,
    enqueue(item) {
      const key = canonicalizeUrl(item.url);
      if (state.seen.has(key)) return;
      state.seen.add(key);
      void queue.add(() => start(item));
    },
  };
  for (const seed of seeds) state.enqueue(seed);
  await queue.onIdle();
  current = undefined;
  report();
}

function fetchItem(run: BuildRun, item: CrawlItem): Promise<FetchedPage> {
  return run.fetcher().fetch(new URL(item.url), {
    signal: run.settings.signal,
    requestId: 'index',
    deadline: Date.now() + run.settings.pageTimeoutMs,
  });
}

/** Handles one page or sitemap; never rejects. */
async function processItem(crawl: Crawl, item: CrawlItem): Promise<void> {
  const { run, source } = crawl;
  try {
    const page = await fetchItem(run, item);
    let body = page.body;
    let type = page.contentType;
    if (GZIP_TYPES.has(type) || (XML_TYPES.has(type) && isGzip(body))) {
      body = gunzipCapped(body);
      type = 'application/xml';
    }
    if (XML_TYPES.has(type) || item.sitemap || item.seed) {
      if (readAsSitemap(crawl, item, page, body, type)) return;
    }
    await indexPage(crawl, item, page, body, type);
  } catch (error) {
    if (run.settings.signal.aborted) return;
    // A page that is gone leaves the index.
    const status = isFetchError(error, 'bad_status') ? error.status : undefined;
    if ((status === 404 || status === 410) && (await run.store.remove(canonicalizeUrl(item.url))))
      run.summary.removed++;
    if (item.seed) run.summary.sourceErrors.push({ source, message: messageOf(error) });
    run.skip(item.url, skipReasonOf(error), messageOf(error));
  }
}

/**
 * Reads a start URL or a sitemap-index entry as a sitemap, queueing its entries. Returns `true` when the
 * item is done with (read as a sitemap, or skipped), `false` when it is to be indexed as a page.
 */
function readAsSitemap(
  crawl: Crawl,
  item: CrawlItem,
  page: FetchedPage,
  body: Uint8Array,
  type: string,
): boolean {
  const { run } = crawl;
  // Only start URLs and sitemap-index entries may be sitemaps; a sitemap linked from a page is not read.
  const sitemap =
    item.sitemap || item.seed ? parseSitemap(decodeBytes(body, { charset: page.charset }).text) : null;
  if (sitemap) {
    if (++crawl.sitemapsRead > run.settings.maxSitemaps) {
      run.skip(item.url, 'error', `more than ${run.settings.maxSitemaps} sitemaps`);
      return true;
    }
    if (item.seed) {
      crawl.started--; // a start URL that is a sitemap is not a page
      void run.remember(crawl.source, 'sitemap');
    }
    queueSitemap(crawl, sitemap, page.url);
    return true;
  }
  if (item.sitemap) {
    run.skip(item.url, 'unsupported_type', 'not a sitemap');
    return true;
  }
  if (XML_TYPES.has(type) && contentKind(body, 'application/octet-stream') !== 'html') {
    run.skip(item.url, 'unsupported_type', `media type ${type} is not a page`);
    return true;
  }
  return false;
}

/** Queues the entries of a sitemap: child sitemaps of an index, pages (in scope) of a `<urlset>`. */
function queueSitemap(crawl: Crawl, sitemap: Sitemap, sitemapUrl: string): void {
  const { sameOrigin, filter } = crawl.run.settings;
  const origin = new URL(sitemapUrl).origin;
  for (const entry of sitemap.urls) {
    const url = new URL(entry);
    if (sameOrigin && url.origin !== origin) continue;
    if (sitemap.kind === 'sitemapindex') {
      crawl.enqueue({ url: url.href, depth: 0, follow: false, seed: false, sitemap: true });
    } else if (!NON_PAGE_EXTENSIONS.test(url.pathname) && filter(url)) {
      crawl.enqueue({ url: url.href, depth: 0, follow: false, seed: false, sitemap: false });
    }
  }
}

/** Indexes a fetched page (following its links when the item says so), unless it asks not to be. */
async function indexPage(
  crawl: Crawl,
  item: CrawlItem,
  page: FetchedPage,
  body: Uint8Array,
  type: string,
): Promise<void> {
  const { run, source, allowedOrigins } = crawl;
  const { filter, maxDepth, userAgentToken } = run.settings;
  const finalUrl = new URL(page.url);
  const key = canonicalizeUrl(page.url);
  crawl.seen.add(key);
  if (allowedOrigins !== undefined && !allowedOrigins.has(finalUrl.origin)) {
    if (!item.seed) {
      run.skip(item.url, 'duplicate', `redirected off the crawled origin to ${page.url}`);
      return;
    }
    allowedOrigins.add(finalUrl.origin); // the start page moved (http→https, www...)
  }
  if (crawl.indexedThisRun.has(key)) {
    run.skip(item.url, 'duplicate', `redirected to ${page.url}, already indexed`);
    return;
  }
  crawl.indexedThisRun.add(key); // claimed before the awaits below, so two redirects to one page race safely
  const kind = contentKind(body, type);
  let noindex: boolean;
  let text: string | Uint8Array = body;
  if (kind === 'html') {
    text = decodeBytes(body, { charset: page.charset, sniffMeta: true }).text;
    const found = readPageLinks(text, page.url, page.headers['x-robots-tag'] ?? '', userAgentToken);
    noindex = found.noindex;
    if (item.follow && item.depth < maxDepth) {
      for (const link of found.links) {
        const url = new URL(link);
        const inScope =
          (allowedOrigins === undefined || allowedOrigins.has(url.origin)) &&
          !NON_PAGE_EXTENSIONS.test(url.pathname) &&
          filter(url);
        if (inScope)
          crawl.enqueue({ url: link, depth: item.depth + 1, follow: true, seed: false, sitemap: false });
      }
    }
  } else {
    noindex = /\b(?:noindex|none)\b/i.test(page.headers['x-robots-tag'] ?? '');
  }
  if (noindex) {
    run.skip(item.url, 'noindex', 'the page asks not to be indexed');
    return;
  }
  // A start page outside --include is crawled for its links but not indexed.
  if (item.seed && !filter(finalUrl)) return;
  const content = await extractContent(text, {
    url: page.url,
    contentType: kind === 'html' ? 'text/html' : type,
    ...(page.charset && typeof text !== 'string' ? { charset: page.charset } : {}),
  });
  if (content === null || content.markdown.trim() === '') {
    run.skip(item.url, 'no_text', 'no readable text');
    return;
  }
  run.count(
    await run.store.put(source, {
      url: key,
      content: content.markdown,
      format: kind === 'text' ? 'text' : 'markdown',
      ...(content.title ? { title: content.title } : {}),
      ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
    }),
  );
}
