/**
 * The document index (see types.ts): the interface, its backends, and how a data directory's index is
 * opened (with the migration of a legacy `index.json`).
 */
export * from './types.ts';
export { analyzeDocument, documentHash, sectionSnippet, sectionTokens } from './analyze.ts';
export { createMemoryDocumentIndex } from './memory.ts';
export {
  createSqliteDocumentIndex,
  SQLITE_DOCUMENT_INDEX_VERSION,
  type SqliteDocumentIndexOptions,
} from './sqlite.ts';
export { createPostgresDocumentIndex, type PostgresDocumentIndexOptions } from './postgres.ts';
