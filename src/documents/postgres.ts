/**
 * The {@link DocumentIndex} on PostgreSQL: one index shared by every instance that names the database.
 * Sections are rows with a `tsvector` of their terms under a GIN index; a search takes the sections the
 * GIN index matches for the allowed owners and scores them with BM25 in SQL (term frequencies from the
 * vectors' positions, document frequencies counted over the matches, the same parameters and idf as the
 * in-memory ranker), so the ranking is today's, not `ts_rank`'s (which has no idf).
 *
 * The tables (`index_documents`, `index_sections`, `index_sources`) live in the stores' schema and are
 * created on first use with `CREATE … IF NOT EXISTS`.
 */
import type pg from 'pg';
import {
  openPostgresConnection,
  toNumber,
  type PostgresConnectionOptions,
} from '../stores/postgres/connection.ts';
import { analyzeDocument } from './analyze.ts';
import {
  checkQuota,
  cursorAfter,
  DOCUMENT_ROW_COLUMNS,
  documentRowValues,
  engineTerm,
  hitOf,
  listOptions,
  ownerOf,
  prepareDocument,
  searchOptions,
  urlOf,
} from './common.ts';
import { sourceSummaries } from './memory.ts';
import { backfillPostings, postingsStatements } from './postgres-postings.ts';
import { rankPostgresSections, type FrequencyCache } from './postgres-search.ts';
import type {
  DocumentHit,
  DocumentIndex,
  DocumentQuota,
  DocumentSummary,
  PutResult,
  SourceKind,
  StoredDocument,
} from './types.ts';

/** The advisory lock taken while the index's tables are created. */
const SCHEMA_LOCK_KEY = 44_000;

/** The first key of the advisory lock a put with a quota takes on its owner (the second: the owner's hash). */
const QUOTA_LOCK_CLASS = 44_001;

/** Starts a search's transaction: one snapshot, read only, and no sequential scan of the sections. */
const SEARCH_BEGIN = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL enable_seqscan = off';

/** How long BM25's corpus statistics of a set of owners are reused before being counted again. */
const STATISTICS_TTL_MS = 5_000;

/** Options of {@link createPostgresDocumentIndex}: a pool or a URL, and the schema. */
export type PostgresDocumentIndexOptions = Omit<PostgresConnectionOptions, 'migrate'>;

interface DocumentRow extends pg.QueryResultRow {
  doc: string;
  id: string;
  owner: string;
  url: string;
  title: string;
  content?: string;
  format: string;
  published_at: string | null;
  source: string;
  hash: string;
  indexed_at: string;
  file_version: string | null;
  bytes: string | number;
  metadata: Record<string, unknown> | null;
}

function summaryOf(row: DocumentRow): DocumentSummary {
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
    bytes: toNumber(row.bytes),
    ...(row.metadata === null ? {} : { metadata: row.metadata }),
  };
}

function storedOf(row: DocumentRow): StoredDocument {
  const summary = summaryOf(row);
  const content = row.content ?? '';
  const { sections } = analyzeDocument({ url: row.url, content, format: summary.format, title: row.title });
  return { ...summary, content, sections };
}

const SUMMARY_COLUMNS =
  'doc, id, owner, url, title, format, published_at, source, hash, indexed_at, file_version, bytes, metadata';

/**
 * The statements that create the index's tables in schema `s`. They run as one transaction: the advisory lock
 * makes instances that start together on a new database create the schema one after the other (CREATE … IF
 * NOT EXISTS at once can collide).
 */
