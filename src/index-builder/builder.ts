/**
 * Builds the persisted local index from sources: folders and files (HTML, Markdown, text, PDF), web sites
 * (a breadth-first crawl of same-origin links) and sitemaps (URL or file, `<urlset>` and `<sitemapindex>`,
 * gzip or plain).
 *
 * Every web request goes through the page fetcher (SSRF guard, robots.txt, size and time limits); every
 * page through `extractContent`. Documents are keyed by canonical URL (file URL for files), so running the
 * same sources again updates documents in place.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeBytes } from '../pipeline/extract/decode.ts';
import { contentKind, extractContent } from '../pipeline/extract/extract.ts';
import { DEFAULT_CONTENT_TYPES } from '../pipeline/fetch/body.ts';
import { isFetchError } from '../pipeline/fetch/errors.ts';
import { createPageFetcher, DEFAULT_USER_AGENT, type PageFetcherOptions } from '../pipeline/fetch/fetcher.ts';
import { listDocumentFiles } from '../pipeline/search/local-index.ts';
import { canonicalizeUrl } from '../pipeline/search/url.ts';
import type { FetchedPage, PageFetcher } from '../pipeline/types.ts';
import { readPageLinks } from './html-links.ts';
import { compileFilter } from './patterns.ts';
import { gunzipCapped, isGzip, parseSitemap, type Sitemap } from './sitemap.ts';
import type { IndexStore, PutResult, SourceKind } from './store.ts';
import { nonNegativeInteger, positiveInteger } from '../options.ts';

/** Why a page or file was not indexed. */
export type SkipReason =
  /** robots.txt disallows it. */
  | 'robots'
  /** The SSRF guard refused its address. */
  | 'blocked'
  /** Larger than the size cap. */
  | 'too_large'
  /** Not HTML, Markdown, text or PDF (or an unsupported file extension). */
  | 'unsupported_type'
  /** The server answered with an error status. */
  | 'http_error'
  /** Nothing readable was extracted. */
  | 'no_text'
  /** The page asks not to be indexed (`<meta name="robots" content="noindex">` or `X-Robots-Tag`). */
  | 'noindex'
  /** A redirect led to a page already indexed in this run, or off the crawled origin. */
  | 'duplicate'
  /** Timeouts, network errors and anything else. */
  | 'error';

/** Every {@link SkipReason}, in the order summaries list them. */
export const SKIP_REASONS: readonly SkipReason[] = [
  'robots',
  'blocked',
  'too_large',
  'unsupported_type',
  'http_error',
  'no_text',
  'noindex',
  'duplicate',
  'error',
];

/** Progress of a build, reported after every page or file. */
export interface IndexProgress {
  /** The source being indexed. */
  readonly source: string;
  /** Pages or files finished for this source. */
  readonly done: number;
  /** Known work left for this source (queued plus in flight), bounded by `maxPages` for sites. */
  readonly pending: number;
  /** Documents added, updated or unchanged so far (all sources). */
  readonly indexed: number;
  /** Pages or files skipped so far (all sources). */
  readonly skipped: number;
  /** URL or path being worked on. */
  readonly current?: string;
}

/** A page or file that was not indexed. */
export interface IndexFailure {
  readonly url: string;
  readonly reason: SkipReason;
  readonly message: string;
}

/** What a build did. */
export interface IndexSummary {
  /** New documents. */
  added: number;
  /** Documents whose content changed. */
  updated: number;
  /** Documents seen again with the same content. */
  unchanged: number;
  /** Documents removed: deleted files, and pages that now answer 404 or 410. */
  removed: number;
  /** Skipped pages and files per reason. */
  skipped: Record<SkipReason, number>;
  /** Links (or sitemap entries) found but not visited because of `maxPages`. */
  notVisited: number;
  /** The first 100 skipped pages and files, with the reason. */
  failures: IndexFailure[];
  /** Sources that could not be read at all (missing folder, start page failed, ...). */
  sourceErrors: { source: string; message: string }[];
  /** True when the build was stopped by its signal before finishing. */
  interrupted: boolean;
}

