/**
 * The persisted local index of a data directory: a {@link DocumentIndex} — SQLite FTS5 in `index.sqlite`
 * (the default), or PostgreSQL when `--index-store` names a database — seen through what the builder
 * needs: documents put by source, records of where each came from (and which file version), the sources
 * given to `citewise index`. A data directory still holding the `index.json` of an earlier version has it
 * migrated into the index on first open ({@link openDataDirIndex}); the file is kept, renamed
 * `index.json.migrated`. One writer at a time is enforced by a lock file.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPostgresDocumentIndex } from '../documents/postgres.ts';
import { withAnalysis, type DocumentAnalysis } from '../documents/common.ts';
import { createSqliteDocumentIndex } from '../documents/sqlite.ts';
import {
  OPERATOR_OWNER,
  type DocumentHit,
  type DocumentIndex,
  type DocumentRecord,
  type IndexedSource,
  type PutResult,
  type SourceKind,
  type SourceSummary,
} from '../documents/types.ts';
import type { LocalDocumentInput, SerializedLocalIndex } from '../pipeline/search/local-index.ts';

export type { DocumentRecord, IndexedSource, PutResult, SourceKind, SourceSummary };

/** Folders the index creates: their owner alone may list and enter them (as `citewise serve`'s data dir). */
const PRIVATE_DIR_MODE = 0o700;
/** The index database and its lock: their owner alone may read them. */
const PRIVATE_FILE_MODE = 0o600;
/**
 * Opens the SQLite index at `file`, creating its folder 0700 and the file 0600 first when missing: the index
 * holds the text of private documents. SQLite gives its `-wal` and `-shm` files the database file's mode.
 */
async function openPrivateSqliteIndex(file: string): Promise<DocumentIndex> {
  await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeFile(file, '', { flag: 'a', mode: PRIVATE_FILE_MODE });
  return createSqliteDocumentIndex({ path: file });
}

/** Name of the index database inside the data directory. */
export const INDEX_FILE_NAME = 'index.sqlite';

/** Name of the index file of citewise versions before the SQLite index; migrated on first open. */
export const LEGACY_INDEX_FILE_NAME = 'index.json';

/** The index database of a data directory. */
export function indexFilePath(dataDir: string): string {
  return path.join(dataDir, INDEX_FILE_NAME);
}

/** The legacy `index.json` of a data directory. */
export function legacyIndexFilePath(dataDir: string): string {
  return path.join(dataDir, LEGACY_INDEX_FILE_NAME);
}

/** The legacy index file: a serialised LocalIndex plus the builder's own records. */
export interface PersistedIndexFile extends SerializedLocalIndex {
  readonly builder: {
    readonly version: 1;
    readonly sources: readonly IndexedSource[];
    readonly records: Readonly<Record<string, DocumentRecord>>;
  };
}

/** Whether an index store setting names a PostgreSQL database. */
export function isPostgresUrl(value: string | undefined): value is string {
  return value !== undefined && /^postgres(?:ql)?:\/\//i.test(value);
}

/** A PostgreSQL URL with its password hidden, for logs and listings. */
export function redactedUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return 'postgres://…';
  }
}

/** The PostgreSQL index of a URL; its own `?schema=NAME` parameter picks the schema. */
function postgresIndex(target: string): DocumentIndex {
  const url = new URL(target);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  return createPostgresDocumentIndex({
    connectionString: url.href,
    ...(schema === undefined ? {} : { schema }),
  });
}

/** Options of {@link IndexStore.open}. */
export interface IndexStoreOpenOptions {
  /** Start empty: every document and source of the operator is removed first. */
  readonly fresh?: boolean;
}

/** The operator's documents of a data directory's index, as the builder writes and lists them. */
export class IndexStore {
  /** The database file, or the PostgreSQL URL with its password hidden. */
  readonly file: string;
  readonly index: DocumentIndex;
  readonly #owned: boolean;
  #dirty = false;

  private constructor(file: string, index: DocumentIndex, owned: boolean) {
    this.file = file;
    this.index = index;
    this.#owned = owned;
  }

  /**
   * Opens an index: a SQLite file path (created if missing), a `postgres://` URL, or an open
   * {@link DocumentIndex} (not closed by {@link IndexStore.close}).
   */
  static async open(
    target: string | DocumentIndex,
    options: IndexStoreOpenOptions = {},
  ): Promise<IndexStore> {
    let store: IndexStore;
    if (typeof target === 'string') {
      if (target.length === 0) throw new TypeError('file must be a path');
      store = isPostgresUrl(target)
        ? new IndexStore(redactedUrl(target), postgresIndex(target), true)
        : new IndexStore(path.resolve(target), await openPrivateSqliteIndex(path.resolve(target)), true);
    } else if (target !== null && typeof target === 'object' && typeof target.search === 'function') {
      store = new IndexStore('(document index)', target, false);
    } else throw new TypeError('target must be a path, a postgres:// URL or a DocumentIndex');
    if (options.fresh) {
      await store.removeByPrefix('');
      for (const source of await store.index.sources())
        if (source.source !== '') await store.index.removeSource(source.source);
      store.#dirty = true;
    }
    return store;
  }

