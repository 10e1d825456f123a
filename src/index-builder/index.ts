/**
 * `citewise/index-builder`: the index builder behind `citewise index` — crawl sites, sitemaps and folders
 * into the data directory's document index (`index.sqlite`, or PostgreSQL) that
 * `createLocalIndexProvider({ documentIndex })` searches.
 *
 * ```ts
 * import { createLocalIndexProvider, createSearchEngine } from 'citewise';
 * import { buildIndex, openDataDirIndex } from 'citewise/index-builder';
 *
 * const store = await openDataDirIndex('.citewise');
 * await buildIndex({ store, sources: ['./handbook', 'https://docs.example.com/'], maxPages: 200 });
 * await store.save();
 * const engine = createSearchEngine({ search: createLocalIndexProvider({ paths: [], documentIndex: store.index }) });
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
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
  isPostgresUrl,
  LEGACY_INDEX_FILE_NAME,
  legacyIndexFilePath,
  migrateLegacyIndex,
  openDataDirIndex,
  redactedUrl,
  type IndexStoreOpenOptions,
  type LegacyMigration,
  type OpenDataDirIndexOptions,
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
