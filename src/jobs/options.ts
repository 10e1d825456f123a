/**
 * Options of research jobs and their defaults, written once: the engine applies them, and the CLI's settings
 * table (`citewise serve`, `citewise worker`, the configuration page) shows and uses the same values.
 */
import { RESEARCH_REQUEST_DEFAULTS } from '../contract/research.ts';
import { nonNegativeInteger, positiveInteger } from '../options.ts';
import type { ResearchJobQueue } from './records.ts';
import type { ResearchServiceSettings } from './research-jobs.ts';
import type { ResearchRunner } from './runner.ts';

/** Defaults of {@link ResearchJobsOptions}. */
export const JOBS_DEFAULTS = {
  /** Research jobs one engine runs at once (0: none; the instance only takes requests). */
  workers: 2,
  /** Most jobs of one account waiting to run at once; past it `POST /v1/research` answers 429. */
  maxQueuedPerAccount: 20,
  /**
   * Share of a process's workers that the jobs of one account may hold at once when `maxRunningPerAccount`
   * is not given: half, rounded down, at least 1 — with the default 2 workers one account runs 1 job and the
   * other worker is left for the other accounts (see {@link defaultMaxRunningPerAccount}).
   */
  maxAccountWorkerShare: 0.5,
  /** How long a worker's claim on a job lasts unless renewed (it renews every third of it). */
  leaseMs: 30_000,
  /** Claims of one job (a first run, then restarts after its worker died) before it fails. */
  maxAttempts: 5,
  /** A job's time limit when the request names none (`time_limit_ms`). */
  timeLimitMs: 300_000,
  /** Smallest and largest accepted `time_limit_ms` (the request's limits, written in src/contract/). */
  minTimeLimitMs: RESEARCH_REQUEST_DEFAULTS.minTimeLimitMs,
  maxTimeLimitMs: RESEARCH_REQUEST_DEFAULTS.maxTimeLimitMs,
  /** Largest accepted `max_credits`. */
  maxCredits: RESEARCH_REQUEST_DEFAULTS.maxCredits,
  /** How often an idle worker looks for a job another process queued. */
  pollMs: 500,
  /** How often an event stream looks for events written by another process. */
  eventPollMs: 250,
  /** Most event streams (`GET /v1/research/{id}/events`) one key keeps open on one instance; 429 past it. */
  maxStreamsPerKey: 10,
  /** Most event streams the keys of one account keep open on one instance; 429 past it. */
  maxStreamsPerAccount: 30,
  /** `Retry-After` of a 429 for a key or account at its cap of open event streams. */
  streamsFullRetryAfterMs: 5_000,
  /** Deliveries of one webhook before giving up (the first and its retries). */
  webhookAttempts: 6,
  /** Pause before the first webhook retry; each further retry waits four times longer. */
  webhookBackoffMs: 1_000,
  /** Deadline of one webhook delivery. */
  webhookTimeoutMs: 10_000,
  /** `Retry-After` of a 429 for an account at its cap of waiting jobs. */
  queueFullRetryAfterMs: 30_000,
  /** How long the credits of a job stay held if nothing settles them (every process died for good). */
  reservationTtlMs: 7 * 86_400_000,
  /** Jobs a page of `GET /v1/research` lists when its query names no `limit`. */
  listLimit: 20,
  /** The depth of the search a job runs: the multi-hop research loop. */
  searchDepth: 'research',
} as const;

/**
 * The default cap on running jobs of one account for a process with `workers` workers:
 * `floor(workers × maxAccountWorkerShare)`, at least 1. With 2 or more workers at least one worker is always
 * left for other accounts; with a single worker the account may use it (a job's time limit bounds the wait),
 * so run 2 or more for fair turns.
 */
export function defaultMaxRunningPerAccount(workers: number): number {
  return Math.max(1, Math.floor(workers * JOBS_DEFAULTS.maxAccountWorkerShare));
}

