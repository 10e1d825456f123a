/**
 * Research jobs as a service: create, get, list, follow and cancel the jobs of an account, and run them on
 * workers. Money goes through the credit store like every search: `max_credits` (or the job price) is held
 * when the job is created, under the job's own reservation id; when the job ends, what it used is
 * committed and the rest refunded — once, however often the job restarted, because commit and refund of
 * one reservation id settle it at most once. A job whose worker died before settling is finalized by any
 * worker later (see `unfinalized`).
 *
 * The rooms: `finalize.ts` settles ended jobs and sends their webhooks, `execute.ts` runs a claimed job on a
 * worker, `follow.ts` streams a job's events; this module checks and answers the calls of an account.
 */
import { CitewiseError } from '../errors.ts';
import { fingerprintBody } from '../contract/idempotency.ts';
import type { CreditsService } from '../contract/credits.ts';
import type { NormalizedSearchRequest } from '../contract/search.ts';
import type { KeyRecord } from '../stores/types.ts';
import {
  decodeCursor,
  JOB_STATUSES,
  newJobId,
  MAX_EVENTS_READ,
  MAX_LIST_LIMIT,
} from '../stores/job-queue-common.ts';
import { createJobExecutor } from './execute.ts';
import { createJobFinalizer, reservationOf } from './finalize.ts';
import { createJobFollower } from './follow.ts';
import { JOBS_DEFAULTS } from './options.ts';
import {
  parseResearchRequest,
  researchSearchOf,
  type ParsedResearchRequest,
  type ResearchEvent,
  type ResearchJob,
  type ResearchJobList,
  type ResearchListQuery,
} from '../contract/research.ts';
import {
  stepsOf,
  viewOf,
  type ResearchJobInput,
  type ResearchJobQueue,
  type ResearchJobRecord,
} from './records.ts';
import type { ResearchRunner } from './runner.ts';
import { isTerminal, JobQueueFullError, type JobStatus, type ListJobsOptions } from '../stores/job-queue.ts';
import type { WebhookDelivery, WebhookSender } from './webhooks.ts';
import { createStreamSlots, releasingAtEnd } from './stream-slots.ts';
import { startJobWorkers, type JobWorkers } from './worker.ts';

/** Settings of {@link createResearchService}, defaults applied. */
export interface ResearchServiceSettings {
  readonly workers: number;
  readonly maxQueuedPerAccount: number;
  readonly maxRunningPerAccount: number;
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly timeLimitMs: number;
  readonly pollMs: number;
  readonly eventPollMs: number;
  readonly maxStreamsPerKey: number;
  readonly maxStreamsPerAccount: number;
  /** The webhook deliveries configured; the sweep of a dead worker's jobs waits them out. */
  readonly webhookDelivery: WebhookDelivery;
}

/** What the research service works with. */
export interface ResearchServiceDeps {
  readonly queue: ResearchJobQueue;
  /** Holds, charges and refunds (each written to the ledger). */
  readonly credits: CreditsService;
  /** Credits held for the search a job runs (its price, capped by `max_credits`). */
  readonly price: (request: NormalizedSearchRequest) => number;
  readonly run: ResearchRunner;
  /** Signs and delivers webhooks; without it a job with a webhook is refused. */
  readonly webhooks: WebhookSender | null;
  /** Whether the engine can answer with `output_schema` (it needs a model). */
  readonly structuredOutput: boolean;
  readonly onError: (error: unknown, context: string, jobId?: string) => void;
}

