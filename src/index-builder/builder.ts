/**
 * Builds the persisted local index from sources: folders and files (HTML, Markdown, text, PDF: files.ts),
 * web sites (a breadth-first crawl of same-origin links: crawl.ts) and sitemaps (URL or file, `<urlset>` and
 * `<sitemapindex>`, gzip or plain). The state of one build (its summary, checkpoints, fetcher) is run.ts.
 *
 * Every web request goes through the page fetcher (SSRF guard, robots.txt, size and time limits); every
 * page through `extractContent`. Documents are keyed by canonical URL (file URL for files), so running the
 * same sources again updates documents in place.
 */
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeBytes } from '../pipeline/extract/decode.ts';
import { DEFAULT_USER_AGENT, type PageFetcherOptions } from '../pipeline/fetch/fetcher.ts';
import { canonicalizeUrl } from '../pipeline/search/url.ts';
import type { PageFetcher } from '../pipeline/types.ts';
import { nonNegativeInteger, positiveInteger } from '../options.ts';
import { crawl, type CrawlItem } from './crawl.ts';
import { indexFile, indexFolder } from './files.ts';
export { FILE_TYPES } from '../pipeline/extract/read-file.ts';
import { MAX_DOCUMENT_FILE_BYTES } from '../pipeline/extract/read-file.ts';
import { compileFilter } from './patterns.ts';
import { createBuildRun, messageOf, type BuildRun } from './run.ts';
import { gunzipCapped, isGzip, parseSitemap } from './sitemap.ts';
import type { IndexStore } from './store.ts';

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
   * @default 30000
   */
  readonly pageTimeoutMs?: number;
  /**
   * Local files larger than this (10 MiB) are skipped.
   * @default 10485760
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
   * @default 30000
   */
  readonly checkpointMs?: number;
  /**
   * Worker threads reading and analysing the files of a folder: one per core, at most this many (`0`: the
   * calling thread does it).
   * @default 4
   */
  readonly maxReadWorkers?: number;
  /**
   * Changed files of a folder from which they are read on worker threads (fewer are read in the calling
   * thread: starting workers costs more than they save).
   * @default 200
   */
  readonly readWorkersFrom?: number;
  /** Stops the build; pages in flight are abandoned and the summary says `interrupted`. */
  readonly signal?: AbortSignal;
  /** Called after every page or file. */
  readonly onProgress?: (progress: IndexProgress) => void;
}

/** Defaults of {@link buildIndex}; `citewise index` shows and passes the first three as its flags' defaults. */
export const INDEX_BUILDER_DEFAULTS = {
  maxPages: 500,
  maxDepth: 3,
  concurrency: 4,
  pageTimeoutMs: 30_000,
  maxFileBytes: MAX_DOCUMENT_FILE_BYTES,
  maxSitemaps: 50,
  checkpointMs: 30_000,
  sameOrigin: true,
  maxReadWorkers: 4,
  readWorkersFrom: 200,
} as const;

/** Array.isArray would widen a readonly string[] to any[]; this keeps the type. */
function isNonEmptyStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
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

/** The options of a build, checked, with every default applied. */
export interface BuildSettings {
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly concurrency: number;
  readonly pageTimeoutMs: number;
  readonly maxFileBytes: number;
  readonly maxSitemaps: number;
  readonly checkpointMs: number;
  /** Worker threads reading a folder's files (`maxReadWorkers`, at most one per core). */
  readonly readWorkers: number;
  readonly readWorkersFrom: number;
  readonly sameOrigin: boolean;
  /** Whether a URL (or a file's path below its folder) is in `include` and not in `exclude`. */
  readonly filter: (target: URL | string) => boolean;
  readonly signal: AbortSignal;
  /** The product token of the fetcher's user agent, matched by `<meta name="…">` robots rules. */
  readonly userAgentToken: string;
}

