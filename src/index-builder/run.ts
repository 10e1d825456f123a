/**
 * The state of one build, shared by the folder and file reader (files.ts) and the crawler (crawl.ts): the
 * summary it returns and the counting into it, progress reports, checkpoints (the store saved every
 * `checkpointMs` while it changes), the fetcher (the caller's, or one made on first use and closed at the
 * end) and the sources remembered in the store.
 */
import { DEFAULT_CONTENT_TYPES } from '../pipeline/fetch/body.ts';
import { isFetchError } from '../pipeline/fetch/errors.ts';
import { createPageFetcher } from '../pipeline/fetch/fetcher.ts';
import type { PageFetcher } from '../pipeline/types.ts';
import {
  SKIP_REASONS,
  type BuildIndexOptions,
  type BuildSettings,
  type IndexProgress,
  type IndexSummary,
  type SkipReason,
} from './builder.ts';
import type { IndexStore, PutResult, SourceKind } from './store.ts';

/** Skipped pages and files the summary lists (the counts go on). */
const MAX_FAILURES_KEPT = 100;

/** Media types of sitemaps, which the crawler's own fetcher accepts beside pages. */
export const XML_TYPES: ReadonlySet<string> = new Set(['application/xml', 'text/xml']);
export const GZIP_TYPES: ReadonlySet<string> = new Set(['application/gzip', 'application/x-gzip']);
const CRAWLER_CONTENT_TYPES = [...DEFAULT_CONTENT_TYPES, ...XML_TYPES, ...GZIP_TYPES];

/** One build in progress; see the module comment. */
export interface BuildRun {
  readonly store: IndexStore;
  readonly settings: BuildSettings;
  readonly summary: IndexSummary;
  /** Counts a document stored. */
  count(result: PutResult): void;
  /** Counts (and, for the first 100, lists) a page or file not indexed. */
  skip(url: string, reason: SkipReason, message: string): void;
  /** Reports progress; the totals are added. */
  progress(at: Omit<IndexProgress, 'indexed' | 'skipped'>): void;
  /** Saves the store if it changed and the last save is `checkpointMs` old. */
  checkpoint(): Promise<void>;
  /** The fetcher of web sources. */
  fetcher(): PageFetcher;
  /** Records a source in the store, with the build's time and label (awaited by `close` at the latest). */
  remember(source: string, kind: SourceKind): Promise<void>;
  /** Waits for a checkpoint still saving and closes the fetcher the build made. */
  close(): Promise<void>;
}

/** Starts the state of one build. */
export function createBuildRun(options: BuildIndexOptions, settings: BuildSettings): BuildRun {
  const { store } = options;
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
  let lastSave = Date.now();
  let saving: Promise<void> | undefined;
  let ownFetcher: (PageFetcher & { close(): Promise<void> }) | undefined;
  const indexedAt = new Date().toISOString();
  const remembering: Promise<void>[] = [];

  return {
    store,
    settings,
    summary,
    count(result) {
      summary[result]++;
    },
    skip(url, reason, message) {
      summary.skipped[reason]++;
      skippedTotal++;
      if (summary.failures.length < MAX_FAILURES_KEPT) summary.failures.push({ url, reason, message });
    },
    progress(at) {
      options.onProgress?.({
        ...at,
        indexed: summary.added + summary.updated + summary.unchanged,
        skipped: skippedTotal,
      });
    },
    async checkpoint() {
      const { checkpointMs } = settings;
      if (checkpointMs === 0 || saving || !store.dirty || Date.now() - lastSave < checkpointMs) return;
      lastSave = Date.now();
      saving = store.save().finally(() => {
        saving = undefined;
      });
      await saving;
    },
    fetcher() {
      if (options.fetcher) return options.fetcher;
      ownFetcher ??= createPageFetcher({
        ...options.fetcherOptions,
        allowedContentTypes: options.fetcherOptions?.allowedContentTypes ?? CRAWLER_CONTENT_TYPES,
        cache: false,
      });
      return ownFetcher;
    },
    remember(source, kind) {
      const remembered = store.setSource({
        source,
        kind,
        indexedAt,
        ...(options.label === undefined ? {} : { label: options.label }),
      });
      remembering.push(remembered);
      return remembered;
    },
    async close() {
      await Promise.all(remembering.splice(0));
      await saving?.catch(() => undefined);
      await ownFetcher?.close();
    },
  };
}

/** Why a failed fetch or read is skipped. */
export function skipReasonOf(error: unknown): SkipReason {
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

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
