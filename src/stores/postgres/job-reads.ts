/**
 * The read-only operations of the PostgreSQL job queue (and `markFinalized`, a flag no worker races on):
 * one statement each through the queue's `query`, which makes sure the tables exist first.
 */
import type pg from 'pg';
import { eventRange, pageOf, positionOf } from '../job-queue-common.ts';
import { toRecord, type JobRow } from './job-rows.ts';
import type { JobQueue } from '../job-queue.ts';

/** Runs one statement (after the queue's start-up). */
export type PostgresQuery = <R extends pg.QueryResultRow>(
  sql: string,
  params?: readonly unknown[],
) => Promise<pg.QueryResult<R>>;

/** The reads of a {@link JobQueue} whose tables are in schema `s`. */
export function postgresJobReads(
  query: PostgresQuery,
  s: string,
): Pick<JobQueue, 'get' | 'findByIdempotencyKey' | 'list' | 'events' | 'unfinalized' | 'markFinalized'> {
  return {
    async get(id) {
      const { rows } = await query<JobRow>(`SELECT * FROM ${s}.research_jobs WHERE id = $1`, [id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async findByIdempotencyKey(account, key) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE account = $1 AND idempotency_key = $2`,
        [account, key],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async list(listOptions) {
      const after = positionOf(listOptions);
      const params: unknown[] = [listOptions.account, listOptions.limit + 1];
      let where = 'account = $1';
      if (listOptions.status !== undefined) {
        params.push(listOptions.status);
        where += ` AND status = $${params.length}`;
      }
      if (after !== null) {
        params.push(after.createdAt, after.id);
        where += ` AND (created_at, id) < ($${params.length - 1}, $${params.length})`;
      }
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
        params,
      );
      return pageOf(rows.map(toRecord), listOptions.limit);
    },

    async events(id, range = {}) {
      const { after, limit } = eventRange(range);
      const { rows } = await query<{ id: number; type: string; data: unknown; at: string }>(
        `SELECT id, type, data, at FROM ${s}.research_job_events WHERE job_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
        [id, after, limit],
      );
      return rows.map((row) => ({ id: row.id, type: row.type, data: row.data, at: Number(row.at) }));
    },

    async unfinalized({ endedBefore, limit }) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${s}.research_jobs WHERE NOT finalized AND completed_at IS NOT NULL AND completed_at < $1
         ORDER BY completed_at LIMIT $2`,
        [endedBefore, limit],
      );
      return rows.map(toRecord);
    },

    async markFinalized(id) {
      await query(
        `UPDATE ${s}.research_jobs SET finalized = true WHERE id = $1 AND completed_at IS NOT NULL`,
        [id],
      );
    },
  };
}