/** Options of {@link buildIndex}. */
export interface BuildIndexOptions {
  /** Where documents go. The caller saves it (the build also saves checkpoints, see `checkpointMs`). */
  readonly store: IndexStore;
  /** Folder or file paths (or `file:` URLs), http(s) page URLs, sitemap URLs or sitemap files. */
  readonly sources: readonly string[];
  /**
   * Pages fetched at most per web source (sitemap documents not included).
   * @default 500
   */
  readonly maxPages?: number;
  /**
   * Link depth followed from a start page (0 = the start page only). Sitemap entries are not followed.
   * @default 3
   */
  readonly maxDepth?: number;
  /**
   * Pages fetched and extracted at once.
   * @default 4
   */
  readonly concurrency?: number;
  /**
   * Follow only links to the start page's origin (scheme, host and port; the origin it redirected to counts
   * too) and take only sitemap entries on the sitemap's origin.
   * @default true
   */
  readonly sameOrigin?: boolean;
  /** Patterns a URL (or file path) must match one of; see `compilePattern`. @default [] (everything) */
  readonly include?: readonly string[];
  /** Patterns excluding URLs (or file paths). @default [] */
  readonly exclude?: readonly string[];
  /** Label stored with the sources (shown by `--list`). */
  readonly label?: string;
  /**
   * The fetcher for web sources. When absent one is created from `fetcherOptions` (with XML and gzip
   * added to the accepted media types, for sitemaps) and closed at the end.
   */
  readonly fetcher?: PageFetcher;
  /** Options of the fetcher created when `fetcher` is absent. @default {} (every guard on) */
  readonly fetcherOptions?: PageFetcherOptions;
  /**
   * Time allowed per page, in ms.
   * @default 30_000
   */
  readonly pageTimeoutMs?: number;
  /**
   * Local files larger than this are skipped.
   * @default 10_485_760 (10 MiB)
   */
  readonly maxFileBytes?: number;
  /**
   * Sitemaps (index and children) read at most per sitemap source.
   * @default 50
   */
  readonly maxSitemaps?: number;
  /**
   * While a build runs, the store is saved at most this often when it changed, so a server sees progress
   * and an interrupted build keeps its work. `0` disables checkpoints.
   * @default 30_000
   */
  readonly checkpointMs?: number;
  /** Stops the build; pages in flight are abandoned and the summary says `interrupted`. */
  readonly signal?: AbortSignal;
  /** Called after every page or file. */
  readonly onProgress?: (progress: IndexProgress) => void;
}

/** File extensions indexed in folders (lower-case, with the dot) and their media types. */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.mdx': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.pdf': 'application/pdf',
};

const XML_TYPES = new Set(['application/xml', 'text/xml']);
const GZIP_TYPES = new Set(['application/gzip', 'application/x-gzip']);
/** Media types the crawler's own fetcher accepts: pages plus sitemaps. */
const CRAWLER_CONTENT_TYPES = [...DEFAULT_CONTENT_TYPES, ...XML_TYPES, ...GZIP_TYPES];

/** Extensions that are never pages; links to them are not fetched. */
const NON_PAGE_EXTENSIONS =
  /\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|json|woff2?|ttf|otf|eot|mp[34]|m4[av]|webm|ogg|wav|flac|mov|avi|zip|tar|tgz|bz2|xz|7z|rar|exe|dmg|msi|deb|rpm|apk|iso|docx?|xlsx?|pptx?|odt|csv)$/i;

const MAX_FAILURES_KEPT = 100;

/** Array.isArray would widen a readonly string[] to any[]; this keeps the type. */
function isNonEmptyStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
}

function skipReasonOf(error: unknown): SkipReason {
  if (isFetchError(error)) {
    switch (error.code) {
      case 'robots_disallowed':
        return 'robots';
      case 'blocked_address':
        return 'blocked';
      case 'too_large':
        return 'too_large';
      case 'unsupported_type':
        return 'unsupported_type';
      case 'bad_status':
        return 'http_error';
      default:
        return 'error';
    }
  }
  if (error instanceof RangeError) return 'too_large';
  return 'error';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A source as classified before indexing. */
type ClassifiedSource =
  | { readonly kind: 'web'; readonly url: string }
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'sitemap-file'; readonly path: string };

