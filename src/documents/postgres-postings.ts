/**
 * The PostgreSQL document index's postings: each term of each section as a row (term, section, owner, term
 * frequency) under a B-tree on the term. A search counts a word's sections and reads their term frequencies
 * from that index alone, instead of from each section's `tsvector`, which PostgreSQL keeps out of line (in
 * TOAST) once a section is long: reading the vectors of a common word's 40,000 sections took half a second.
 *
 * Triggers on the sections keep the postings, whoever writes the sections (an instance of an older version
 * too). An index made before the postings existed gets them on first use: the sections written before are
 * read in chunks of document ids ({@link backfillPostings}), each one statement well within the statement
 * timeout, and every instance that starts meanwhile helps and waits until the last chunk is done.
 */
import type pg from 'pg';

/** The advisory lock a chunk of the backfill is written under. */
const BACKFILL_LOCK_KEY = 44_002;

/** Document ids read by one backfill statement (about 125,000 postings of ordinary pages). */
const BACKFILL_CHUNK = 500;

/** The postings rows of the sections of `from` (a table or transition table, aliased `m`). */
function postingRows(from: string): string {
  return `SELECT u.lexeme, m.doc, m.section, m.owner, coalesce(array_length(u.positions, 1), 1), m.length
     FROM ${from} m, unnest(m.terms) AS u`;
}

/**
 * The statements that create the postings, their index, the triggers that keep them and the backfill's
 * state in schema `s` (quoted), if missing; they run in the index's schema transaction.
 */
export function postingsStatements(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.index_postings_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       INSERT INTO ${s}.index_postings (lexeme, doc, section, owner, tf, length) ${postingRows('added')};
       RETURN NULL;
     END $fn$;
   CREATE OR REPLACE FUNCTION ${s}.index_postings_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       DELETE FROM ${s}.index_postings p USING removed m, unnest(m.terms) AS u
       WHERE p.lexeme = u.lexeme AND p.doc = m.doc AND p.section = m.section;
       RETURN NULL;
     END $fn$;
   DO $do$ BEGIN
     IF to_regclass('${s}.index_postings') IS NULL THEN
       CREATE TABLE ${s}.index_postings (
         lexeme text COLLATE "C" NOT NULL,
         doc bigint NOT NULL,
         section integer NOT NULL,
         owner text NOT NULL,
         tf integer NOT NULL,
         length integer NOT NULL
       -- Vacuumed after every 1 % more rows (not PostgreSQL's 20 %): searches read the postings from the
       -- B-tree alone only where the visibility map says their pages are all visible.
       ) WITH (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 50000);
       CREATE INDEX index_postings_by_lexeme ON ${s}.index_postings (lexeme, doc, section) INCLUDE (owner, tf, length);
       CREATE TRIGGER index_postings_add AFTER INSERT ON ${s}.index_sections
         REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ${s}.index_postings_add();
       CREATE TRIGGER index_postings_remove AFTER DELETE ON ${s}.index_sections
         REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ${s}.index_postings_remove();
       -- The sections written before the triggers (the lock they took waited for the writers): to backfill.
       CREATE TABLE ${s}.index_postings_backfill (done bigint NOT NULL, upto bigint NOT NULL);
       INSERT INTO ${s}.index_postings_backfill
         SELECT 0, coalesce((SELECT max(doc) FROM ${s}.index_sections), 0);
     END IF;
   END $do$;`;
}

/**
 * Writes the postings of the sections written before the postings existed, a chunk of document ids per
 * transaction; resolves once none is left (at once on an index that had them from the start). Returns the
 * number of chunks this call wrote.
 */
export async function backfillPostings(pool: pg.Pool, s: string): Promise<number> {
  for (let chunks = 0; ; chunks++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [BACKFILL_LOCK_KEY]);
      const { rows } = await client.query<{ done: string; upto: string }>(
        `SELECT done, upto FROM ${s}.index_postings_backfill`,
      );
      const state = rows[0];
      if (state === undefined || Number(state.done) >= Number(state.upto)) {
        await client.query('COMMIT');
        return chunks;
      }
      const next = Math.min(Number(state.done) + BACKFILL_CHUNK, Number(state.upto));
      await client.query(
        `INSERT INTO ${s}.index_postings (lexeme, doc, section, owner, tf, length)
         ${postingRows(`${s}.index_sections`)} WHERE m.doc > $1 AND m.doc <= $2
         -- In the B-tree's order: each of its pages is written once a chunk, not once a row.
         ORDER BY u.lexeme COLLATE "C", m.doc, m.section`,
        [state.done, next],
      );
      await client.query(`UPDATE ${s}.index_postings_backfill SET done = $1`, [next]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
