/**
 * The local full-text index: Markdown, text and HTML files from folders, split into sections at headings,
 * scored with BM25 in memory. `createLocalIndexProvider` exposes it as the `local` search provider (the
 * embedded default: it needs no network and no keys); `LocalIndex` is the index itself, with documents
 * that can be added and removed at any time and a JSON form for persistence.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { integerOption, positiveInteger } from '../../options.ts';
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../types.ts';
import { Bm25Index, type Bm25Options } from '../../text/bm25.ts';
import { FILE_TYPES, MAX_DOCUMENT_FILE_BYTES, readDocumentFile } from '../extract/read-file.ts';
import { OPERATOR_OWNER, type DocumentHit, type DocumentIndex } from '../../documents/types.ts';
import { tokenizeQuery } from '../../text/tokenize.ts';
import { analyzeDocument, sectionSnippet, sectionTokens } from '../../documents/analyze.ts';
import { corpusDocumentUrl, fileDocumentUrl, normalizePublicUrl, relativeToRoot } from './corpus-url.ts';
import { createIndexFileSync } from './index-files.ts';
import { documentSearchHit, withHitFields } from './hits.ts';

/** Defaults of the local index and its provider. */
export const LOCAL_INDEX_DEFAULTS = {
  /** Characters of a hit's snippet. */
  snippetLength: 300,
  /** Hits of one {@link LocalIndex.search}. */
  limit: 10,
  /** Larger files are not indexed (the same limit as `citewise index`). */
  maxFileBytes: MAX_DOCUMENT_FILE_BYTES,
} as const;

/** A document to add to a {@link LocalIndex}. */
export interface LocalDocumentInput {
  /** Identity of the document and the URL returned in hits. Adding the same URL again replaces it. */
  readonly url: string;
  /** Markdown (or plain text when `format` is `text`). */
  readonly content: string;
  /**
   * How `content` is split into sections: `markdown` splits at headings, `text` keeps one section.
   * @default 'markdown'
   */
  readonly format?: 'markdown' | 'text';
  /** Title; defaults to the first level-1 heading, else the first heading, else the URL's last path segment. */
  readonly title?: string;
  /** ISO 8601 date, passed through to hits. */
  readonly publishedAt?: string;
}

/** A document as stored in the index. */
export interface LocalDocument {
  readonly url: string;
  readonly title: string;
  readonly content: string;
  readonly format: 'markdown' | 'text';
  readonly publishedAt?: string;
  readonly sections: readonly { readonly heading?: string; readonly text: string }[];
}

/** One result of {@link LocalIndex.search}: a document, scored by its best section. */
export type LocalIndexHit = Omit<DocumentHit, 'id' | 'owner'>;

/** Options of {@link LocalIndex}. */
export interface LocalIndexOptions {
  /** BM25 parameters. */
  readonly bm25?: Bm25Options;
  /**
   * Maximum characters of a hit's snippet.
   * @default 300
   */
  readonly snippetLength?: number;
  /** Locale for lower-casing and sentence splitting. */
  readonly locale?: string;
}

/** JSON form of a {@link LocalIndex} (documents only; the inverted index is rebuilt on load). */
export interface SerializedLocalIndex {
  readonly version: 1;
  readonly documents: readonly LocalDocument[];
}

const SECTION_SEPARATOR = '\u0000';

/**
 * In-memory BM25 index over sections of documents. A section is the text under one heading, indexed with
 * the document title and its heading; a document scores as its best section.
 */
export class LocalIndex {
  readonly #bm25: Bm25Index;
  readonly #documents = new Map<string, LocalDocument>();
  readonly #options: LocalIndexOptions;
  readonly #snippetLength: number;

  constructor(options: LocalIndexOptions = {}) {
    const snippetLength = integerOption(
      'snippetLength',
      options.snippetLength,
      LOCAL_INDEX_DEFAULTS.snippetLength,
      20,
    );
    this.#bm25 = new Bm25Index(options.bm25);
    this.#options = options;
    this.#snippetLength = snippetLength;
  }