async function classifySource(source: string): Promise<ClassifiedSource> {
  if (/^https?:\/\//i.test(source)) {
    if (!URL.canParse(source)) throw new Error(`not a valid URL: ${source}`);
    return { kind: 'web', url: new URL(source).href };
  }
  const file = path.resolve(/^file:/i.test(source) ? fileURLToPath(source) : source);
  const info = await stat(file).catch((error: unknown) => {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`);
  });
  if (info.isDirectory()) return { kind: 'folder', path: file };
  if (/\.xml(?:\.gz)?$/i.test(file)) return { kind: 'sitemap-file', path: file };
  return { kind: 'file', path: file };
}

/** A unit of crawl work. */
interface CrawlItem {
  readonly url: string;
  readonly depth: number;
  /** Links of the page are followed (false for sitemap entries). */
  readonly follow: boolean;
  /** A start URL: may turn out to be a sitemap. */
  readonly seed: boolean;
  /** A sitemap listed by a sitemap index. */
  readonly sitemap: boolean;
}

/**
 * Indexes `sources` into `options.store`. Never throws for a page or file that fails: those are counted
 * in the summary; sources that cannot be read at all are listed in `sourceErrors`.
 *
 * @throws TypeError/RangeError on invalid options.
 */
/** Defaults of {@link buildIndex} that `citewise index` shows and passes as its flags' defaults. */
export const INDEX_BUILDER_DEFAULTS = { maxPages: 500, maxDepth: 3, concurrency: 4 } as const;

export async function buildIndex(options: BuildIndexOptions): Promise<IndexSummary> {
  const { store } = options;
  if (store === null || typeof store !== 'object' || typeof store.put !== 'function')
    throw new TypeError('store must be an IndexStore');
  const sources: readonly string[] = options.sources;
  if (!isNonEmptyStringList(sources)) throw new TypeError('sources must be an array of paths or URLs');
  const maxPages = positiveInteger('maxPages', options.maxPages, INDEX_BUILDER_DEFAULTS.maxPages);
  const maxDepth = nonNegativeInteger('maxDepth', options.maxDepth, INDEX_BUILDER_DEFAULTS.maxDepth);
  const concurrency = positiveInteger('concurrency', options.concurrency, INDEX_BUILDER_DEFAULTS.concurrency);
  const pageTimeoutMs = positiveInteger('pageTimeoutMs', options.pageTimeoutMs, 30_000);
  const maxFileBytes = positiveInteger('maxFileBytes', options.maxFileBytes, 10 * 1024 * 1024);
  const maxSitemaps = positiveInteger('maxSitemaps', options.maxSitemaps, 50);
  const checkpointMs = nonNegativeInteger('checkpointMs', options.checkpointMs, 30_000);
  const sameOrigin = options.sameOrigin ?? true;
  const filter = compileFilter(options.include, options.exclude);
  const signal = options.signal ?? new AbortController().signal;
  const userAgent = options.fetcherOptions?.userAgent ?? DEFAULT_USER_AGENT;
  const userAgentToken = userAgent.split('/')[0]!.trim().toLowerCase();

  const summary: IndexSummary = {
    added: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    skipped: Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>,
    notVisited: 0,
    failures: [],
    sourceErrors: [],
    interrupted: false,
  };
  let skippedTotal = 0;
  const indexedTotal = (): number => summary.added + summary.updated + summary.unchanged;

  const count = (result: PutResult): void => {
    summary[result]++;
  };
  const skip = (url: string, reason: SkipReason, message: string): void => {
    summary.skipped[reason]++;
    skippedTotal++;
    if (summary.failures.length < MAX_FAILURES_KEPT) summary.failures.push({ url, reason, message });
  };

  let lastSave = Date.now();
  let saving: Promise<void> | undefined;
  const checkpoint = async (): Promise<void> => {
    if (checkpointMs === 0 || saving || !store.dirty || Date.now() - lastSave < checkpointMs) return;
    lastSave = Date.now();
    saving = store.save().finally(() => {
      saving = undefined;
    });
    await saving;
  };

  let ownFetcher: (PageFetcher & { close(): Promise<void> }) | undefined;
  const getFetcher = (): PageFetcher => {
    if (options.fetcher) return options.fetcher;
    ownFetcher ??= createPageFetcher({
      ...options.fetcherOptions,
      allowedContentTypes: options.fetcherOptions?.allowedContentTypes ?? CRAWLER_CONTENT_TYPES,
      cache: false,
    });
    return ownFetcher;
  };

  const indexedAt = new Date().toISOString();
  const remember = (source: string, kind: SourceKind): void =>
    store.setSource({
      source,
      kind,
      indexedAt,
      ...(options.label === undefined ? {} : { label: options.label }),
    });

  /** Reads one local file into the store. */
  const indexFile = async (file: string, source: string): Promise<'ok' | 'skipped'> => {
    const url = pathToFileURL(file).href;
    const mediaType = FILE_TYPES[path.extname(file).toLowerCase()];
    if (mediaType === undefined) {
      skip(url, 'unsupported_type', `extension ${path.extname(file) || '(none)'} is not indexed`);
      return 'skipped';
    }
    const info = await stat(file);
    const { size } = info;
    // Unchanged since the last run (same modification time and size): not read again.
    const fileVersion = `${Math.floor(info.mtimeMs)}:${size}`;
    const record = store.record(url);
    if (record?.fileVersion === fileVersion && record.source === source && store.index.has(url)) {
      count('unchanged');
      return 'ok';
    }
    if (size > maxFileBytes) {
      skip(url, 'too_large', `${size} bytes is more than ${maxFileBytes}`);
      return 'skipped';
    }
    // A plain Uint8Array, not a Buffer: the PDF reader (pdf.js) refuses Buffers.
    const bytes = new Uint8Array(await readFile(file));
    if (mediaType === 'text/markdown' || mediaType === 'text/plain') {
      // Markdown and text are stored as written (the index splits Markdown at its headings itself).
      const text = decodeBytes(bytes).text.replace(/^\uFEFF/, '');
      if (text.trim() === '') {
        skip(url, 'no_text', 'empty file');
        return 'skipped';
      }
      count(
        store.put(
          source,
          { url, content: text, format: mediaType === 'text/plain' ? 'text' : 'markdown' },
          fileVersion,
        ),
      );
      return 'ok';
    }
    const content = await extractContent(bytes, { url, contentType: mediaType });
    if (content === null || content.markdown.trim() === '') {
      skip(url, 'no_text', 'no readable text');
      return 'skipped';
    }
    count(
      store.put(
        source,
        {
          url,
          content: content.markdown,
          format: 'markdown',
          ...(content.title ? { title: content.title } : {}),
          ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
        },
        fileVersion,
      ),
    );
    return 'ok';
  };

  const indexFolder = async (root: string): Promise<void> => {
    remember(root, 'folder');
    const files = (await listDocumentFiles(root, (extension) => FILE_TYPES[extension] !== undefined)).filter(
      (file) => filter(path.relative(root, file).split(path.sep).join('/')),
    );
    const present = new Set(files.map((file) => pathToFileURL(file).href));
    for (const [i, file] of files.entries()) {
      if (signal.aborted) return;
      options.onProgress?.({
        source: root,
        done: i,
        pending: files.length - i,
        indexed: indexedTotal(),
        skipped: skippedTotal,
        current: file,
      });
      try {
        await indexFile(file, root);
      } catch (error) {
        skip(pathToFileURL(file).href, 'error', messageOf(error));
      }
      await checkpoint();
    }
    // Files deleted since the last run (within the include/exclude scope) leave the index.
    for (const url of store.documentsOf(root)) {
      const relative = path.relative(root, fileURLToPath(url)).split(path.sep).join('/');
      if (!present.has(url) && filter(relative) && store.remove(url)) summary.removed++;
    }
    options.onProgress?.({
      source: root,
      done: files.length,
      pending: 0,
      indexed: indexedTotal(),
      skipped: skippedTotal,
    });
  };

  /** Crawls a site, or the pages of a sitemap, from `seeds`. */
  const crawl = async (
    source: string,
    seeds: readonly CrawlItem[],
    allowedOrigins: Set<string> | undefined,
  ): Promise<void> => {
    const fetcher = getFetcher();
    const seen = new Set<string>();
    const indexedThisRun = new Set<string>();
    const pending: CrawlItem[] = [];
    let started = 0;
    let sitemapsRead = 0;
    let done = 0;
    let active = 0;
    let current: string | undefined;

    const inScope = (url: URL): boolean =>
      (allowedOrigins === undefined || allowedOrigins.has(url.origin)) &&
      !NON_PAGE_EXTENSIONS.test(url.pathname) &&
      filter(url);
    const enqueue = (item: CrawlItem): void => {
      const key = canonicalizeUrl(item.url);
      if (seen.has(key)) return;
      seen.add(key);
      pending.push(item);
    };
    for (const seed of seeds) enqueue(seed);

    const report = (): void =>
      options.onProgress?.({
        source,
        done,
        pending: Math.min(pending.length + active, Math.max(0, maxPages - done)),
        indexed: indexedTotal(),
        skipped: skippedTotal,
        ...(current === undefined ? {} : { current }),
      });

    const handleSitemap = (sitemap: Sitemap, sitemapUrl: string): void => {
      const origin = new URL(sitemapUrl).origin;
      for (const entry of sitemap.urls) {
        const url = new URL(entry);
        if (sameOrigin && url.origin !== origin) continue;
        if (sitemap.kind === 'sitemapindex') {
          enqueue({ url: url.href, depth: 0, follow: false, seed: false, sitemap: true });
        } else if (!NON_PAGE_EXTENSIONS.test(url.pathname) && filter(url)) {
          enqueue({ url: url.href, depth: 0, follow: false, seed: false, sitemap: false });
        }
      }
    };

    const fetchItem = (item: CrawlItem): Promise<FetchedPage> =>
      fetcher.fetch(new URL(item.url), {
        signal,
        requestId: 'index',
        deadline: Date.now() + pageTimeoutMs,
      });

    /** Handles one page; never rejects. */
    const processItem = async (item: CrawlItem): Promise<void> => {
      current = item.url;
      report();
      try {
        const page = await fetchItem(item);
        let body = page.body;
        let type = page.contentType;
        if (GZIP_TYPES.has(type) || (XML_TYPES.has(type) && isGzip(body))) {
          body = gunzipCapped(body);
          type = 'application/xml';
        }
        if (XML_TYPES.has(type) || item.sitemap || item.seed) {
          // Only start URLs and sitemap-index entries may be sitemaps; a sitemap linked from a page is not read.
          const sitemap =
            item.sitemap || item.seed
              ? parseSitemap(decodeBytes(body, { charset: page.charset }).text)
              : null;
          if (sitemap) {
            if (++sitemapsRead > maxSitemaps) {
              skip(item.url, 'error', `more than ${maxSitemaps} sitemaps`);
              return;
            }
            if (item.seed) {
              started--; // a start URL that is a sitemap is not a page
              remember(source, 'sitemap');
            }
            handleSitemap(sitemap, page.url);
            return;
          }
          if (item.sitemap) {
            skip(item.url, 'unsupported_type', 'not a sitemap');
            return;
          }
          if (XML_TYPES.has(type) && contentKind(body, 'application/octet-stream') !== 'html') {
            skip(item.url, 'unsupported_type', `media type ${type} is not a page`);
            return;
          }
        }
        const finalUrl = new URL(page.url);
        const key = canonicalizeUrl(page.url);
        seen.add(key);
        if (allowedOrigins !== undefined && !allowedOrigins.has(finalUrl.origin)) {
          if (!item.seed) {
            skip(item.url, 'duplicate', `redirected off the crawled origin to ${page.url}`);
            return;
          }
          allowedOrigins.add(finalUrl.origin); // the start page moved (http→https, www...)
        }
        if (indexedThisRun.has(key)) {
          skip(item.url, 'duplicate', `redirected to ${page.url}, already indexed`);
          return;
        }
        indexedThisRun.add(key); // claimed before the awaits below, so two redirects to one page race safely
        const kind = contentKind(body, type);
        let noindex = false;
        let text: string | Uint8Array = body;
        if (kind === 'html') {
          text = decodeBytes(body, { charset: page.charset, sniffMeta: true }).text;
          const found = readPageLinks(text, page.url, page.headers['x-robots-tag'] ?? '', userAgentToken);
          noindex = found.noindex;
          if (item.follow && item.depth < maxDepth) {
            for (const link of found.links) {
              const url = new URL(link);
              if (inScope(url))
                enqueue({ url: link, depth: item.depth + 1, follow: true, seed: false, sitemap: false });
            }
          }
        } else {
          noindex = /\b(?:noindex|none)\b/i.test(page.headers['x-robots-tag'] ?? '');
        }
        if (noindex) {
          skip(item.url, 'noindex', 'the page asks not to be indexed');
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
          skip(item.url, 'no_text', 'no readable text');
          return;
        }
        count(
          store.put(source, {
            url: key,
            content: content.markdown,
            format: kind === 'text' ? 'text' : 'markdown',
            ...(content.title ? { title: content.title } : {}),
            ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
          }),
        );
      } catch (error) {
        if (signal.aborted) return;
        const reason = skipReasonOf(error);
        // A page that is gone leaves the index.
        const status = isFetchError(error, 'bad_status') ? error.status : undefined;
        if ((status === 404 || status === 410) && store.remove(canonicalizeUrl(item.url))) summary.removed++;
        if (item.seed) summary.sourceErrors.push({ source, message: messageOf(error) });
        skip(item.url, reason, messageOf(error));
      } finally {
        done++;
        await checkpoint().catch(() => undefined);
      }
    };

    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (active < concurrency && pending.length > 0 && !signal.aborted) {
          const next = pending[0]!;
          if (!next.sitemap && started >= maxPages) break;
          pending.shift();
          if (!next.sitemap) started++;
          active++;
          void processItem(next).finally(() => {
            active--;
            report();
            pump();
          });
        }
        if (active === 0) resolve();
      };
      pump();
    });
    summary.notVisited += pending.filter((item) => !item.sitemap).length;
    current = undefined;
    report();
  };

  try {
    for (const source of sources) {
      if (signal.aborted) break;
      let classified: ClassifiedSource;
      try {
        classified = await classifySource(source);
      } catch (error) {
        summary.sourceErrors.push({ source, message: messageOf(error) });
        continue;
      }
      try {
        if (classified.kind === 'folder') await indexFolder(classified.path);
        else if (classified.kind === 'file') {
          remember(classified.path, 'file');
          options.onProgress?.({
            source: classified.path,
            done: 0,
            pending: 1,
            indexed: indexedTotal(),
            skipped: skippedTotal,
            current: classified.path,
          });
          if ((await indexFile(classified.path, classified.path)) === 'skipped') {
            const failure = summary.failures.at(-1);
            summary.sourceErrors.push({ source, message: failure?.message ?? 'skipped' });
          }
        } else if (classified.kind === 'sitemap-file') {
          let bytes: Uint8Array = await readFile(classified.path);
          if (isGzip(bytes)) bytes = gunzipCapped(bytes);
          const sitemap = parseSitemap(decodeBytes(bytes).text);
          if (sitemap === null)
            throw new Error(`${classified.path} is not a sitemap (<urlset> or <sitemapindex>)`);
          const key = pathToFileURL(classified.path).href;
          remember(key, 'sitemap');
          const seeds = sitemap.urls.map((url) =>
            sitemap.kind === 'sitemapindex'
              ? { url, depth: 0, follow: false, seed: false, sitemap: true }
              : { url, depth: 0, follow: false, seed: false, sitemap: false },
          );
          await crawl(
            key,
            seeds.filter((seed) => seed.sitemap || filter(new URL(seed.url))),
            undefined,
          );
        } else {
          const key = canonicalizeUrl(classified.url);
          const origin = new URL(classified.url).origin;
          remember(key, /\.xml(?:\.gz)?$/i.test(new URL(classified.url).pathname) ? 'sitemap' : 'site');
          await crawl(
            key,
            [{ url: classified.url, depth: 0, follow: true, seed: true, sitemap: false }],
            sameOrigin ? new Set([origin]) : undefined,
          );
        }
      } catch (error) {
        summary.sourceErrors.push({ source, message: messageOf(error) });
      }
    }
  } finally {
    await saving?.catch(() => undefined);
    await ownFetcher?.close();
  }
  summary.interrupted = signal.aborted;
  return summary;
}
