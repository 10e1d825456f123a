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
import { BM25_DEFAULTS } from '../pipeline/rank/bm25.ts';
import { analyzeDocument, sectionTokens } from './analyze.ts';
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

// A section's FTS row id is its document's row id times 2^16 plus its position: no mapping table.
const SECTION_BITS = 65_536;

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

/** A section scored for a search, with its document. */
interface ScoredSection {
  readonly rowid: number;
  readonly stored: StoredDocument;
  readonly score: number;
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

  /**
   * BM25 of a section's tokens for the query's engine terms, with the corpus statistics of now; and each
   * term's document frequency and upper bound (what it adds to a score at most).
   */
  const sectionScorer = (engine: readonly string[]) => {
    const { k1, b } = BM25_DEFAULTS;
    const stats = sql('SELECT sections, tokens FROM section_stats WHERE id = 1').get() as {
      sections: number;
      tokens: number;
    };
    const n = Math.max(stats.sections, 1);
    const avgdl = Math.max(stats.tokens, 1) / n;
    const idf = new Map<string, number>();
    const df = new Map<string, number>();
    const placeholders = engine.map(() => '?').join(', ');
    for (const row of sql(`SELECT term, doc FROM section_terms WHERE term IN (${placeholders})`).all(
      ...engine,
    ) as { term: string; doc: number }[])
      df.set(row.term, row.doc);
    for (const [term, count] of df) idf.set(term, Math.log(1 + (n - count + 0.5) / (count + 0.5)));
    const score = (tokens: readonly string[]): number => {
      const tf = new Map<string, number>();
      for (const token of tokens) {
        const term = engineTerm(token);
        if (idf.has(term)) tf.set(term, (tf.get(term) ?? 0) + 1);
      }
      let score = 0;
      for (const [term, count] of tf)
        score += (idf.get(term)! * count * (k1 + 1)) / (count + k1 * (1 - b + (b * tokens.length) / avgdl));
      return score;
    };
    return { score, sections: n, df, upperBound: (term: string) => (idf.get(term) ?? 0) * (k1 + 1) };
  };

  /**
   * The best `limit` documents by BM25 computed in SQL over every section holding one of `terms` (term
   * frequencies from FTS5's postings, `fts5vocab`): exact, and costly when the terms are common. A
   * document counts once, by its best section; the window widens until enough documents of the allowed
   * owners are found or the matches run out.
   */
  const exactSections = (
    terms: readonly string[],
    limit: number,
    owners: ReadonlySet<string>,
    documentOf: (doc: number) => StoredDocument | null,
  ): ScoredSection[] => {
    const placeholders = terms.map(() => '?').join(', ');
    const { k1, b } = BM25_DEFAULTS;
    for (let window = limit * 4 + 16; ; window *= 4) {
      const rows = sql(
        `WITH stats AS (SELECT max(sections, 1) AS n, max(tokens, 1) * 1.0 / max(sections, 1) AS avgdl
                        FROM section_stats WHERE id = 1),
              df AS (SELECT term, doc AS df FROM section_terms WHERE term IN (${placeholders})),
              tf AS (SELECT term, doc AS section, count(*) AS tf FROM section_postings
                     WHERE term IN (${placeholders}) GROUP BY term, doc)
         SELECT tf.section AS rowid,
                sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * (? + 1)
                    / (tf.tf + ? * (1 - ? + ? * l.length / stats.avgdl))) AS score
         FROM tf JOIN df USING (term) JOIN section_lengths l ON l.section = tf.section, stats
         GROUP BY tf.section ORDER BY score DESC, tf.section LIMIT ?`,
      ).all(...terms, ...terms, k1, k1, b, b, window) as { rowid: number; score: number }[];
      // Documents are read (and analysed) only for the hits returned; owners are checked on the way.
      const best = new Map<number, { rowid: number; score: number } | null>();
      const ownerOfDoc = sql('SELECT owner FROM documents WHERE doc = ?');
      for (const row of rows) {
        const doc = Math.floor(row.rowid / SECTION_BITS);
        if (best.has(doc)) continue;
        const found = ownerOfDoc.get(doc) as { owner: string } | undefined;
        best.set(doc, found !== undefined && owners.has(found.owner) ? row : null);
      }
      const allowed = [...best].filter(([, hit]) => hit !== null);
      if (allowed.length >= limit || rows.length < window)
        return allowed.slice(0, limit).flatMap(([doc, hit]) => {
          const stored = documentOf(doc);
          return stored === null ? [] : [{ ...hit!, stored }];
        });
    }
  };