/** See the module comment. Every call is made as the owner of `key`; another account's job is a 404. */
export interface ResearchService {
  create(
    key: KeyRecord,
    body: unknown,
    idempotencyKey?: string,
  ): Promise<{ readonly job: ResearchJob; readonly created: boolean }>;
  get(key: KeyRecord, id: string): Promise<ResearchJob>;
  list(key: KeyRecord, query: ResearchListQuery): Promise<ResearchJobList>;
  /**
   * The job's events after `after` (a `Last-Event-ID`), as they come, ending after the terminal one (or
   * when `signal` aborts). Throws 404 before the first event for a job the key cannot see.
   */
  events(
    key: KeyRecord,
    id: string,
    options?: {
      readonly after?: number;
      readonly signal?: AbortSignal;
      /**
       * A client holds a connection open for these events (`GET /v1/research/{id}/events`): counted
       * against the caps of open streams per key and per account (429 `too_many_streams` past them).
       */
      readonly countAsStream?: boolean;
    },
  ): Promise<AsyncIterable<ResearchEvent>>;
  cancel(key: KeyRecord, id: string): Promise<ResearchJob>;
  /** Starts the workers now (they start by themselves with the first job created here). */
  start(): void;
  /** Jobs running on this process's workers. */
  readonly running: number;
  close(): Promise<void>;
}

/** The position before a job's first event (its events are numbered from 1): replay them all. */
const BEFORE_FIRST_EVENT = 0;

