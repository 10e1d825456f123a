/**
 * The persisted local index: one JSON file in the data directory (`index.json`).
 *
 * The file is a serialised {@link LocalIndex} (`{ version: 1, documents }`, so the `local` search provider
 * reads it directly) plus a `builder` section that remembers where each document came from. Writes are
 * atomic — a temporary file in the same folder, flushed, then renamed over the old one — so a server
 * reading the file always sees a whole version. One writer at a time is enforced by a lock file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  LocalIndex,
  type LocalDocument,
  type LocalDocumentInput,
  type SerializedLocalIndex,
} from '../pipeline/search/local-index.ts';

/** Folders the index creates: their owner alone may list and enter them (as `citewise serve`'s data dir). */
const PRIVATE_DIR_MODE = 0o700;
/** The index file and its lock: their owner alone may read them. */
const PRIVATE_FILE_MODE = 0o600;
/** Name of the index file inside the data directory. */
export const INDEX_FILE_NAME = 'index.json';

/** The persisted index file of a data directory. */
export function indexFilePath(dataDir: string): string {
  return path.join(dataDir, INDEX_FILE_NAME);
}

/** What kind of thing a source is. */
export type SourceKind = 'folder' | 'file' | 'site' | 'sitemap';

/** One source given to `citewise index`, as remembered in the index. */
export interface IndexedSource {
  /** Absolute path, or canonical URL. */
  readonly source: string;
  readonly kind: SourceKind;
  /** `--name` given when it was indexed. */
  readonly label?: string;
  /** ISO 8601 time of the last run that indexed it. */
  readonly indexedAt: string;
}

/** Where a document came from. */
export interface DocumentRecord {
  /** {@link IndexedSource.source} that produced it. */
  readonly source: string;
  /** SHA-256 of its title, format, date and content: tells an update from an unchanged page. */
  readonly hash: string;
  readonly indexedAt: string;
  /**
   * Files only: modification time and size (`mtimeMs:size`) when it was read. A file whose version is
   * unchanged is not read again on the next run.
   */
  readonly fileVersion?: string;
}

/** The index file: a serialised LocalIndex plus the builder's own records. */
export interface PersistedIndexFile extends SerializedLocalIndex {
  readonly builder: {
    readonly version: 1;
    readonly sources: readonly IndexedSource[];
    readonly records: Readonly<Record<string, DocumentRecord>>;
  };
}

/** A source with its document count, for listings. */
export interface SourceSummary extends IndexedSource {
  readonly documents: number;
}

/** Outcome of {@link IndexStore.put}. */
export type PutResult = 'added' | 'updated' | 'unchanged';

function documentHash(document: LocalDocument): string {
  return createHash('sha256')
    .update(JSON.stringify([document.title, document.format, document.publishedAt ?? '', document.content]))
    .digest('hex');
}

/**
 * The index being built: a {@link LocalIndex} and where each document came from. Changes stay in memory
 * until {@link IndexStore.save}.
 */
export class IndexStore {
  readonly file: string;
  readonly index: LocalIndex;
  readonly #records = new Map<string, DocumentRecord>();
  readonly #sources = new Map<string, IndexedSource>();
  #dirty = false;

  private constructor(file: string, index: LocalIndex) {
    this.file = file;
    this.index = index;
  }

