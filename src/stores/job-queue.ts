/**
 * A generic, typed job queue, `JobQueue<Input, Result>` (after BullMQ's `Queue<DataType, ResultType>`): it
 * stores jobs whose input is an `Input` and whose result a `Result`, and knows nothing of what they do (the
 * research jobs of `/v1/research` sit on top, in src/jobs/, typed with their own input and result). One
 * conformance suite (`describeJobQueue` in `citewise/testing`) runs against every implementation: in-process
 * memory (the library default), SQLite (the data directory of `citewise serve`), BullMQ on Redis and
 * pg-boss on PostgreSQL (several machines).
 *
 * A job moves `queued → running → completed | failed | cancelled`. A worker {@link JobQueue.claim}s a job
 * under a lease it renews with {@link JobQueue.heartbeat}; a worker that dies stops renewing, its lease
 * lapses and another worker claims the job again (stalled-job recovery). Only the holder of the current
 * lease can append events to the job or end it, so a worker that lost its lease can never overwrite the
 * work of the one that took over. Every change of status appends an event to the job's log, in the same
 * atomic step: the log (ids 1, 2, 3…) is what a follower replays from a position (`Last-Event-ID`).
 *
 * Times are epoch milliseconds. Inputs and results are stored as JSON: `Input` and `Result` are what the
 * caller puts in (as with BullMQ, the types are the caller's word, not checked when read back).
 */

/** Where a job is in its life. */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The statuses a job never leaves. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** Whether a job in this status has ended. */
export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Why a job failed, in the spec's error shape. */
export interface JobError {
  readonly description: string;
  /** A stable error code (see the error table), when known. */
  readonly code?: string;
}

/** A stored job, with an input of type `Input` and (once completed) a result of type `Result`. */
export interface JobRecord<Input = unknown, Result = unknown> {
  /** Unique id, chosen by the caller of {@link JobQueue.enqueue}. */
  readonly id: string;
  /** The account that pays for the job; only its keys see it. */
  readonly account: string;
  /** The API key that created it (its id, never the key). */
  readonly keyId: string | null;
  readonly status: JobStatus;
  /** What to run, as given to {@link JobQueue.enqueue}. */
  readonly input: Input;
  readonly createdAt: number;
  /** When a worker first claimed it. */
  readonly startedAt: number | null;
  /** When it ended (completed, failed or cancelled). */
  readonly completedAt: number | null;
  /** How many times a worker claimed it: 1 on a first run, more after a worker died holding it. */
  readonly attempts: number;
  /** What the worker returned on completion; `null` before. */
  readonly result: Result | null;
  readonly error: JobError | null;
  /** Credits charged for the job (set on completion). */
  readonly creditsUsed: number;
  /** The `Idempotency-Key` it was created with, unique per account. */
  readonly idempotencyKey: string | null;
  /** A fingerprint of the request that created it (a retry with another body is refused). */
  readonly fingerprint: string | null;
  /** Whether the work after its end (credit settlement, webhook) is done. */
  readonly finalized: boolean;
}

/** One entry of a job's append-only event log. */
export interface JobEvent {
  /** 1, 2, 3… per job: what `Last-Event-ID` names. */
  readonly id: number;
  /** `status` (queued, running), `step`, or the terminal `completed` / `failed` / `cancelled`. */
  readonly type: string;
  readonly data: unknown;
  readonly at: number;
}

/** Input of {@link JobQueue.enqueue}. */
export interface EnqueueJobInput<Input = unknown> {
  readonly id: string;
  readonly account: string;
  readonly keyId?: string | null;
  readonly input: Input;
  /** With a key, enqueuing again under the same account and key returns the first job (`created: false`). */
  readonly idempotencyKey?: string;
  readonly fingerprint?: string;
  /**
   * Most jobs of the account waiting to run (status `queued`) at once; past it, enqueue throws
   * {@link JobQueueFullError} and stores nothing. @default no cap
   */
  readonly maxQueued?: number;
}

/** Options of {@link JobQueue.claim}. */
export interface ClaimOptions {
  /** Who claims (for logs): e.g. `host:pid:slot`. */
  readonly workerId: string;
  /** How long the lease lasts unless renewed by {@link JobQueue.heartbeat}. */
  readonly leaseMs: number;
  /**
   * Most jobs of one account running at once across every worker on the queue; an account at its cap
   * waits while the jobs of others run (its fair share). @default no cap
   */
  readonly maxRunningPerAccount?: number;
}

