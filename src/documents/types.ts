/**
 * The document index: where the documents citewise answers from are kept and searched — the operator's
 * corpus (`citewise index`) and the documents accounts add through the API. Backends: in memory
 * (`createMemoryDocumentIndex`, tests and small embedded uses), SQLite FTS5 in the data directory
 * (`createSqliteDocumentIndex`, the embedded default) and PostgreSQL full-text search
 * (`createPostgresDocumentIndex`, one index shared by several instances). Every backend (and a user's own)
 * must pass `describeDocumentIndex` in `citewise/testing`.
 *
 * Documents are keyed by owner and URL. The owner is {@link OPERATOR_OWNER} for the operator's corpus, or
 * an account id. A search names the owners it may read; nothing of another owner is ever returned.
 */
import type { AnalyzedDocument, DocumentInput, DocumentSection } from './analyze.ts';

export type { AnalyzedDocument, DocumentInput, DocumentSection };

/** The owner of the operator's corpus (what `citewise index` builds). */
export const OPERATOR_OWNER = '';

/** Outcome of {@link DocumentIndex.put}. */
export type PutResult = 'added' | 'updated' | 'unchanged';

/** What kind of thing a source is. */
export type SourceKind = 'folder' | 'file' | 'site' | 'sitemap' | 'api';

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

/** A source with its document count, for listings. */
export interface SourceSummary extends IndexedSource {
  readonly documents: number;
}

/** Where a document came from and which version of it is indexed. */
export interface DocumentRecord {
  /** {@link IndexedSource.source} that produced it (`''` when unknown). */
  readonly source: string;
  /** SHA-256 of its title, format, date and content (see `documentHash`). */
  readonly hash: string;
  /** ISO 8601 time it was last added or changed. */
  readonly indexedAt: string;
  /** Files only: `mtimeMs:size` when read; an unchanged file is not read again. */
  readonly fileVersion?: string;
}

/** Options of {@link DocumentIndex.put}. */
export interface PutOptions {
  /** @default OPERATOR_OWNER */
  readonly owner?: string;
  /** @default '' */
  readonly source?: string;
  readonly fileVersion?: string;
  /** Free-form JSON kept with the document (API uploads). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Id to give a new document; a replaced one keeps its id. @default a random `doc_…` id */
  readonly id?: string;
  /**
   * The owner's quota: a put that would leave the owner with more documents or bytes is refused with a
   * {@link DocumentQuotaError}, checked in the same write as the put, so concurrent puts cannot pass it
   * together (on PostgreSQL, across instances too). @default no quota
   */
  readonly quota?: DocumentQuota;
}

/** The most documents and bytes one owner may hold ({@link PutOptions.quota}). */
export interface DocumentQuota {
  readonly maxDocuments: number;
  readonly maxBytes: number;
}

/** Thrown by {@link DocumentIndex.put} when the document would pass {@link PutOptions.quota}. */
export class DocumentQuotaError extends Error {
  /** What the owner held when the put was refused. */
  readonly usage: DocumentUsage;
  readonly quota: DocumentQuota;
  constructor(usage: DocumentUsage, quota: DocumentQuota) {
    super(
      `the owner's document quota is used up (at most ${quota.maxDocuments} documents and ` +
        `${quota.maxBytes} bytes; it holds ${usage.documents} documents and ${usage.bytes} bytes)`,
    );
    this.name = 'DocumentQuotaError';
    this.usage = usage;
    this.quota = quota;
  }
}