  /** Number of documents. */
  get size(): number {
    return this.#documents.size;
  }

  has(url: string): boolean {
    return this.#documents.has(url);
  }

  getDocument(url: string): LocalDocument | undefined {
    return this.#documents.get(url);
  }

  /** URLs of all documents, in insertion order. */
  urls(): string[] {
    return [...this.#documents.keys()];
  }

  /**
   * Adds a document, replacing the one with the same URL.
   * @throws TypeError when `url` or `content` is not a string.
   */
  addDocument(input: LocalDocumentInput): LocalDocument {
    const document = analyzeDocument(input);
    this.#insert(document);
    return document;
  }

  #insert(document: LocalDocument): void {
    this.removeDocument(document.url);
    this.#documents.set(document.url, document);
    const locale = this.#options.locale;
    document.sections.forEach((section, i) => {
      const tokens = sectionTokens(document.title, section, locale);
      this.#bm25.add(`${document.url}${SECTION_SEPARATOR}${i}`, tokens);
    });
  }

  /** Removes a document; returns whether it was indexed. */
  removeDocument(url: string): boolean {
    const document = this.#documents.get(url);
    if (document === undefined) return false;
    document.sections.forEach((_, i) => this.#bm25.remove(`${url}${SECTION_SEPARATOR}${i}`));
    this.#documents.delete(url);
    return true;
  }

  /** Documents matching the query, best first, at most `limit`. Documents sharing no term with the query are not returned. */
  search(query: string, limit: number = LOCAL_INDEX_DEFAULTS.limit): LocalIndexHit[] {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
    if (limit === 0) return [];
    const locale = this.#options.locale;
    const queryTokens = tokenizeQuery(query, { locale });
    const best = new Map<string, { section: number; score: number }>();
    for (const match of this.#bm25.search(queryTokens)) {
      const separator = match.id.lastIndexOf(SECTION_SEPARATOR);
      const url = match.id.slice(0, separator);
      if (!best.has(url))
        best.set(url, { section: Number(match.id.slice(separator + 1)), score: match.score });
      if (best.size >= limit) break;
    }
    const querySet = new Set(queryTokens);
    const hits: LocalIndexHit[] = [];
    for (const [url, { section, score }] of best) {
      const document = this.#documents.get(url);
      const bestSection = document?.sections[section];
      if (document === undefined || bestSection === undefined) continue;
      const hit: LocalIndexHit = {
        url,
        title: document.title,
        snippet: this.#snippet(bestSection.text || bestSection.heading || '', querySet),
        content: document.content,
        score,
        ...(bestSection.heading === undefined ? {} : { heading: bestSection.heading }),
        ...(document.publishedAt === undefined ? {} : { publishedAt: document.publishedAt }),
      };
      hits.push(hit);
    }
    return hits;
  }

  #snippet(text: string, queryTokens: ReadonlySet<string>): string {
    return sectionSnippet(text, queryTokens, this.#snippetLength, this.#options.locale);
  }

  /** JSON form: the documents with their sections. */
  toJSON(): SerializedLocalIndex {
    return { version: 1, documents: [...this.#documents.values()] };
  }

  /**
   * Rebuilds an index from {@link LocalIndex.toJSON} output.
   * @throws TypeError when the data is not a serialised local index of a known version.
   */
  static fromJSON(data: unknown, options: LocalIndexOptions = {}): LocalIndex {
    const index = new LocalIndex(options);
    index.importJSON(data);
    return index;
  }

  /**
   * Adds the documents of a serialised index ({@link LocalIndex.toJSON} output; fields it does not know
   * are ignored), replacing documents with the same URL. Everything is validated before anything is added.
   * @returns the URLs of the imported documents.
   * @throws TypeError when the data is not a serialised local index of a known version.
   */
  importJSON(data: unknown): string[] {
    const serialized = data as Partial<SerializedLocalIndex> | null;
    if (
      serialized === null ||
      typeof serialized !== 'object' ||
      serialized.version !== 1 ||
      !Array.isArray(serialized.documents)
    ) {
      throw new TypeError('not a serialised LocalIndex (version 1)');
    }
    const documents: LocalDocument[] = [];
    for (const raw of serialized.documents as readonly unknown[]) {
      const document = raw as Partial<LocalDocument> | null;
      const valid =
        typeof document?.url === 'string' &&
        typeof document.title === 'string' &&
        typeof document.content === 'string' &&
        (document.format === 'markdown' || document.format === 'text') &&
        (document.publishedAt === undefined || typeof document.publishedAt === 'string') &&
        Array.isArray(document.sections) &&
        document.sections.every(
          (section) =>
            typeof (section as { text?: unknown } | null)?.text === 'string' &&
            ['undefined', 'string'].includes(typeof (section as { heading?: unknown }).heading),
        );
      if (!valid) throw new TypeError('invalid document in serialised LocalIndex');
      const { url, title, content, format, publishedAt, sections } = document as LocalDocument;
      // Copy the known fields only, so that extra fields of a file are not kept (nor written back).
      documents.push({
        url,
        title,
        content,
        format,
        ...(publishedAt === undefined ? {} : { publishedAt }),
        sections: sections.map((s) =>
          s.heading === undefined ? { text: s.text } : { heading: s.heading, text: s.text },
        ),
      });
    }
    for (const document of documents) this.#insert(document);
    return documents.map((document) => document.url);
  }
}

/** Options of {@link createLocalIndexProvider}. */
export interface LocalIndexProviderOptions extends LocalIndexOptions {
  /** Folders (or single files) to index, recursively. Hidden entries and `node_modules` are skipped. */
  readonly paths: readonly string[];
  /**
   * Folders searched only while `paths` and `indexFiles` hold no document: the corpus to fall back on until
   * the user gives documents of their own (`citewise serve` falls back on its manual, and stops answering
   * from it once `--corpus` or `citewise index` gave documents). They are numbered after `paths` for
   * `publicUrl` URLs. @default []
   */
  readonly fallbackPaths?: readonly string[];
  /**
   * When set, a document's URL is `baseUrl` + its path relative to its folder (e.g.
   * `https://example.com/docs/` + `api-keys.md`); otherwise its `file://` URL.
   */
  readonly baseUrl?: string;
  /**
   * Where the citewise service that serves these folders is reached (`createSearchEngine`'s `publicUrl`):
   * a document's URL is then `<publicUrl>/docs/<path in its folder>` for the first folder,
   * `<publicUrl>/docs/2/<path>` for the second, and so on (see {@link corpusDocumentUrl}), the URLs the
   * service's `GET /docs/…` route answers. Documents of `indexFiles` with `file:` URLs inside a folder get
   * the same URLs; those outside every folder get `<publicUrl>/docs/.indexed/<hash>/<name>` (see
   * {@link LocalIndexProvider.indexedFile}): a source is never a server path.
   * Ignored when `baseUrl` is set. @default none: `file://` URLs (the provider used on its own)
   */
  readonly publicUrl?: string;
  /**
   * File extensions indexed (lower-case, with the dot), among those `citewise index` reads ({@link FILE_TYPES}).
   * @default every extension of FILE_TYPES (Markdown, text, HTML, XHTML, PDF)
   */
  readonly extensions?: readonly string[];
  /**
   * Larger files are skipped.
   * @default 10_485_760 (as `citewise index`)
   */
  readonly maxFileBytes?: number;
  /**
   * Persisted index files (serialised {@link LocalIndex}es, such as the `index.json` that
   * `citewise index` writes) searched together with `paths`. A file is read on load and read again by
   * the first search after its modification time or size changed, so a rebuilt index is picked up without a
   * restart; a missing file counts as empty. When a changed file cannot be parsed, its previous documents
   * stay until it changes again.
   * @default []
   */
  readonly indexFiles?: readonly string[];
  /**
   * A document index searched with the folders: its operator documents (those `citewise index` put in the
   * data directory's `index.sqlite`, or a shared PostgreSQL index) count as the user's own. It is read at
   * search time, never loaded into memory. Hits of the folders and of the index are merged by score.
   */
  readonly documentIndex?: DocumentIndex;
}

/**
 * A document file of an index outside the corpus folders, and the source it was indexed from (a folder, or
 * the file itself): it is served only while its real path is a regular file inside that source's real path.
 */
export interface IndexedDocumentFile {
  /** The file's path as indexed. */
  readonly file: string;
  /** The folder (or file) given to `citewise index` that the file came from. */
  readonly root: string;
}

/** The `local` search provider, with access to its index. */
export interface LocalIndexProvider extends SearchProvider {
  readonly id: 'local';
  /** The index; empty until {@link LocalIndexProvider.load} (or the first search) has completed. */
  readonly index: LocalIndex;
  /**
   * Reads the folders (once; later calls return the same promise). Rejects when a path cannot be read; a
   * failed load is retried by the next call.
   */
  load(): Promise<LoadReport>;
  /** Reads the folders again, adding, replacing and removing documents to match them. */
  reload(): Promise<LoadReport>;
  /**
   * With `publicUrl`: the file of an `indexFiles` document outside the corpus folders, by the path of its
   * URL below `/docs/` (as the URL has it, percent-encoded); `undefined` for any other path. Pass it as the
   * engine's `indexedFiles` so that `GET /docs/…` serves these files too. A file of the document index is
   * looked up there by its id, so every instance sharing the index serves it, whether or not it was a hit
   * of this process.
   */
  readonly indexedFile: (encodedPath: string) => Promise<IndexedDocumentFile | undefined>;
  /**
   * Whether documents other than those of `fallbackPaths` are indexed (the user's own documents): then
   * searches leave the fallback folders out. `false` until loaded.
   */
  hasOwnDocuments(): boolean;
}

/** What {@link LocalIndexProvider.load} indexed. */
export interface LoadReport {
  readonly documents: number;
  /** Files that could not be read or had no text, with the reason. */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
}

/**
 * The document files below `root` (or `root` itself when it is a file), sorted by name, skipping hidden
 * entries and `node_modules`. `accepts` decides by lower-case extension (e.g. `.md`).
 */
export async function listDocumentFiles(
  root: string,
  accepts: (extension: string) => boolean,
): Promise<string[]> {
  const info = await stat(root);
  if (info.isFile()) return [root];
  const files: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && accepts(path.extname(entry.name).toLowerCase())) files.push(full);
    }
  };
  await walk(root);
  return files;
}