/** The right to work on a job, until its lease lapses. */
export interface JobLease {
  readonly jobId: string;
  /** Unique per claim. */
  readonly token: string;
}

/** A job a worker claimed. */
export interface ClaimedJob<Input = unknown, Result = unknown> {
  readonly job: JobRecord<Input, Result>;
  readonly lease: JobLease;
}

/** What a heartbeat found: still ours, taken by another worker (or ended), or cancelled. */
export type HeartbeatResult = 'ok' | 'lost' | 'cancelled';

/** Options of {@link JobQueue.list}. */
export interface ListJobsOptions {
  readonly account: string;
  readonly status?: JobStatus;
  /** At most this many jobs (1–100). */
  readonly limit: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** A page of jobs, newest first. */
export interface JobPage<Input = unknown, Result = unknown> {
  readonly jobs: JobRecord<Input, Result>[];
  /** Pass as `cursor` for the next page; `null` on the last page. */
  readonly nextCursor: string | null;
}

/** Thrown by {@link JobQueue.enqueue} when the account already has its most jobs waiting. */
export class JobQueueFullError extends Error {
  override readonly name = 'JobQueueFullError';
  readonly account: string;
  readonly maxQueued: number;
  constructor(account: string, maxQueued: number) {
    super(`account ${account} already has ${maxQueued} jobs waiting`);
    this.account = account;
    this.maxQueued = maxQueued;
  }
}

/** See the module comment. `Input` and `Result` default to `unknown`: a queue of any JSON jobs. */
export interface JobQueue<Input = unknown, Result = unknown> {
  /**
   * Stores a new job (`queued`, event `status` {status: "queued"}), or with an `idempotencyKey` already
   * used by the account, returns that job with `created: false`. Throws {@link JobQueueFullError}.
   */
  enqueue(input: EnqueueJobInput<Input>): Promise<{ job: JobRecord<Input, Result>; created: boolean }>;
  /**
   * Takes the oldest job that can run — queued, or running under a lapsed lease (its worker died) — and
   * leases it: status `running`, `attempts` + 1, event `status` {status: "running", attempt}. `null` when
   * there is none. Two concurrent claims never get the same job.
   */
  claim(options: ClaimOptions): Promise<ClaimedJob<Input, Result> | null>;
  /** Renews a lease for `leaseMs`. `lost` when another worker holds the job or it ended; `cancelled` when cancelled. */
  heartbeat(lease: JobLease, leaseMs: number): Promise<HeartbeatResult>;
  /** Appends an event as the lease holder; `null` (nothing appended) when the lease is no longer current. */
  appendEvent(lease: JobLease, type: string, data: unknown): Promise<JobEvent | null>;
  /** Ends the job `completed` with its result and credits (event `completed`); `null` when the lease is lost. */
  complete(
    lease: JobLease,
    outcome: { readonly result: Result; readonly creditsUsed: number },
  ): Promise<JobRecord<Input, Result> | null>;
  /** Ends the job `failed` (event `failed`); `null` when the lease is lost. */
  fail(lease: JobLease, error: JobError): Promise<JobRecord<Input, Result> | null>;
  /**
   * Cancels a job that has not ended (event `cancelled`); its worker learns it at its next heartbeat.
   * Returns the job as it is afterwards (an ended job unchanged), `null` for an unknown id.
   */
  cancel(id: string): Promise<JobRecord<Input, Result> | null>;
  get(id: string): Promise<JobRecord<Input, Result> | null>;
  /** The account's job created with this `Idempotency-Key`, if any. */
  findByIdempotencyKey(account: string, key: string): Promise<JobRecord<Input, Result> | null>;
  /** The account's jobs, newest first, optionally of one status. */
  list(options: ListJobsOptions): Promise<JobPage<Input, Result>>;
  /** The job's events with an id above `after` (default 0), oldest first, at most `limit` (default 1000). */
  events(id: string, options?: { readonly after?: number; readonly limit?: number }): Promise<JobEvent[]>;
  /** Ended jobs whose end is not finalized, that ended before `endedBefore` (left by a worker that died). */
  unfinalized(options: {
    readonly endedBefore: number;
    readonly limit: number;
  }): Promise<JobRecord<Input, Result>[]>;
  /** Marks an ended job finalized (credits settled, webhook handled). */
  markFinalized(id: string): Promise<void>;
  /** Resolves when the backend answers (the `/readyz` probe). */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}