function resolveBuildSettings(options: BuildIndexOptions): BuildSettings {
  const { store } = options;
  if (store === null || typeof store !== 'object' || typeof store.put !== 'function')
    throw new TypeError('store must be an IndexStore');
  if (!isNonEmptyStringList(options.sources))
    throw new TypeError('sources must be an array of paths or URLs');
  const defaults = INDEX_BUILDER_DEFAULTS;
  const userAgent = options.fetcherOptions?.userAgent ?? DEFAULT_USER_AGENT;
  return {
    maxPages: positiveInteger('maxPages', options.maxPages, defaults.maxPages),
    maxDepth: nonNegativeInteger('maxDepth', options.maxDepth, defaults.maxDepth),
    concurrency: positiveInteger('concurrency', options.concurrency, defaults.concurrency),
    pageTimeoutMs: positiveInteger('pageTimeoutMs', options.pageTimeoutMs, defaults.pageTimeoutMs),
    maxFileBytes: positiveInteger('maxFileBytes', options.maxFileBytes, defaults.maxFileBytes),
    maxSitemaps: positiveInteger('maxSitemaps', options.maxSitemaps, defaults.maxSitemaps),
    checkpointMs: nonNegativeInteger('checkpointMs', options.checkpointMs, defaults.checkpointMs),
    readWorkers: Math.min(
      availableParallelism(),
      nonNegativeInteger('maxReadWorkers', options.maxReadWorkers, defaults.maxReadWorkers),
    ),
    readWorkersFrom: nonNegativeInteger('readWorkersFrom', options.readWorkersFrom, defaults.readWorkersFrom),
    sameOrigin: options.sameOrigin ?? defaults.sameOrigin,
    filter: compileFilter(options.include, options.exclude),
    signal: options.signal ?? new AbortController().signal,
    userAgentToken: userAgent.split('/')[0]!.trim().toLowerCase(),
  };
}

/**
 * Indexes `sources` into `options.store`. Never throws for a page or file that fails: those are counted
 * in the summary; sources that cannot be read at all are listed in `sourceErrors`.
 *
 * @throws TypeError/RangeError on invalid options.
 */
export async function buildIndex(options: BuildIndexOptions): Promise<IndexSummary> {
  const settings = resolveBuildSettings(options);
  const run = createBuildRun(options, settings);
  const { summary } = run;
  try {
    for (const source of options.sources) {
      if (settings.signal.aborted) break;
      let classified: ClassifiedSource;
      try {
        classified = await classifySource(source);
      } catch (error) {
        summary.sourceErrors.push({ source, message: messageOf(error) });
        continue;
      }
      try {
        await indexSource(run, source, classified);
      } catch (error) {
        summary.sourceErrors.push({ source, message: messageOf(error) });
      }
    }
  } finally {
    await run.close();
  }
  summary.interrupted = settings.signal.aborted;
  return summary;
}

/** Indexes one classified source: a folder, a file, a sitemap file, or a web page or sitemap URL. */
async function indexSource(run: BuildRun, source: string, classified: ClassifiedSource): Promise<void> {
  const { settings, summary } = run;
  if (classified.kind === 'folder') return indexFolder(run, classified.path);
  if (classified.kind === 'file') {
    await run.remember(classified.path, 'file');
    run.progress({ source: classified.path, done: 0, pending: 1, current: classified.path });
    if ((await indexFile(run, classified.path, classified.path)) === 'skipped') {
      const failure = summary.failures.at(-1);
      summary.sourceErrors.push({ source, message: failure?.message ?? 'skipped' });
    }
    return;
  }
  if (classified.kind === 'sitemap-file') {
    let bytes: Uint8Array = await readFile(classified.path);
    if (isGzip(bytes)) bytes = gunzipCapped(bytes);
    const sitemap = parseSitemap(decodeBytes(bytes).text);
    if (sitemap === null) throw new Error(`${classified.path} is not a sitemap (<urlset> or <sitemapindex>)`);
    const key = pathToFileURL(classified.path).href;
    await run.remember(key, 'sitemap');
    const seeds: CrawlItem[] = sitemap.urls.map((url) => ({
      url,
      depth: 0,
      follow: false,
      seed: false,
      sitemap: sitemap.kind === 'sitemapindex',
    }));
    return crawl(
      run,
      key,
      seeds.filter((seed) => seed.sitemap || settings.filter(new URL(seed.url))),
      undefined,
    );
  }
  const key = canonicalizeUrl(classified.url);
  const origin = new URL(classified.url).origin;
  await run.remember(key, /\.xml(?:\.gz)?$/i.test(new URL(classified.url).pathname) ? 'sitemap' : 'site');
  return crawl(
    run,
    key,
    [{ url: classified.url, depth: 0, follow: true, seed: true, sitemap: false }],
    settings.sameOrigin ? new Set([origin]) : undefined,
  );
}