/** Options of research jobs (`engine.research`, `POST /v1/research`). Every option has a working default. */
export interface ResearchJobsOptions {
  /**
   * Where jobs and their events live: `createMemoryJobQueue()` (in-process), `createSqliteJobQueue()`,
   * `createRedisJobQueue()` (BullMQ, from `citewise/redis`) or `createPostgresJobQueue()` (pg-boss, from
   * `citewise/postgres`), typed with the jobs' input and result ({@link ResearchJobQueue}).
   * `engine.close()` closes it. @default an in-process queue
   */
  readonly queue?: ResearchJobQueue;
  /** Jobs this engine runs at once; 0 runs none (another process works the queue). @default 2 */
  readonly workers?: number;
  /** Most jobs of one account waiting to run at once (429 past it). @default 20 */
  readonly maxQueuedPerAccount?: number;
  /**
   * Most jobs of one account running at once, across every worker on the queue (each process claims
   * under its own value). @default half of `workers`, rounded down, at least 1 (1 with the default 2 workers)
   */
  readonly maxRunningPerAccount?: number;
  /** A worker's lease on a job, renewed every third of it; a dead worker's job restarts after it. @default 30_000 */
  readonly leaseMs?: number;
  /** Claims of one job before it fails (restarts after crashes count). @default 5 */
  readonly maxAttempts?: number;
  /** A job's time limit when its request names none, in ms. @default 300_000 */
  readonly timeLimitMs?: number;
  /** Signing secret of webhooks (`whsec_…`, base64); without it, a job with a webhook is refused. @default none */
  readonly webhookSecret?: string;
  /**
   * Hosts webhooks may reach although they resolve to private addresses (`host` or `host:port`), a list of
   * their own: the page fetcher's `allowPrivateHosts` does not open them to webhooks. @default []
   */
  readonly allowPrivateHosts?: readonly string[];
  /** Deliveries of one webhook before giving up. @default 6 */
  readonly webhookAttempts?: number;
  /** Pause before the first webhook retry, in ms; each further retry waits four times longer. @default 1_000 */
  readonly webhookBackoffMs?: number;
  /** How often an idle worker looks for jobs queued by another process, in ms. @default 500 */
  readonly pollMs?: number;
  /** How often an event stream looks for events written by another process, in ms. @default 250 */
  readonly eventPollMs?: number;
  /**
   * Most event streams (`GET /v1/research/{id}/events`) one key keeps open on this engine; past it, 429
   * `too_many_streams` with `Retry-After`. In-process calls (`research.events`, `research.wait`) hold no
   * connection and are not counted. @default 10
   */
  readonly maxStreamsPerKey?: number;
  /** Most event streams the keys of one account keep open on this engine; past it, 429. @default 30 */
  readonly maxStreamsPerAccount?: number;
  /** Runs one job; the default runs the engine's own search (see {@link ResearchRunner}). */
  readonly run?: ResearchRunner;
}

/**
 * Research jobs' settings, complete and checked: each option given, else its {@link JOBS_DEFAULTS} value.
 * Called once, by the engine's `resolveEngineOptions`; nothing below it defaults them again.
 * @throws TypeError when `options` is not an object; RangeError for a count or duration out of range.
 */
export function resolveJobsSettings(options: ResearchJobsOptions = {}): ResearchServiceSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('jobs must be an object');
  const d = JOBS_DEFAULTS;
  const workers = nonNegativeInteger('jobs.workers', options.workers, d.workers);
  return {
    workers,
    maxQueuedPerAccount: nonNegativeInteger(
      'jobs.maxQueuedPerAccount',
      options.maxQueuedPerAccount,
      d.maxQueuedPerAccount,
    ),
    maxRunningPerAccount: positiveInteger(
      'jobs.maxRunningPerAccount',
      options.maxRunningPerAccount,
      defaultMaxRunningPerAccount(workers),
    ),
    leaseMs: positiveInteger('jobs.leaseMs', options.leaseMs, d.leaseMs),
    maxAttempts: positiveInteger('jobs.maxAttempts', options.maxAttempts, d.maxAttempts),
    timeLimitMs: positiveInteger('jobs.timeLimitMs', options.timeLimitMs, d.timeLimitMs),
    pollMs: positiveInteger('jobs.pollMs', options.pollMs, d.pollMs),
    eventPollMs: positiveInteger('jobs.eventPollMs', options.eventPollMs, d.eventPollMs),
    maxStreamsPerKey: positiveInteger('jobs.maxStreamsPerKey', options.maxStreamsPerKey, d.maxStreamsPerKey),
    maxStreamsPerAccount: positiveInteger(
      'jobs.maxStreamsPerAccount',
      options.maxStreamsPerAccount,
      d.maxStreamsPerAccount,
    ),
    webhookDelivery: {
      attempts: positiveInteger('jobs.webhookAttempts', options.webhookAttempts, d.webhookAttempts),
      backoffMs: nonNegativeInteger('jobs.webhookBackoffMs', options.webhookBackoffMs, d.webhookBackoffMs),
      timeoutMs: d.webhookTimeoutMs,
    },
  };
}