/** Creates the research service. */
export function createResearchService(
  deps: ResearchServiceDeps,
  settings: ResearchServiceSettings,
): ResearchService {
  const { queue, credits, webhooks } = deps;
  const closing = new AbortController();
  const { finalize, sweep, drain } = createJobFinalizer({
    queue,
    credits,
    webhooks,
    webhookDelivery: settings.webhookDelivery,
    onError: deps.onError,
    leaseMs: settings.leaseMs,
    closing: closing.signal,
  });
  const { notify, follow } = createJobFollower({
    queue,
    eventPollMs: settings.eventPollMs,
    closing: closing.signal,
  });
  const streams = createStreamSlots({
    maxPerKey: settings.maxStreamsPerKey,
    maxPerAccount: settings.maxStreamsPerAccount,
    retryAfterMs: JOBS_DEFAULTS.streamsFullRetryAfterMs,
  });
  const executor = createJobExecutor({
    queue,
    run: deps.run,
    maxAttempts: settings.maxAttempts,
    finalize,
    notify,
    onError: deps.onError,
  });
  let workers: JobWorkers | null = null;

  async function owned(key: KeyRecord, id: string): Promise<ResearchJobRecord> {
    const job = typeof id === 'string' && id.length <= 200 ? await queue.get(id) : null;
    if (!job || job.account !== key.accountId) {
      throw new CitewiseError('not_found', `no research job ${String(id).slice(0, 200)}`, {
        description: 'Not Found: no research job with this id',
      });
    }
    return job;
  }

  async function view(job: ResearchJobRecord): Promise<ResearchJob> {
    if (job.status !== 'running') return viewOf(job);
    return viewOf(job, stepsOf(await queue.events(job.id, { limit: MAX_EVENTS_READ })));
  }

  function start(): void {
    if (workers || settings.workers === 0 || closing.signal.aborted) return;
    workers = startJobWorkers({
      queue,
      concurrency: settings.workers,
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
      maxRunningPerAccount: settings.maxRunningPerAccount,
      run: executor.run,
      idle: sweep,
      onError: (error, context) => deps.onError(error, context),
    });
  }

  return {
    async create(key, body, idempotencyKey) {
      const { request, reserved } = await acceptedRequest(deps, body);
      const fingerprint = fingerprintBody(body);
      const replay = async (job: ResearchJobRecord) => {
        if (job.fingerprint !== null && job.fingerprint !== fingerprint) {
          throw new CitewiseError('idempotency_mismatch');
        }
        return { job: await view(job), created: false };
      };
      if (idempotencyKey !== undefined) {
        const existing = await queue.findByIdempotencyKey(key.accountId, idempotencyKey);
        if (existing) return replay(existing);
      }
      const id = newJobId();
      await credits.hold({
        account: key.accountId,
        id: reservationOf(id),
        amount: reserved,
        ttlMs: JOBS_DEFAULTS.reservationTtlMs,
        key,
      });
      const input: ResearchJobInput = {
        request,
        reserved,
        timeLimitMs: request.time_limit_ms ?? settings.timeLimitMs,
      };
      let enqueued: { job: ResearchJobRecord; created: boolean };
      try {
        enqueued = await queue.enqueue({
          id,
          account: key.accountId,
          keyId: key.id,
          input,
          fingerprint,
          maxQueued: settings.maxQueuedPerAccount,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        });
      } catch (error) {
        await credits.refund({ id: reservationOf(id), account: key.accountId, amount: reserved });
        if (error instanceof JobQueueFullError) {
          throw new CitewiseError('too_many_jobs', error.message, {
            description: `Too Many Requests: this account already has ${error.maxQueued} research jobs waiting`,
            retryAfterMs: JOBS_DEFAULTS.queueFullRetryAfterMs,
          });
        }
        throw error;
      }
      if (!enqueued.created) {
        // Another request with the same Idempotency-Key won the race: it holds the credits.
        await credits.refund({ id: reservationOf(id), account: key.accountId, amount: reserved });
        return replay(enqueued.job);
      }
      start();
      workers?.wake();
      return { job: viewOf(enqueued.job), created: true };
    },

    async get(key, id) {
      return view(await owned(key, id));
    },

    async list(key, query) {
      const page = await queue.list(listOptionsOf(key.accountId, query));
      return {
        data: page.jobs.map((job) => viewOf(job)),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },

    async events(key, id, options = {}) {
      const job = await owned(key, id);
      const events = follow(job, options.after ?? BEFORE_FIRST_EVENT, options.signal);
      if (!options.countAsStream) return events;
      return releasingAtEnd(events, streams.acquire(key, options.signal));
    },

    async cancel(key, id) {
      const job = await owned(key, id);
      if (isTerminal(job.status)) return view(job);
      const cancelled = (await queue.cancel(job.id)) ?? job;
      executor.abortLocal(job.id);
      notify(job.id);
      if (cancelled.status === 'cancelled' && !cancelled.finalized) await finalize(cancelled);
      return view(cancelled);
    },

    start,

    get running() {
      return workers?.running ?? 0;
    },

    async close() {
      closing.abort();
      await workers?.stop();
      await drain();
      await webhooks?.close();
      // Closed with the engine, like the stores it was given (closing twice is harmless).
      await queue.close?.();
    },
  };
}

function invalid(message: string): CitewiseError {
  const description = `Invalid request: ${message}`;
  return new CitewiseError('invalid_request', description, { description });
}

/** The request of a job to create, refused (as a 400) when this service cannot run it, and its hold. */
async function acceptedRequest(
  deps: ResearchServiceDeps,
  body: unknown,
): Promise<{ readonly request: ParsedResearchRequest; readonly reserved: number }> {
  const request = parseResearchRequest(body);
  if (request.output_schema !== undefined && !deps.structuredOutput) {
    const description = 'Invalid request: output_schema needs a model (start the service with --model)';
    throw new CitewiseError('invalid_request', description, { description });
  }
  // The search the job will run is priced now: a `max_credits` below its least cost is refused now, not later.
  const reserved = deps.price(researchSearchOf(request, JOBS_DEFAULTS.searchDepth));
  if (request.webhook) {
    if (!deps.webhooks) {
      const description =
        'Invalid request: webhook needs a signing secret, and this service has none (--webhook-secret)';
      throw new CitewiseError('invalid_request', description, { description });
    }
    await deps.webhooks.check(request.webhook.url);
  }
  return { request, reserved };
}

/** What `GET /v1/research` lists for `account`, or a 400 for a query this service would not return. */
function listOptionsOf(account: string, query: ResearchListQuery): ListJobsOptions {
  const status = query.status;
  if (status !== undefined && !JOB_STATUSES.includes(status as JobStatus)) {
    throw invalid(`status must be one of ${JOB_STATUSES.join(', ')}`);
  }
  const limit = query.limit === undefined ? JOBS_DEFAULTS.listLimit : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw invalid(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  if (query.cursor !== undefined && (query.cursor.length > 1_000 || !decodeCursor(query.cursor))) {
    throw invalid('cursor is not one this service returned');
  }
  return {
    account,
    limit,
    ...(status ? { status: status as JobStatus } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}
