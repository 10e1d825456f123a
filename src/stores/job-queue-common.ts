/**
 * Pieces shared by the job queue implementations: input checks, list cursors, and the records of status
 * events, so that every backend writes the same log.
 */
import { randomBytes } from 'node:crypto';
import type {
  ClaimOptions,
  EnqueueJobInput,
  JobError,
  JobLease,
  JobPage,
  JobQueue,
  JobRecord,
  JobStatus,
  ListJobsOptions,
} from './job-queue.ts';

/** The statuses a job can be listed by. */
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** Most jobs one {@link JobQueue.list} page returns. */
export const MAX_LIST_LIMIT = 100;

/** Most events one read of a job's log returns. */
export const MAX_EVENTS_READ = 1_000;

let lastIdMs = 0;
let lastIdTail = 0n;

/**
 * A new job id, `res_` and 24 hex digits: the first 12 are the millisecond it was made, the last 12 a
 * random number that counts up when one process makes several ids in the same millisecond. Ids made one
 * after the other therefore sort in the order they were made, which is what breaks a tie between jobs
 * created in the same millisecond when a list shows them newest first.
 */
export function newJobId(now: number = Date.now()): string {
  const ms = Math.max(Math.floor(now), lastIdMs);
  if (ms === lastIdMs) {
    lastIdTail += 1n;
  } else {
    // A random start in the lower half, so counting up within one millisecond never runs out.
    lastIdTail = BigInt(`0x${randomBytes(6).toString('hex')}`) >> 1n;
    lastIdMs = ms;
  }
  return `res_${ms.toString(16).padStart(12, '0')}${lastIdTail.toString(16).padStart(12, '0')}`;
}

/** Throws a TypeError for an enqueue input no backend should store. */
export function assertEnqueueInput(input: EnqueueJobInput): void {
  if (typeof input !== 'object' || input === null) throw new TypeError('input must be an object');
  assertText(input.id, 'id');
  assertText(input.account, 'account');
  if (input.idempotencyKey !== undefined) assertText(input.idempotencyKey, 'idempotencyKey');
  if (input.maxQueued !== undefined && !(Number.isSafeInteger(input.maxQueued) && input.maxQueued >= 0)) {
    throw new TypeError('maxQueued must be a non-negative integer');
  }
}

/** Throws a TypeError for bad claim options. */
export function assertClaimOptions(options: ClaimOptions): void {
  assertLeaseMs(options.leaseMs);
  const cap = options.maxRunningPerAccount;
  if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 1)) {
    throw new TypeError('maxRunningPerAccount must be a positive integer');
  }
}

/** Throws a TypeError unless `ms` is a positive integer number of milliseconds. */
export function assertLeaseMs(ms: number): void {
  if (!(Number.isSafeInteger(ms) && ms > 0)) throw new TypeError('leaseMs must be a positive integer');
}

/** Throws a TypeError for bad list options. */
export function assertListOptions(options: ListJobsOptions): void {
  assertText(options.account, 'account');
  if (!(Number.isSafeInteger(options.limit) && options.limit >= 1 && options.limit <= MAX_LIST_LIMIT)) {
    throw new TypeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  if (options.status !== undefined && !JOB_STATUSES.includes(options.status)) {
    throw new TypeError(`status must be one of ${JOB_STATUSES.join(', ')}`);
  }
}

function assertText(value: unknown, name: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) {
    throw new TypeError(`${name} must be a non-empty string of at most 512 characters`);
  }
}

/** A list position: after the job created at `createdAt` with id `id` (newest first). */
export interface ListPosition {
  readonly createdAt: number;
  readonly id: string;
}

/** The opaque cursor of a list position. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.createdAt}:${position.id}`, 'utf8').toString('base64url');
}

/** The position of a cursor; `null` for a cursor this queue never made. */
export function decodeCursor(cursor: string): ListPosition | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,16}):(.+)$/s.exec(text);
  if (!match) return null;
  return { createdAt: Number(match[1]), id: match[2]! };
}

/** Whether job `a` comes before position `b` in newest-first order (i.e. is listed after it). */
export function isAfterPosition(a: ListPosition, b: ListPosition): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
}

/** The data of a `status` event. */
export function statusEventData(status: JobStatus, attempt?: number): Record<string, unknown> {
  return attempt === undefined ? { status } : { status, attempt };
}

/** The data of a terminal event (`completed`, `failed`, `cancelled`). */
export function terminalEventData(status: JobStatus, error?: JobError | null): Record<string, unknown> {
  return error ? { status, error } : { status };
}

/** Compares a job with the account's cap on running jobs. */
export function underCap(running: number, cap: number | undefined): boolean {
  return cap === undefined || running < cap;
}

/** The `after` and `limit` of a read of a job's events, defaults applied and the limit capped. */
export function eventRange(range: { readonly after?: number; readonly limit?: number } = {}): {
  after: number;
  limit: number;
} {
  return { after: range.after ?? 0, limit: Math.min(range.limit ?? MAX_EVENTS_READ, MAX_EVENTS_READ) };
}

/** A list page from up to `limit + 1` jobs found in order: the extra one says there is a next page. */
export function pageOf(found: readonly JobRecord[], limit: number): JobPage {
  const jobs = found.slice(0, limit);
  const last = jobs.at(-1);
  return { jobs, nextCursor: found.length > limit && last ? encodeCursor(last) : null };
}

/** The position a list cursor names (`null`: from the newest). */
export function positionOf(options: ListJobsOptions): ListPosition | null {
  return options.cursor === undefined ? null : decodeCursor(options.cursor);
}

/**
 * `complete` and `fail` of a queue whose backend holds a delivery per lease (BullMQ, pg-boss): the job is
 * ended with `end`, then the backend is told to forget the delivery.
 */
export function endersOf(
  end: (
    jobId: string,
    token: string,
    status: JobStatus,
    values: { result?: unknown; error?: JobError; credits?: number },
  ) => Promise<JobRecord | null>,
  release: (token: string) => Promise<void>,
): Pick<JobQueue, 'complete' | 'fail'> {
  const ending = async (lease: JobLease, status: JobStatus, values: Parameters<typeof end>[3]) => {
    const ended = await end(lease.jobId, lease.token, status, values);
    await release(lease.token);
    return ended;
  };
  return {
    complete: (lease, outcome) =>
      ending(lease, 'completed', { result: outcome.result, credits: outcome.creditsUsed }),
    fail: (lease, error) => ending(lease, 'failed', { error }),
  };
}

/**
 * Wraps a queue so that every implementation checks its arguments alike (TypeError on bad ones), and gives
 * it the caller's types: a backend stores any JSON input and result, and `Input` and `Result` say what this
 * caller puts in (the one place the stored JSON is taken for them, as BullMQ's `Queue<DataType, ResultType>`
 * does).
 */
export function withChecks<Input = unknown, Result = unknown>(queue: JobQueue): JobQueue<Input, Result> {
  const checked: JobQueue = {
    ...queue,
    enqueue(input) {
      assertEnqueueInput(input);
      return queue.enqueue(input);
    },
    claim(options) {
      assertClaimOptions(options);
      return queue.claim(options);
    },
    heartbeat(lease, leaseMs) {
      assertLeaseMs(leaseMs);
      return queue.heartbeat(lease, leaseMs);
    },
    list(options) {
      assertListOptions(options);
      return queue.list(options);
    },
  };
  return checked as JobQueue<Input, Result>;
}