  /** True when there are changes not yet saved. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * Adds or replaces a document (by URL) produced by `source`; `fileVersion` is remembered for files
   * (see {@link DocumentRecord.fileVersion}); `analysis`, when given, is the input's analysis computed
   * already (by a worker thread reading the file).
   */
  async put(
    source: string,
    input: LocalDocumentInput,
    fileVersion?: string,
    analysis?: DocumentAnalysis,
  ): Promise<PutResult> {
    const result = await this.index.put(analysis === undefined ? input : withAnalysis(input, analysis), {
      owner: OPERATOR_OWNER,
      source,
      ...(fileVersion === undefined ? {} : { fileVersion }),
    });
    this.#dirty = true;
    return result;
  }

  /** Removes a document; returns whether it was indexed. */
  async remove(url: string): Promise<boolean> {
    const removed = await this.index.remove(url, OPERATOR_OWNER);
    if (removed) this.#dirty = true;
    return removed;
  }

  /** URLs of the operator's documents whose URL starts with `prefix` (all with `''`), by URL. */
  async urls(prefix = ''): Promise<string[]> {
    const urls: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.index.list({
        urlPrefix: prefix,
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const document of page.documents) urls.push(document.url);
      cursor = page.cursor;
    } while (cursor !== undefined);
    return urls;
  }

  /**
   * Removes every document whose URL starts with `prefix` (`''`: all of them), and the sources under it
   * (a folder source matches by its file URL too); returns the removed URLs.
   */
  async removeByPrefix(prefix: string): Promise<string[]> {
    if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
    const removed = await this.urls(prefix);
    for (const url of removed) await this.index.remove(url, OPERATOR_OWNER);
    if (prefix !== '') {
      for (const { source } of await this.index.sources()) {
        if (source === '') continue;
        // Folder and file sources are kept as paths; their documents have file URLs.
        const asUrl = path.isAbsolute(source) ? pathToFileURL(source).href : source;
        if (![source, asUrl, `${asUrl}/`].some((key) => key.startsWith(prefix))) continue;
        await this.index.removeSource(source);
      }
    }
    this.#dirty = true;
    return removed;
  }

  /** URLs of the documents produced by `source`. */
  async documentsOf(source: string): Promise<string[]> {
    const urls: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.index.list({
        source,
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const document of page.documents) urls.push(document.url);
      cursor = page.cursor;
    } while (cursor !== undefined);
    return urls;
  }

  /**
   * The documents produced by `source`, by URL, with the file version each was read at (`''` when none):
   * one listing instead of a lookup per file.
   */
  async fileVersionsOf(source: string): Promise<Map<string, string>> {
    const versions = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await this.index.list({
        source,
        limit: 1000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const document of page.documents) versions.set(document.url, document.fileVersion ?? '');
      cursor = page.cursor;
    } while (cursor !== undefined);
    return versions;
  }

  /** The record of a document. */
  record(url: string): Promise<DocumentRecord | undefined> {
    return this.index.record(url, OPERATOR_OWNER);
  }

  /** Remembers (or refreshes) a source. */
  async setSource(source: IndexedSource): Promise<void> {
    await this.index.setSource(source);
    this.#dirty = true;
  }

  /** Sources with their document counts; documents of unknown origin are listed under source `''`. */
  sources(): Promise<SourceSummary[]> {
    return this.index.sources();
  }

  /** Number of the operator's documents. */
  async size(): Promise<number> {
    return (await this.index.usage(OPERATOR_OWNER)).documents;
  }

  /** The operator's documents matching `query`, best first. */
  search(query: string, limit?: number): Promise<DocumentHit[]> {
    return this.index.search(query, { owners: [OPERATOR_OWNER], ...(limit === undefined ? {} : { limit }) });
  }

  /** Makes the writes so far durable and visible to readers (a `serve` searching this index). */
  async save(): Promise<void> {
    await this.index.flush();
    this.#dirty = false;
  }