/**
 * The source an indexed file must stay inside when served: the folder (or file) it was indexed from when
 * that is a local path holding it, else the file's own folder.
 */
function sourceOf(file: string, source: string | undefined): string {
  if (source !== undefined && path.isAbsolute(source)) {
    const root = path.resolve(source);
    if (file === root || file.startsWith(`${root}${path.sep}`)) return root;
  }
  return path.dirname(file);
}

/** Where documents of index files outside the corpus folders are served, below `/docs/`. */
const INDEXED_FILES_PREFIX = '.indexed/';
/** `.indexed/<document id>/<file name>`: a file of the document index (`citewise index`), by its id. */
const STORED_FILE_PATH = /^\.indexed\/(doc_[0-9a-f]{20})\/([^/]+)$/;

/**
 * Creates the `local` search provider over Markdown, text and HTML files in `paths`. Files are read on
 * `load()` or on the first search. Hits carry the whole document as `content`, so the pipeline does not
 * fetch them; filters other than `includeDomains`/`excludeDomains` (matched against the URL's host, which
 * only `baseUrl` URLs have) are ignored.
 *
 * @throws TypeError when `paths` is empty (and no `indexFiles` are given) or `baseUrl` is not an absolute URL.
 */
export function createLocalIndexProvider(options: LocalIndexProviderOptions): LocalIndexProvider {
  const indexFiles: readonly string[] = options?.indexFiles ?? [];
  const fallbackPaths: readonly string[] = options?.fallbackPaths ?? [];
  const isPathList = (value: unknown): value is readonly string[] =>
    Array.isArray(value) && value.every((f) => typeof f === 'string' && f.length > 0);
  if (!isPathList(indexFiles)) throw new TypeError('indexFiles must be an array of file paths');
  if (!isPathList(fallbackPaths)) throw new TypeError('fallbackPaths must be an array of folder paths');
  if (
    !Array.isArray(options?.paths) ||
    (options.paths.length === 0 && indexFiles.length === 0 && fallbackPaths.length === 0) ||
    !options.paths.every((p) => typeof p === 'string')
  ) {
    throw new TypeError('paths must be a non-empty array of folder paths');
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl))
    throw new TypeError('baseUrl must be an absolute URL');
  const publicUrl =
    options.publicUrl === undefined || options.baseUrl !== undefined
      ? undefined
      : normalizePublicUrl(options.publicUrl);
  const extensions = new Set((options.extensions ?? Object.keys(FILE_TYPES)).map((e) => e.toLowerCase()));
  const maxFileBytes = positiveInteger(
    'maxFileBytes',
    options.maxFileBytes,
    LOCAL_INDEX_DEFAULTS.maxFileBytes,
  );
  const roots = [...options.paths, ...fallbackPaths].map((p) => path.resolve(p));
  const firstFallbackRoot = options.paths.length;
  // URLs of the fallback folders' documents, as last read.
  let fallbackUrls: ReadonlySet<string> = new Set();
  const index = new LocalIndex(options);
  const rootIsFile = new Map<string, boolean>();

  /** The URL of a file of corpus folder `rootIndex`; `null` when the service could not serve it. */
  const fileUrl = (file: string, rootIndex: number): string | null => {
    const root = roots[rootIndex]!;
    const isFile = rootIsFile.get(root) ?? false;
    if (publicUrl === undefined) return fileDocumentUrl(file, root, options.baseUrl, isFile);
    const relative = relativeToRoot(file, root, isFile);
    // In the first folder, a subfolder named like a later folder's prefix (`2`, `3`, …) is shadowed by it.
    const first = relative.split(path.sep)[0]!;
    if (rootIndex === 0 && roots.length > 1 && /^[1-9][0-9]*$/.test(first) && Number(first) <= roots.length) {
      return null;
    }
    return corpusDocumentUrl(publicUrl, rootIndex, relative);
  };

  // Files of index files outside the corpus folders (a folder `citewise index` read), by their path below
  // `/docs/`: `.indexed/<hash of the file's path>/<name>` (hidden, so no corpus file can have that path).
  const indexedFiles = new Map<string, IndexedDocumentFile>();

  /**
   * With `publicUrl`, the served URL of an index file's `file:` document; `null` for a remote file URL.
   * `source` is the folder (or file) `citewise index` read it from, which the served file must stay in.
   */
  const servedUrl = (url: string, source?: string, id?: string): string | null => {
    if (publicUrl === undefined || !url.startsWith('file:')) return url;
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch {
      return null;
    }
    const rootIndex = roots.findIndex((root) =>
      rootIsFile.get(root) ? file === root : file.startsWith(`${root}${path.sep}`),
    );
    const inCorpus = rootIndex === -1 ? null : fileUrl(file, rootIndex);
    if (inCorpus !== null) return inCorpus;
    const name = encodeURIComponent(path.basename(file));
    // A document of the document index is found again by its id (see indexedFile); an index file's, by
    // the hash of its path, registered here.
    if (id !== undefined) return `${publicUrl}/docs/${INDEXED_FILES_PREFIX}${id}/${name}`;
    const hash = createHash('sha256').update(file).digest('hex').slice(0, 16);
    const served = `${INDEXED_FILES_PREFIX}${hash}/${name}`;
    indexedFiles.set(served, { file, root: sourceOf(file, source) });
    return `${publicUrl}/docs/${served}`;
  };

  /** An index file's data with `file:` documents given their served URLs (or left out). */
  const withServedUrls = (
    data: unknown,
    skipped: { file: string; reason: string }[],
    file: string,
  ): unknown => {
    const documents = (data as Partial<SerializedLocalIndex> | null)?.documents;
    if (publicUrl === undefined || !Array.isArray(documents)) return data;
    const records = (data as { builder?: { records?: Record<string, { source?: unknown }> } }).builder
      ?.records;
    const kept: unknown[] = [];
    for (const document of documents as readonly unknown[]) {
      const url = (document as { url?: unknown } | null)?.url;
      const source = typeof url === 'string' ? records?.[url]?.source : undefined;
      const served =
        typeof url === 'string' ? servedUrl(url, typeof source === 'string' ? source : undefined) : url;
      if (served === null) {
        skipped.push({ file, reason: `${String(url)}: not a local file, so it cannot be served` });
      } else kept.push(typeof url === 'string' ? { ...(document as object), url: served } : document);
    }
    return { ...(data as object), documents: kept };
  };
  let loading: Promise<LoadReport> | undefined;

  // Persisted index files, re-read when they change (one sync at a time; concurrent searches share it).
  let folderUrls: ReadonlySet<string> = new Set();
  const indexFileSync = createIndexFileSync({
    files: indexFiles,
    read: (data, failures, file) => index.importJSON(withServedUrls(data, failures, file)),
    remove: (url) => index.removeDocument(url),
    alsoProvided: () => folderUrls,
  });
  const syncIndexFiles = () => indexFileSync.sync();
  const indexFileUrls = () => indexFileSync.urls();

  const readAll = async (): Promise<LoadReport> => {
    const skipped: { file: string; reason: string }[] = [];
    const seen = new Set<string>();
    const fallback = new Set<string>();
    for (const [rootIndex, root] of roots.entries()) {
      rootIsFile.set(root, (await stat(root)).isFile());
      for (const file of await listDocumentFiles(root, (extension) => extensions.has(extension))) {
        const url = fileUrl(file, rootIndex);
        if (url === null) {
          skipped.push({
            file,
            reason: `shadowed by corpus folder ${relativeToRoot(file, root, false).split(path.sep)[0]}`,
          });
          continue;
        }
        try {
          // The one reader of `citewise index` too, so both read a file the same way.
          const read = await readDocumentFile(file, url, { maxFileBytes });
          if ('skip' in read) skipped.push({ file, reason: read.message });
          else {
            index.addDocument(read.document);
            seen.add(url);
            if (rootIndex >= firstFallbackRoot) fallback.add(url);
          }
        } catch (error) {
          skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
        }
      }
    }
    for (const url of index.urls())
      if (!seen.has(url) && !indexFileUrls().has(url)) index.removeDocument(url);
    folderUrls = seen;
    fallbackUrls = fallback;
    skipped.push(...(await syncIndexFiles()));
    await checkStore();
    return { documents: index.size, skipped };
  };

  // A failed load is forgotten, so that the next search tries again (e.g. once the folder exists).
  const start = (): Promise<LoadReport> => {
    const attempt = readAll();
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
    return attempt;
  };

  // Whether the document index holds any operator document, as last seen (a cheap one-row list).
  const documentIndex = options.documentIndex;
  let storeHasDocuments = false;
  const checkStore = async (): Promise<void> => {
    if (documentIndex === undefined) return;
    storeHasDocuments = (await documentIndex.list({ owner: OPERATOR_OWNER, limit: 1 })).documents.length > 0;
  };

  /** Whether every document of the in-memory index is one of the fallback folders'. */
  const onlyFallbackInMemory = (): boolean => {
    let fallbackIndexed = 0;
    for (const url of fallbackUrls) if (index.has(url)) fallbackIndexed++;
    return index.size === fallbackIndexed;
  };

  const hasOwnDocuments = (): boolean => storeHasDocuments || !onlyFallbackInMemory();

  /** Hits of the document index, with served URLs (documents the service cannot serve are left out). */
  const storedHits = async (
    text: string,
    limit: number,
    account?: string,
  ): Promise<(LocalIndexHit & { readonly owner: string })[]> => {
    if (documentIndex === undefined || limit === 0) return [];
    // The operator's documents, and those of the account the search is for (never another's).
    const owners =
      account === undefined || account === OPERATOR_OWNER ? [OPERATOR_OWNER] : [OPERATOR_OWNER, account];
    const hits = await documentIndex.search(text, { owners, limit });
    return hits.flatMap((hit) => {
      const url = servedUrl(hit.url, undefined, hit.id);
      return url === null ? [] : [withHitFields(hit, { url })];
    });
  };

  /** The file of a document-index document served at `.indexed/<id>/<name>` (see servedUrl). */
  const storedFile = async (encodedPath: string): Promise<IndexedDocumentFile | undefined> => {
    const match = STORED_FILE_PATH.exec(encodedPath);
    if (match === null || documentIndex === undefined || publicUrl === undefined) return undefined;
    const stored = await documentIndex.getById(match[1]!, OPERATOR_OWNER);
    if (stored === undefined || !stored.url.startsWith('file:')) return undefined;
    let file: string;
    try {
      file = fileURLToPath(stored.url);
    } catch {
      return undefined;
    }
    if (encodeURIComponent(path.basename(file)) !== match[2]) return undefined;
    // Files inside a corpus folder are served by their corpus path, never here.
    if (roots.some((root) => (rootIsFile.get(root) ? file === root : file.startsWith(`${root}${path.sep}`))))
      return undefined;
    return { file, root: sourceOf(file, stored.source) };
  };

  const provider: LocalIndexProvider = {
    id: 'local',
    index,
    hasOwnDocuments,
    load() {
      loading ??= start();
      return loading;
    },
    reload() {
      loading = start();
      return loading;
    },
    indexedFile: async (encodedPath) => indexedFiles.get(encodedPath) ?? (await storedFile(encodedPath)),
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      call.signal.throwIfAborted();
      await provider.load();
      await syncIndexFiles();
      await checkStore();
      call.signal.throwIfAborted();
      const include = query.filters?.includeDomains;
      const exclude = query.filters?.excludeDomains;
      const byDomain = (include?.length ?? 0) > 0 || (exclude?.length ?? 0) > 0;
      const fromStore = await storedHits(
        query.query,
        byDomain ? Math.max(200, query.limit * 10) : query.limit,
        call.account,
      );
      // The fallback folders (the built-in manual) answer only while there is nothing else: not once the
      // operator indexed documents, nor when the account's own documents match the query.
      const accountAnswers = fromStore.some(
        (hit) => call.account !== undefined && hit.owner === call.account && hit.owner !== OPERATOR_OWNER,
      );
      const fallbackOnly = onlyFallbackInMemory();
      const hideFallback = fallbackUrls.size > 0 && (accountAnswers || storeHasDocuments || !fallbackOnly);
      const filtering = byDomain || hideFallback;
      // Hidden fallback folders alone in memory: nothing there could be kept, so nothing is searched.
      const memoryHits =
        hideFallback && fallbackOnly ? [] : index.search(query.query, filtering ? index.size : query.limit);
      const merged =
        fromStore.length === 0
          ? memoryHits
          : // A file both in a corpus folder and in the index has one served URL: it is listed once.
            [...memoryHits, ...fromStore]
              .sort((a, b) => b.score - a.score)
              .filter((hit, i, all) => all.findIndex((other) => other.url === hit.url) === i);
      const hits = merged.filter((hit) => {
        if (hideFallback && fallbackUrls.has(hit.url)) return false;
        if (!byDomain) return true;
        const host = URL.canParse(hit.url) ? new URL(hit.url).hostname : '';
        const matches = (domain: string): boolean => host === domain || host.endsWith(`.${domain}`);
        if (include !== undefined && include.length > 0 && !include.some(matches)) return false;
        return !(exclude ?? []).some(matches);
      });
      return hits.slice(0, query.limit).map((hit) => documentSearchHit(hit, 'local'));
    },
  };
  return provider;
}