  /**
   * The best `limit` documents among the sections holding one of `terms`: candidates are the sections FTS5
   * ranks best (its bm25(), whose idf differs from ours), scored again with ours; a document counts once,
   * by its best section. The window widens until enough documents of the allowed owners are found or the
   * matches run out.
   */
  const bestSections = (
    terms: readonly string[],
    limit: number,
    scored: (rowid: number) => ScoredSection | null,
  ): ScoredSection[] => {
    const match = terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ');
    for (let window = limit * 2 + 10; ; window *= 4) {
      const candidates = sql('SELECT rowid FROM sections WHERE sections MATCH ? ORDER BY rank LIMIT ?').all(
        match,
        window,
      ) as { rowid: number }[];
      const hits = candidates.flatMap(({ rowid }) => scored(rowid) ?? []);
      hits.sort((x, y) => y.score - x.score || x.rowid - y.rowid);
      const best = new Map<number, ScoredSection>();
      for (const hit of hits) {
        const doc = Math.floor(hit.rowid / SECTION_BITS);
        if (!best.has(doc)) best.set(doc, hit);
      }
      if (best.size >= limit || candidates.length < window) return [...best.values()].slice(0, limit);
    }
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
      const scorer = sectionScorer(engine);
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
      // Few sections hold the query's terms: all are scored exactly. Otherwise the rarer terms find the
      // candidates (ranking every section that holds a common word is what costs); their best documents
      // are final when no section holding only the other terms could pass them. If not, the next share
      // of terms is tried, and at last all sections are scored exactly.
      const matched = engine.filter((term) => scorer.df.has(term));
      if (matched.length === 0) return [];
      const postings = matched.reduce((sum, term) => sum + scorer.df.get(term)!, 0);
      if (postings <= DOCUMENT_INDEX_DEFAULTS.sqliteExactSections)
        return exactSections(matched, limit, owners, documentOf).map(hitOf(terms));
      // A candidate section scored with our BM25 from its document's text (once per search).
      const sections = new Map<number, ScoredSection | null>();
      const scored = (rowid: number): ScoredSection | null => {
        let hit = sections.get(rowid);
        if (hit === undefined) {
          const stored = documentOf(Math.floor(rowid / SECTION_BITS));
          const section = stored?.sections[rowid % SECTION_BITS];
          hit =
            stored === null || stored === undefined || section === undefined
              ? null
              : { rowid, stored, score: scorer.score(sectionTokens(stored.title, section)) };
          sections.set(rowid, hit);
        }
        return hit;
      };
      let tried = 0;
      for (const share of DOCUMENT_INDEX_DEFAULTS.sqliteTermShares) {
        const rare = matched.filter((term) => scorer.df.get(term)! <= scorer.sections * share);
        if (rare.length === tried || rare.length === matched.length) continue;
        tried = rare.length;
        const hits = bestSections(rare, limit, scored);
        const bound = matched
          .filter((term) => !rare.includes(term))
          .reduce((sum, term) => sum + scorer.upperBound(term), 0);
        if (hits.length >= limit && hits[limit - 1]!.score > bound) return hits.map(hitOf(terms));
      }
      return exactSections(matched, limit, owners, documentOf).map(hitOf(terms));
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
