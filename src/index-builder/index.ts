/** The index builder behind `citewise index`: crawl sites and folders into a persisted local index. */
export {
  buildIndex,
  FILE_TYPES,
  INDEX_BUILDER_DEFAULTS,
  SKIP_REASONS,
  type BuildIndexOptions,
  type IndexFailure,
  type IndexProgress,
  type IndexSummary,
  type SkipReason,
} from './builder.ts';
export {
  acquireIndexLock,
  IndexStore,
  indexFilePath,
  INDEX_FILE_NAME,
  type DocumentRecord,
  type IndexedSource,
  type IndexLock,
  type PersistedIndexFile,
  type PutResult,
  type SourceKind,
  type SourceSummary,
} from './store.ts';
export { readPageLinks, type PageLinks } from './html-links.ts';
export {
  gunzipCapped,
  isGzip,
  looksLikeSitemap,
  parseSitemap,
  MAX_SITEMAP_BYTES,
  type Sitemap,
} from './sitemap.ts';
export { compileFilter, compilePattern, type PathPattern } from './patterns.ts';
export {
  createProgressRenderer,
  formatProgressLine,
  renderBar,
  type ProgressRenderer,
  type ProgressRendererOptions,
  type ProgressStream,
} from './progress.ts';