function schemaStatements(s: string): string {
  return `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY});
   CREATE SCHEMA IF NOT EXISTS ${s};
   CREATE TABLE IF NOT EXISTS ${s}.index_documents (
     doc bigserial PRIMARY KEY,
     id text NOT NULL UNIQUE,
     owner text NOT NULL,
     url text NOT NULL,
     title text NOT NULL,
     content text NOT NULL,
     format text NOT NULL,
     published_at text,
     source text NOT NULL,
     hash text NOT NULL,
     indexed_at text NOT NULL,
     file_version text,
     bytes bigint NOT NULL,
     metadata jsonb,
     UNIQUE (owner, url)
   );
   CREATE INDEX IF NOT EXISTS index_documents_by_source ON ${s}.index_documents (owner, source, url);
   -- The list's order (byte order): without it a page (and a search's check for any document) sorts them all.
   CREATE INDEX IF NOT EXISTS index_documents_by_url ON ${s}.index_documents (owner, url COLLATE "C");
   CREATE TABLE IF NOT EXISTS ${s}.index_sections (
     doc bigint NOT NULL REFERENCES ${s}.index_documents (doc) ON DELETE CASCADE,
     section integer NOT NULL,
     owner text NOT NULL,
     length integer NOT NULL,
     terms tsvector NOT NULL,
     PRIMARY KEY (doc, section)
   );
   CREATE INDEX IF NOT EXISTS index_sections_terms ON ${s}.index_sections USING gin (terms);
   CREATE INDEX IF NOT EXISTS index_sections_by_owner ON ${s}.index_sections (owner);
   ${postingsStatements(s)}
   CREATE TABLE IF NOT EXISTS ${s}.index_sources (
     source text PRIMARY KEY,
     kind text NOT NULL,
     label text,
     indexed_at text NOT NULL
   );`;
}