  /** Saves, and closes the index unless it was given open. */
  async close(): Promise<void> {
    await this.save();
    if (this.#owned) await this.index.close();
  }
}

/** What {@link migrateLegacyIndex} did. */
export interface LegacyMigration {
  /** The legacy file, now renamed with `.migrated`. */
  readonly file: string;
  readonly documents: number;
  readonly sources: number;
}

/**
 * Moves the documents, records and sources of a data directory's legacy `index.json` into `store`, then
 * renames the file `index.json.migrated` (kept, so nothing is lost). Does nothing when there is no legacy
 * file. Running it again after a crash half-way is safe: documents are put by URL.
 * @throws Error when the file is not a citewise index (it is left where it is).
 */
export async function migrateLegacyIndex(
  dataDir: string,
  store: IndexStore,
): Promise<LegacyMigration | null> {
  const file = legacyIndexFilePath(dataDir);
  let text: string;
  try {
    if (!(await stat(file)).isFile()) return null;
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let data: Partial<PersistedIndexFile>;
  try {
    data = JSON.parse(text) as Partial<PersistedIndexFile>;
    if (data?.version !== 1 || !Array.isArray(data.documents))
      throw new Error('not a serialised index (version 1)');
  } catch (error) {
    throw new Error(`${file} is not an citewise index (${(error as Error).message}); move it away to start`, {
      cause: error,
    });
  }
  const records = data.builder?.records ?? {};
  let documents = 0;
  for (const raw of data.documents as readonly unknown[]) {
    const document = raw as Partial<
      Record<'url' | 'content' | 'format' | 'title' | 'publishedAt', unknown>
    > | null;
    if (typeof document?.url !== 'string' || typeof document.content !== 'string') continue;
    const record = records[document.url];
    await store.put(
      record?.source ?? '',
      {
        url: document.url,
        content: document.content,
        format: document.format === 'text' ? 'text' : 'markdown',
        ...(typeof document.title === 'string' ? { title: document.title } : {}),
        ...(typeof document.publishedAt === 'string' ? { publishedAt: document.publishedAt } : {}),
      },
      typeof record?.fileVersion === 'string' ? record.fileVersion : undefined,
    );
    documents++;
  }
  const sources = data.builder?.sources ?? [];
  for (const source of sources) await store.setSource(source);
  await store.save();
  await rename(file, `${file}.migrated`);
  return { file, documents, sources: sources.length };
}

/** Options of {@link openDataDirIndex}. */
export interface OpenDataDirIndexOptions extends IndexStoreOpenOptions {
  /** A `postgres://` URL to keep the index in PostgreSQL instead of `index.sqlite`. */
  readonly indexStore?: string;
  /** Told when a legacy `index.json` was migrated. */
  readonly log?: (message: string) => void;
}

/**
 * Opens the index of a data directory (`index.sqlite`, or the PostgreSQL database of `indexStore`),
 * migrating its legacy `index.json` first if there is one and no other process holds the writer lock.
 */
export async function openDataDirIndex(
  dataDir: string,
  options: OpenDataDirIndexOptions = {},
): Promise<IndexStore> {
  const target = isPostgresUrl(options.indexStore) ? options.indexStore : indexFilePath(dataDir);
  const store = await IndexStore.open(target, options);
  try {
    const legacy = legacyIndexFilePath(dataDir);
    if (
      await stat(legacy).then(
        () => true,
        () => false,
      )
    ) {
      let lock: IndexLock | undefined;
      try {
        lock = await acquireIndexLock(indexFilePath(dataDir));
      } catch {
        // Another process (an index run) holds the lock: it migrates the file.
      }
      if (lock !== undefined) {
        try {
          const migrated = await migrateLegacyIndex(dataDir, store);
          if (migrated)
            options.log?.(
              `Migrated ${migrated.documents} document${migrated.documents === 1 ? '' : 's'} and ` +
                `${migrated.sources} source${migrated.sources === 1 ? '' : 's'} from ${migrated.file} into ` +
                `${store.file}; the old file is kept as ${migrated.file}.migrated.`,
            );
        } finally {
          await lock.release();
        }
      }
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** A held index lock; `release` deletes the lock file. */
export interface IndexLock {
  release(): Promise<void>;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the writer lock of an index file (`<file>.lock`, holding the owner's pid), so that two index runs
 * cannot overwrite each other's work. A lock left by a process that no longer runs is taken over.
 * @throws Error when another running process holds the lock.
 */
export async function acquireIndexLock(file: string): Promise<IndexLock> {
  const lockFile = `${path.resolve(file)}.lock`;
  await mkdir(path.dirname(lockFile), { recursive: true, mode: PRIVATE_DIR_MODE });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx', mode: PRIVATE_FILE_MODE });
      return { release: () => rm(lockFile, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(owner) && owner > 0 && processIsAlive(owner)) {
        throw new Error(
          `another citewise index run (pid ${owner}) is writing ${file}; wait for it, or delete ${lockFile} if it is stale`,
          { cause: error },
        );
      }
      await rm(lockFile, { force: true });
    }
  }
  throw new Error(`could not take the lock ${lockFile}`);
}