  /**
   * Opens the index file, or starts an empty index when it does not exist or `fresh` is set.
   * @throws Error when the file exists but is not an index file.
   */
  static async open(file: string, options: { readonly fresh?: boolean } = {}): Promise<IndexStore> {
    if (typeof file !== 'string' || file.length === 0) throw new TypeError('file must be a path');
    const resolved = path.resolve(file);
    let text: string | undefined;
    if (!options.fresh) {
      try {
        text = await readFile(resolved, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    if (text === undefined) {
      const store = new IndexStore(resolved, new LocalIndex());
      store.#dirty = options.fresh === true;
      return store;
    }
    let data: Partial<PersistedIndexFile>;
    let index: LocalIndex;
    try {
      data = JSON.parse(text) as Partial<PersistedIndexFile>;
      index = LocalIndex.fromJSON(data);
    } catch (error) {
      throw new Error(`${resolved} is not an citewise index (${(error as Error).message})`, {
        cause: error,
      });
    }
    const store = new IndexStore(resolved, index);
    const now = new Date().toISOString();
    for (const source of data.builder?.sources ?? []) store.#sources.set(source.source, source);
    for (const url of index.urls()) {
      const record = data.builder?.records?.[url];
      const document = index.getDocument(url)!;
      store.#records.set(url, {
        source: record?.source ?? '',
        hash: record?.hash ?? documentHash(document),
        indexedAt: record?.indexedAt ?? now,
        ...(typeof record?.fileVersion === 'string' ? { fileVersion: record.fileVersion } : {}),
      });
    }
    return store;
  }

  /** True when there are changes not yet saved. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * Adds or replaces a document (by URL) produced by `source`; `fileVersion` is remembered for files
   * (see {@link DocumentRecord.fileVersion}).
   */
  put(source: string, input: LocalDocumentInput, fileVersion?: string): PutResult {
    const existing = this.#records.get(input.url);
    const previous = this.index.getDocument(input.url);
    const document = this.index.addDocument(input);
    const hash = documentHash(document);
    const result: PutResult =
      previous === undefined ? 'added' : existing?.hash === hash ? 'unchanged' : 'updated';
    if (result === 'unchanged' && existing?.source === source && existing.fileVersion === fileVersion)
      return result;
    this.#records.set(input.url, {
      source,
      hash,
      indexedAt: new Date().toISOString(),
      ...(fileVersion === undefined ? {} : { fileVersion }),
    });
    this.#dirty = true;
    return result;
  }

  /** Removes a document; returns whether it was indexed. */
  remove(url: string): boolean {
    const removed = this.index.removeDocument(url);
    this.#records.delete(url);
    if (removed) this.#dirty = true;
    return removed;
  }

  /**
   * Removes every document whose URL starts with `prefix`, and the sources under it (a folder source
   * matches by its file URL too); returns the removed URLs.
   */
  removeByPrefix(prefix: string): string[] {
    if (typeof prefix !== 'string' || prefix.length === 0) throw new TypeError('prefix must be non-empty');
    const removed = this.index.urls().filter((url) => url.startsWith(prefix));
    for (const url of removed) this.remove(url);
    for (const source of [...this.#sources.keys()]) {
      // Folder and file sources are kept as paths; their documents have file URLs.
      const asUrl = path.isAbsolute(source) ? pathToFileURL(source).href : source;
      if (![source, asUrl, `${asUrl}/`].some((key) => key.startsWith(prefix))) continue;
      this.#sources.delete(source);
      this.#dirty = true;
    }
    return removed;
  }

  /** URLs of the documents produced by `source`. */
  documentsOf(source: string): string[] {
    return [...this.#records].filter(([, record]) => record.source === source).map(([url]) => url);
  }

  /** The record of a document. */
  record(url: string): DocumentRecord | undefined {
    return this.#records.get(url);
  }

  /** Remembers (or refreshes) a source. */
  setSource(source: IndexedSource): void {
    this.#sources.set(source.source, source);
    this.#dirty = true;
  }

  /** Sources with their document counts; documents of unknown origin are listed under source `''`. */
  sources(): SourceSummary[] {
    const counts = new Map<string, number>();
    for (const record of this.#records.values())
      counts.set(record.source, (counts.get(record.source) ?? 0) + 1);
    const summaries: SourceSummary[] = [...this.#sources.values()].map((source) => ({
      ...source,
      documents: counts.get(source.source) ?? 0,
    }));
    const orphans = counts.get('') ?? 0;
    if (orphans > 0) summaries.push({ source: '', kind: 'file', indexedAt: '', documents: orphans });
    return summaries;
  }

  /** The file's JSON form. */
  toJSON(): PersistedIndexFile {
    return {
      ...this.index.toJSON(),
      builder: {
        version: 1,
        sources: [...this.#sources.values()],
        records: Object.fromEntries(this.#records),
      },
    };
  }

  /**
   * Writes the index atomically: a temporary file next to it, flushed to disk, renamed over the old one.
   * Readers see the old or the new version, never a partial one.
   */
  async save(): Promise<void> {
    // The index holds the text of private documents: its folder and file are for their owner only.
    await mkdir(path.dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE });
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'w', PRIVATE_FILE_MODE);
      try {
        await handle.writeFile(JSON.stringify(this.toJSON()));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    this.#dirty = false;
  }
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