/** Opens a document index in a PostgreSQL database (no connection until first use). */
export function createPostgresDocumentIndex(options: PostgresDocumentIndexOptions): DocumentIndex {
  const connection = openPostgresConnection({ ...options, migrate: false });
  const s = connection.schema;
  let ready: Promise<unknown> | undefined;
  const schema = (): Promise<unknown> => {
    ready ??= connection
      .query(schemaStatements(s))
      .then(() => backfillPostings(connection.pool, s))
      .catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
    return ready;
  };
  const query = async <R extends pg.QueryResultRow>(text: string, params: readonly unknown[] = []) => {
    await schema();
    return connection.query<R>(text, params);
  };
  /** Runs `work` in one transaction on one client (`begin` starts it). */
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> => {
    await schema();
    const client = await connection.pool.connect();
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  // BM25's corpus statistics of a set of owners (sections, average length) and its words' document
  // frequencies: counting them is much of a search's time on a large index, and they move slowly, so each
  // is reused for STATISTICS_TTL_MS.
  const frequencies: FrequencyCache = { entries: new Map(), ttlMs: STATISTICS_TTL_MS };
  const statistics = new Map<string, { at: number; value: Promise<{ n: number; avgdl: number }> }>();
  const statisticsOf = (
    client: pg.PoolClient,
    owners: readonly string[],
  ): Promise<{ n: number; avgdl: number }> => {
    const key = JSON.stringify([...owners].sort());
    const cached = statistics.get(key);
    if (cached !== undefined && Date.now() - cached.at < STATISTICS_TTL_MS) return cached.value;
    const value = client
      .query<{ n: number; avgdl: number }>(
        `SELECT count(*)::float8 AS n, coalesce(avg(length), 1)::float8 AS avgdl
       FROM ${s}.index_sections WHERE owner = ANY($1)`,
        [owners],
      )
      .then(({ rows }) => ({ n: Math.max(1, rows[0]!.n), avgdl: Math.max(1, rows[0]!.avgdl) }));
    value.catch(() => statistics.delete(key));
    if (statistics.size > 1000) statistics.clear();
    statistics.set(key, { at: Date.now(), value });
    return value;
  };

  /**
   * The quota check of a put, in its transaction: the owner's advisory lock (held to the commit) makes
   * the puts of one owner with a quota wait for each other, on every instance, so none sees a stale usage.
   */
  const checkQuotaIn = async (
    client: pg.PoolClient,
    owner: string,
    quota: DocumentQuota,
    previous: DocumentRow | undefined,
    bytes: number,
  ): Promise<void> => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [QUOTA_LOCK_CLASS, owner]);
    const { rows } = await client.query<{ documents: string; bytes: string }>(
      `SELECT count(*) AS documents, coalesce(sum(bytes), 0) AS bytes FROM ${s}.index_documents WHERE owner = $1`,
      [owner],
    );
    const usage = { documents: toNumber(rows[0]!.documents), bytes: toNumber(rows[0]!.bytes) };
    checkQuota(quota, usage, previous === undefined ? undefined : toNumber(previous.bytes), bytes);
  };

  return {
    async put(input, putOptions = {}): Promise<PutResult> {
      const prepared = prepareDocument(input, putOptions);
      const { document, owner, sections } = prepared;
      for (let attempt = 1; ; attempt++) {
        try {
          return await transaction(async (client) => {
            const previous = (
              await client.query<DocumentRow>(
                `SELECT doc, id, hash, source, file_version, bytes FROM ${s}.index_documents
                 WHERE owner = $1 AND url = $2 FOR UPDATE`,
                [owner, document.url],
              )
            ).rows[0];
            const result: PutResult =
              previous === undefined ? 'added' : previous.hash === prepared.hash ? 'unchanged' : 'updated';
            if (
              previous !== undefined &&
              result === 'unchanged' &&
              previous.source === prepared.source &&
              (previous.file_version ?? undefined) === prepared.fileVersion
            )
              return result;
            if (putOptions.quota !== undefined)
              await checkQuotaIn(client, owner, putOptions.quota, previous, prepared.bytes);
            if (previous !== undefined)
              await client.query(`DELETE FROM ${s}.index_documents WHERE doc = $1`, [previous.doc]);
            const { rows } = await client.query<{ doc: string }>(
              `INSERT INTO ${s}.index_documents (${DOCUMENT_ROW_COLUMNS})
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING doc`,
              documentRowValues(prepared, previous?.id),
            );
            if (sections.length > 0)
              await client.query(
                `INSERT INTO ${s}.index_sections (doc, section, owner, length, terms)
                 SELECT $1, ordinality - 1, $2, length, to_tsvector('simple', text)
                 FROM unnest($3::text[], $4::int[]) WITH ORDINALITY AS t(text, length)`,
                [
                  rows[0]!.doc,
                  owner,
                  sections.map((section) => section.terms),
                  sections.map((section) => section.length),
                ],
              );
            return result;
          });
        } catch (error) {
          // Two instances adding the same new URL at once: the loser sees the winner's row on the retry.
          if (attempt < 3 && (error as { code?: string }).code === '23505') continue;
          throw error;
        }
      }
    },
    async get(url, owner) {
      const { rows } = await query<DocumentRow>(
        `SELECT * FROM ${s}.index_documents WHERE owner = $1 AND url = $2`,
        [ownerOf(owner), urlOf(url)],
      );
      return rows[0] === undefined ? undefined : storedOf(rows[0]);
    },
    async getById(id, owner) {
      if (typeof id !== 'string') return undefined;
      const { rows } = await query<DocumentRow>(
        `SELECT * FROM ${s}.index_documents WHERE id = $1 AND owner = $2`,
        [id, ownerOf(owner)],
      );
      return rows[0] === undefined ? undefined : storedOf(rows[0]);
    },
    async record(url, owner) {
      const { rows } = await query<DocumentRow>(
        `SELECT source, hash, indexed_at, file_version FROM ${s}.index_documents WHERE owner = $1 AND url = $2`,
        [ownerOf(owner), urlOf(url)],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      return {
        source: row.source,
        hash: row.hash,
        indexedAt: row.indexed_at,
        ...(row.file_version === null ? {} : { fileVersion: row.file_version }),
      };
    },
    async remove(url, owner) {
      const { rowCount } = await query(`DELETE FROM ${s}.index_documents WHERE owner = $1 AND url = $2`, [
        ownerOf(owner),
        urlOf(url),
      ]);
      return (rowCount ?? 0) > 0;
    },
    async search(text, given): Promise<DocumentHit[]> {
      const { limit, owners, terms } = searchOptions(text, given);
      const engine = [...new Set(terms.map(engineTerm).filter(Boolean))];
      if (limit === 0 || engine.length === 0) return [];
      // One snapshot for the search's statements, and the sections read through their indexes only (the
      // planner would read every section for a query of many word groups or a common word: it does not
      // count reading the vectors).
      const { chosen, documents } = await transaction(async (client) => {
        // BM25 over the matching sections of the allowed owners: the corpus statistics (N, average
        // length) are those owners' sections, as if each search ran on an index of just them.
        const stats = await statisticsOf(client, [...owners]);
        const rows = await rankPostgresSections(
          { query: (text, params) => client.query(text, params as unknown[]), schema: s, stats, frequencies },
          engine.join(' '),
          [...owners],
          limit,
          limit * 8 + 32,
        );
        const best = new Map<string, { section: number; score: number }>();
        for (const row of rows)
          if (!best.has(row.doc)) best.set(row.doc, { section: row.section, score: row.score });
        const chosen = [...best].slice(0, limit);
        const documents =
          chosen.length === 0
            ? { rows: [] }
            : await client.query<DocumentRow>(`SELECT * FROM ${s}.index_documents WHERE doc = ANY($1)`, [
                chosen.map(([doc]) => doc),
              ]);
        return { chosen, documents };
      }, SEARCH_BEGIN);
      if (chosen.length === 0) return [];
      const byDoc = new Map(documents.rows.map((row) => [String(row.doc), row]));
      return chosen.flatMap(([doc, hit]) => {
        const row = byDoc.get(String(doc));
        return row === undefined ? [] : [hitOf(storedOf(row), hit.section, hit.score, terms)];
      });
    },
    async list(given) {
      const { owner, source, urlPrefix, after, limit } = listOptions(given);
      const conditions = ['owner = $1', 'url COLLATE "C" > $2'];
      const params: unknown[] = [owner, after];
      if (source !== undefined) {
        params.push(source);
        conditions.push(`source = $${params.length}`);
      }
      if (urlPrefix !== undefined && urlPrefix !== '') {
        params.push(urlPrefix);
        conditions.push(`left(url, length($${params.length})) = $${params.length}`);
      }
      params.push(limit + 1);
      const { rows } = await query<DocumentRow>(
        `SELECT ${SUMMARY_COLUMNS} FROM ${s}.index_documents WHERE ${conditions.join(' AND ')}
         ORDER BY url COLLATE "C" LIMIT $${params.length}`,
        params,
      );
      const page = rows.slice(0, limit);
      return {
        documents: page.map(summaryOf),
        ...(rows.length > limit ? { cursor: cursorAfter(page.at(-1)!.url) } : {}),
      };
    },
    async usage(owner) {
      const { rows } = await query<{ documents: string; bytes: string }>(
        `SELECT count(*) AS documents, coalesce(sum(bytes), 0) AS bytes FROM ${s}.index_documents WHERE owner = $1`,
        [ownerOf(owner)],
      );
      return { documents: toNumber(rows[0]!.documents), bytes: toNumber(rows[0]!.bytes) };
    },
    async setSource(source) {
      await query(
        `INSERT INTO ${s}.index_sources (source, kind, label, indexed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (source) DO UPDATE SET kind = excluded.kind, label = excluded.label,
           indexed_at = excluded.indexed_at`,
        [source.source, source.kind, source.label ?? null, source.indexedAt],
      );
    },
    async removeSource(source) {
      await query(`DELETE FROM ${s}.index_sources WHERE source = $1`, [source]);
    },
    async sources() {
      const { rows } = await query<{
        source: string;
        kind: string;
        label: string | null;
        indexed_at: string;
      }>(`SELECT source, kind, label, indexed_at FROM ${s}.index_sources`);
      const counts = await query<{ source: string; n: string }>(
        `SELECT source, count(*) AS n FROM ${s}.index_documents WHERE owner = '' GROUP BY source`,
      );
      return sourceSummaries(
        rows.map((row) => ({
          source: row.source,
          kind: row.kind as SourceKind,
          ...(row.label === null ? {} : { label: row.label }),
          indexedAt: row.indexed_at,
        })),
        new Map(counts.rows.map((row) => [row.source, toNumber(row.n)])),
      );
    },
    async flush() {},
    async close() {
      await connection.close();
    },
  };
}
