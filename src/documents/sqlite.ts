/**
 * The {@link DocumentIndex} on SQLite (`node:sqlite`): the embedded default, one file in the data
 * directory (`index.sqlite`). Documents are rows; their sections are rows of an FTS5 table (contentless:
 * only the inverted index is kept). A search scores the sections holding a query term with BM25 in SQL —
 * term frequencies from the index's postings (`fts5vocab` instance), document frequencies from its term
 * table, section lengths and corpus totals kept beside it — with the in-memory ranker's parameters and
 * idf, because FTS5's own `bm25()` (whose idf drops to zero for terms in half the sections) ranked the QA
 * benchmark's gold articles 0.02 lower. Nothing is held in memory but SQLite's page cache, so memory does
 * not grow with the corpus, and opening is immediate.
 *
 * Writes are grouped into transactions of up to `batchSize` writes (a build of many files commits every few
 * hundred, not once per file); a transaction left open is committed by {@link DocumentIndex.flush}, or after
 * at most `commitAfterMs`. Other processes (a `serve` reading while `citewise index` writes) see committed
 * writes: the journal is WAL, so readers never wait for the writer.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { StatementSync } from 'node:sqlite';
import { nonNegativeInteger, positiveInteger } from '../options.ts';
import { analyzeDocument } from './analyze.ts';
import {
  checkQuota,
  cursorAfter,
  DOCUMENT_ROW_COLUMNS,
  documentRowValues,
  engineTerm,
  hitOf as documentHit,
  listOptions,
  ownerOf,
  prepareDocument,
  searchOptions,
  urlOf,
} from './common.ts';
import { sourceSummaries } from './memory.ts';
import { rankSections, SECTION_BITS, type ScoredSection } from './sqlite-search.ts';
import {
  DOCUMENT_INDEX_DEFAULTS,
  type DocumentHit,
  type DocumentIndex,
  type DocumentRecord,
  type DocumentSummary,
  type DocumentUsage,
  type IndexedSource,
  type PutResult,
  type SourceKind,
  type StoredDocument,
} from './types.ts';

/** Options of {@link createSqliteDocumentIndex}. */
export interface SqliteDocumentIndexOptions {
  /** Database file (created with its folder if missing), or `':memory:'`. */
  readonly path: string;
  /** Writes grouped into one transaction. @default 500 */
  readonly batchSize?: number;
  /** A transaction left open is committed after this long. @default 1000 */
  readonly commitAfterMs?: number;
  /** How long a write waits for another process's write lock. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/** Schema version written to `PRAGMA user_version` of an index database. */
export const SQLITE_DOCUMENT_INDEX_VERSION = 1;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS documents (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    url TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    format TEXT NOT NULL,
    published_at TEXT,
    source TEXT NOT NULL,
    hash TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    file_version TEXT,
    bytes INTEGER NOT NULL,
    metadata TEXT,
    UNIQUE (owner, url)
  ) STRICT;
  CREATE INDEX IF NOT EXISTS documents_by_source ON documents (owner, source, url);
  CREATE INDEX IF NOT EXISTS documents_usage ON documents (owner, bytes);
  CREATE TABLE IF NOT EXISTS sources (
    source TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    label TEXT,
    indexed_at TEXT NOT NULL
  ) STRICT;
  CREATE VIRTUAL TABLE IF NOT EXISTS sections USING fts5(terms, content = '', contentless_delete = 1);
  CREATE VIRTUAL TABLE IF NOT EXISTS section_postings USING fts5vocab(sections, 'instance');
  CREATE VIRTUAL TABLE IF NOT EXISTS section_terms USING fts5vocab(sections, 'row');
  CREATE TABLE IF NOT EXISTS section_lengths (section INTEGER PRIMARY KEY, length INTEGER NOT NULL) STRICT;
  CREATE TABLE IF NOT EXISTS section_stats (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sections INTEGER NOT NULL,
    tokens INTEGER NOT NULL
  ) STRICT;
  INSERT OR IGNORE INTO section_stats (id, sections, tokens) VALUES (1, 0, 0);
`;

interface DocumentRow {
  doc: number;
  id: string;
  owner: string;
  url: string;
  title: string;
  content: string;
  format: string;
  published_at: string | null;
  source: string;
  hash: string;
  indexed_at: string;
  file_version: string | null;
  bytes: number;
  metadata: string | null;
}

const SUMMARY_COLUMNS =
  'doc, id, owner, url, title, format, published_at, source, hash, indexed_at, file_version, bytes, metadata';

function summaryOf(row: Omit<DocumentRow, 'content'>): DocumentSummary {
  return {
    id: row.id,
    owner: row.owner,
    url: row.url,
    title: row.title,
    format: row.format === 'text' ? 'text' : 'markdown',
    ...(row.published_at === null ? {} : { publishedAt: row.published_at }),
    source: row.source,
    hash: row.hash,
    indexedAt: row.indexed_at,
    ...(row.file_version === null ? {} : { fileVersion: row.file_version }),
    bytes: row.bytes,
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Record<string, unknown> }),
  };
}

function storedOf(row: DocumentRow): StoredDocument {
  const summary = summaryOf(row);
  const analyzed = analyzeDocument({
    url: row.url,
    content: row.content,
    format: summary.format,
    title: row.title,
  });
  return { ...summary, content: row.content, sections: analyzed.sections };
}

/** The hit of a scored section. */
const hitOf =
  (terms: readonly string[]) =>
  (hit: ScoredSection): DocumentHit =>
    documentHit(hit.stored, hit.rowid % SECTION_BITS, hit.score, terms);

/** Opens (creating if needed) a document index in a SQLite file. */
export function createSqliteDocumentIndex(options: SqliteDocumentIndexOptions): DocumentIndex {
  if (typeof options?.path !== 'string' || options.path === '')
    throw new TypeError('path must be a file path');
  const batchSize = positiveInteger('batchSize', options.batchSize, DOCUMENT_INDEX_DEFAULTS.sqliteBatchSize);
  const commitAfterMs = nonNegativeInteger(
    'commitAfterMs',
    options.commitAfterMs,
    DOCUMENT_INDEX_DEFAULTS.sqliteCommitAfterMs,
  );
  const busyTimeoutMs = nonNegativeInteger(
    'busyTimeoutMs',
    options.busyTimeoutMs,
    DOCUMENT_INDEX_DEFAULTS.sqliteBusyTimeoutMs,
  );
  if (options.path !== ':memory:') mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
  // Loaded when an index is opened, not when the module is imported: the package root re-exports this
  // module, and a static import of `node:sqlite` would fail on an old Node.js before its version guard ran.
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const db = new DatabaseSync(options.path);
  try {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    if (options.path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version > SQLITE_DOCUMENT_INDEX_VERSION)
      throw new Error(`${options.path} was written by a newer citewise (index schema ${version})`);
    db.exec(SCHEMA);
    db.exec(`PRAGMA user_version = ${SQLITE_DOCUMENT_INDEX_VERSION}`);
  } catch (error) {
    db.close();
    throw error;
  }

  const statements = new Map<string, StatementSync>();
  const sql = (text: string): StatementSync => {
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };

  // The open write transaction: writes in it, and the timer that commits it.
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const commit = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending === 0) return;
    pending = 0;
    db.exec('COMMIT');
  };
  const write = <T>(work: () => T): T => {
    if (closed) throw new Error('the document index is closed');
    if (pending === 0) {
      db.exec('BEGIN IMMEDIATE');
      timer = setTimeout(commit, commitAfterMs);
      timer.unref();
    }
    pending++;
    // A failed statement leaves the transaction open with the earlier writes: they are kept.
    try {
      return work();
    } finally {
      if (pending >= batchSize) commit();
    }
  };

  const findRow = (owner: string, url: string) =>
    sql('SELECT * FROM documents WHERE owner = ? AND url = ?').get(owner, url) as DocumentRow | undefined;
  const deleteDoc = (doc: number): void => {
    const range = [doc * SECTION_BITS, (doc + 1) * SECTION_BITS] as const;
    const removed = sql(
      'SELECT count(*) AS n, coalesce(sum(length), 0) AS tokens FROM section_lengths WHERE section >= ? AND section < ?',
    ).get(...range) as { n: number; tokens: number };
    sql('UPDATE section_stats SET sections = sections - ?, tokens = tokens - ? WHERE id = 1').run(
      removed.n,
      removed.tokens,
    );
    sql('DELETE FROM section_lengths WHERE section >= ? AND section < ?').run(...range);
    sql('DELETE FROM sections WHERE rowid >= ? AND rowid < ?').run(...range);
    sql('DELETE FROM documents WHERE doc = ?').run(doc);
  };

  const usageOf = (owner: string): DocumentUsage => {
    const row = sql(
      'SELECT count(*) AS documents, coalesce(sum(bytes), 0) AS bytes FROM documents WHERE owner = ?',
    ).get(owner) as { documents: number; bytes: number };
    return { documents: row.documents, bytes: row.bytes };
  };

  const index: DocumentIndex = {
    async put(input, putOptions = {}): Promise<PutResult> {
      const prepared = prepareDocument(input, putOptions);
      const { document, owner } = prepared;
      return write(() => {
        const previous = findRow(owner, document.url);
        const result: PutResult =
          previous === undefined ? 'added' : previous.hash === prepared.hash ? 'unchanged' : 'updated';
        if (
          previous !== undefined &&
          result === 'unchanged' &&
          previous.source === prepared.source &&
          (previous.file_version ?? undefined) === prepared.fileVersion
        )
          return result;
        // In the write transaction (BEGIN IMMEDIATE): no other put, here or in another process, between.
        if (putOptions.quota !== undefined)
          checkQuota(putOptions.quota, usageOf(owner), previous?.bytes, prepared.bytes);
        if (previous !== undefined) deleteDoc(previous.doc);
        const { lastInsertRowid } = sql(
          `INSERT INTO documents (${previous === undefined ? '' : 'doc, '}${DOCUMENT_ROW_COLUMNS})
           VALUES (${previous === undefined ? '' : '?, '}?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          ...(previous === undefined ? [] : [previous.doc]),
          ...documentRowValues(prepared, previous?.id),
        );
        const doc = Number(lastInsertRowid);
        const insert = sql('INSERT INTO sections (rowid, terms) VALUES (?, ?)');
        const length = sql('INSERT INTO section_lengths (section, length) VALUES (?, ?)');
        let tokens = 0;
        const sections = prepared.sections.slice(0, SECTION_BITS);
        sections.forEach((section, i) => {
          insert.run(doc * SECTION_BITS + i, section.terms);
          length.run(doc * SECTION_BITS + i, section.length);
          tokens += section.length;
        });
        sql('UPDATE section_stats SET sections = sections + ?, tokens = tokens + ? WHERE id = 1').run(
          sections.length,
          tokens,
        );
        return result;
      });
    },
    async get(url, owner) {
      const row = findRow(ownerOf(owner), urlOf(url));
      return row === undefined ? undefined : storedOf(row);
    },
    async getById(id, owner) {
      if (typeof id !== 'string') return undefined;
      const row = sql('SELECT * FROM documents WHERE id = ? AND owner = ?').get(id, ownerOf(owner)) as
        DocumentRow | undefined;
      return row === undefined ? undefined : storedOf(row);
    },
    async record(url, owner): Promise<DocumentRecord | undefined> {
      const row = sql(
        'SELECT source, hash, indexed_at, file_version FROM documents WHERE owner = ? AND url = ?',
      ).get(ownerOf(owner), urlOf(url)) as DocumentRow | undefined;
      if (row === undefined) return undefined;
      return {
        source: row.source,
        hash: row.hash,
        indexedAt: row.indexed_at,
        ...(row.file_version === null ? {} : { fileVersion: row.file_version }),
      };
    },
    async remove(url, owner) {
      const of = ownerOf(owner);
      const key = urlOf(url);
      return write(() => {
        const row = findRow(of, key);
        if (row === undefined) return false;
        deleteDoc(row.doc);
        return true;
      });
    },
    async search(query, searchOptionsGiven): Promise<DocumentHit[]> {
      const { limit, owners, terms } = searchOptions(query, searchOptionsGiven);
      const engine = [...new Set(terms.map(engineTerm).filter(Boolean))];
      if (limit === 0 || engine.length === 0) return [];
      const documents = new Map<number, StoredDocument | null>();
      const documentOf = (doc: number): StoredDocument | null => {
        let stored = documents.get(doc);
        if (stored === undefined) {
          const row = sql('SELECT * FROM documents WHERE doc = ?').get(doc) as DocumentRow | undefined;
          stored = row === undefined || !owners.has(row.owner) ? null : storedOf(row);
          documents.set(doc, stored);
        }
        return stored;
      };
      return rankSections(sql, engine, limit, owners, documentOf).map(hitOf(terms));
    },
    async list(listGiven) {
      const { owner, source, urlPrefix, after, limit } = listOptions(listGiven);
      const conditions = ['owner = ?', 'url > ?'];
      const parameters: (string | number)[] = [owner, after];
      if (source !== undefined) {
        conditions.push('source = ?');
        parameters.push(source);
      }
      if (urlPrefix !== undefined && urlPrefix !== '') {
        conditions.push('substr(url, 1, ?) = ?');
        parameters.push(urlPrefix.length, urlPrefix);
      }
      const rows = sql(
        `SELECT ${SUMMARY_COLUMNS} FROM documents WHERE ${conditions.join(' AND ')} ORDER BY url LIMIT ?`,
      ).all(...parameters, limit + 1) as unknown as DocumentRow[];
      const page = rows.slice(0, limit);
      return {
        documents: page.map(summaryOf),
        ...(rows.length > limit ? { cursor: cursorAfter(page.at(-1)!.url) } : {}),
      };
    },
    async usage(owner) {
      return usageOf(ownerOf(owner));
    },
    async setSource(source: IndexedSource) {
      write(() =>
        sql(
          `INSERT INTO sources (source, kind, label, indexed_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (source) DO UPDATE SET kind = excluded.kind, label = excluded.label,
             indexed_at = excluded.indexed_at`,
        ).run(source.source, source.kind, source.label ?? null, source.indexedAt),
      );
    },
    async removeSource(source) {
      write(() => sql('DELETE FROM sources WHERE source = ?').run(source));
    },
    async sources() {
      const rows = sql('SELECT source, kind, label, indexed_at FROM sources').all() as {
        source: string;
        kind: string;
        label: string | null;
        indexed_at: string;
      }[];
      const counts = sql(
        "SELECT source, count(*) AS n FROM documents WHERE owner = '' GROUP BY source",
      ).all() as { source: string; n: number }[];
      return sourceSummaries(
        rows.map((row) => ({
          source: row.source,
          kind: row.kind as SourceKind,
          ...(row.label === null ? {} : { label: row.label }),
          indexedAt: row.indexed_at,
        })),
        new Map(counts.map((row) => [row.source, row.n])),
      );
    },
    async flush() {
      commit();
    },
    async close() {
      if (closed) return;
      commit();
      closed = true;
      db.close();
    },
  };
  return index;
}