/** A stored document, whole. */
export interface StoredDocument extends AnalyzedDocument, DocumentRecord {
  /** Stable id (`doc_…`), unique across owners. */
  readonly id: string;
  readonly owner: string;
  /** Bytes of `content` (UTF-8). */
  readonly bytes: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A stored document without its content, for listings. */
export type DocumentSummary = Omit<StoredDocument, 'content' | 'sections'>;

/** One search result: a document, scored by its best section. */
export interface DocumentHit {
  /** The document's stable id (`doc_…`, as {@link StoredDocument.id}). */
  readonly id: string;
  readonly url: string;
  readonly owner: string;
  readonly title: string;
  /** Excerpt of the best section, from its sentence sharing most terms with the query. */
  readonly snippet: string;
  /** The whole document. */
  readonly content: string;
  /** Relevance of the best section (higher is better; comparable within one search only). */
  readonly score: number;
  readonly heading?: string;
  readonly publishedAt?: string;
}

/** Options of {@link DocumentIndex.search}. */
export interface DocumentSearchOptions {
  /** Owners whose documents may be returned. @default [OPERATOR_OWNER] */
  readonly owners?: readonly string[];
  /** Documents returned at most. @default 10 */
  readonly limit?: number;
}

/** Options of {@link DocumentIndex.list}. */
export interface DocumentListOptions {
  /** @default OPERATOR_OWNER */
  readonly owner?: string;
  /** Only the documents of this source. */
  readonly source?: string;
  /** Only documents whose URL starts with this prefix. */
  readonly urlPrefix?: string;
  /** From {@link DocumentPage.cursor} of the previous page. */
  readonly cursor?: string;
  /** @default 100 */
  readonly limit?: number;
}

/** One page of {@link DocumentIndex.list}, ordered by URL. */
export interface DocumentPage {
  readonly documents: readonly DocumentSummary[];
  /** Pass to the next call for the next page; absent on the last page. */
  readonly cursor?: string;
}

/** Totals of one owner. */
export interface DocumentUsage {
  readonly documents: number;
  readonly bytes: number;
}

/** A document index (see the module comment). All methods are safe to call concurrently. */
export interface DocumentIndex {
  /** Adds or replaces (by owner and URL) a document. */
  put(input: DocumentInput, options?: PutOptions): Promise<PutResult>;
  /** A document by URL, or `undefined`. */
  get(url: string, owner?: string): Promise<StoredDocument | undefined>;
  /** A document by id; `undefined` when there is none or it belongs to another owner. */
  getById(id: string, owner: string): Promise<StoredDocument | undefined>;
  /** Where a document came from, without reading its content; `undefined` when not indexed. */
  record(url: string, owner?: string): Promise<DocumentRecord | undefined>;
  /** Removes a document; returns whether it was indexed. */
  remove(url: string, owner?: string): Promise<boolean>;
  /** Documents matching the query, best first; documents sharing no term with it are not returned. */
  search(query: string, options?: DocumentSearchOptions): Promise<DocumentHit[]>;
  /** Documents of one owner, by URL, a page at a time. */
  list(options?: DocumentListOptions): Promise<DocumentPage>;
  /** Documents and bytes of one owner. */
  usage(owner?: string): Promise<DocumentUsage>;
  /** Remembers (or refreshes) a source of the operator's corpus. */
  setSource(source: IndexedSource): Promise<void>;
  /** Forgets a source (its documents stay). */
  removeSource(source: string): Promise<void>;
  /** The operator's sources with their document counts; documents of no known source are listed under `''`. */
  sources(): Promise<SourceSummary[]>;
  /** Makes pending writes durable and visible to other connections (a no-op where every write is). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Defaults of the document index backends. */
export const DOCUMENT_INDEX_DEFAULTS = {
  /** Hits of one search. */
  limit: 10,
  /** Documents of one list page. */
  listLimit: 100,
  /** Characters of a hit's snippet. */
  snippetLength: 300,
  /** Writes the SQLite index groups into one transaction while building. */
  sqliteBatchSize: 500,
  /** A SQLite write transaction left open is committed after this long (ms). */
  sqliteCommitAfterMs: 1000,
  /**
   * A SQLite search whose terms are held by at most this many sections (summed over the terms) scores them
   * all exactly.
   */
  sqliteExactSections: 20_000,
  /**
   * Otherwise it first looks for the query's terms found in at most the first share of the sections, then
   * in the next (ranking every section that holds a common word is what costs); the other terms decide only
   * when they could change the best documents, and then all sections holding a term are scored exactly.
   */
  sqliteTermShares: [0.05, 0.25],
  /** How long a SQLite write waits for another process's write lock (ms). */
  sqliteBusyTimeoutMs: 5000,
  /**
   * A PostgreSQL search first scores the sections whose words' upper bounds sum to at least this share of
   * all the query's words' bounds, then lowers the threshold until the best documents are final.
   */
  postgresFirstThreshold: 0.5,
  /** The most AND-groups of words in the GIN query that selects a PostgreSQL search's sections. */
  postgresMaxGroups: 256,
  /** The most words of one such group (a longer group is cut, selecting more sections, never fewer). */
  postgresMaxGroupWords: 4,
  /**
   * What reading one section's vector costs against one posting (PostgreSQL): a search scores every section
   * from the postings once a round would read more than this many postings' worth of vectors.
   */
  postgresVectorCost: 20,
  /**
   * A PostgreSQL search reuses (for 5 s, like the corpus statistics) the document frequencies of words in at
   * least this many sections: the dearest to count, and one document more moves them by a tiny share.
   */
  postgresCachedFrequencyMin: 1_000,
  /** The most document frequencies a PostgreSQL index keeps (the oldest go first). */
  postgresCachedFrequencies: 10_000,
} as const;
