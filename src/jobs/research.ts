/**
 * Research jobs as a service: create, get, list, follow and cancel the jobs of an account, and run them on
 * workers. Money goes through the credit store like every search: `max_credits` (or the job price) is held
 * when the job is created, under the job's own reservation id; when the job ends, what it used is
 * committed and the rest refunded — once, however often the job restarted, because commit and refund of
 * one reservation id settle it at most once. A job whose worker died before settling is finalized by any
 * worker later (see `unfinalized`).
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { CitewiseError, toCitewiseError } from '../errors.ts';
import { fingerprintBody } from '../http/idempotency.ts';
import { parseSearchRequest } from '../http/schema.ts';
import type { CreditsService } from '../engine/credits.ts';
import type { NormalizedSearchRequest } from '../http/schema.ts';
import type { KeyRecord } from '../stores/types.ts';
import { decodeCursor, JOB_STATUSES, MAX_EVENTS_READ, MAX_LIST_LIMIT } from './common.ts';
import { JOBS_DEFAULTS } from './options.ts';
import {
  parseResearchRequest,
  searchRequestOf,
  stepsOf,
  viewOf,
  type ResearchJob,
  type ResearchJobInput,
} from './request.ts';
import type { ResearchRunner } from './runner.ts';
import {
  isTerminal,
  JobQueueFullError,
  type ClaimedJob,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from './types.ts';
import type { WebhookSender } from './webhooks.ts';
import { startJobWorkers, type AbortCause, type JobWorkers } from './worker.ts';

/** One event of a job, as `GET /v1/research/{id}/events` sends it. */
export interface ResearchEvent {
  /** Increasing per job: send the last one seen as `Last-Event-ID` to resume after it. */
  readonly id: number;
  /** `status`, `step`, or the terminal `completed`, `failed`, `cancelled` (the last event of a stream). */
  readonly event: string;
  /** For `status` `{status, attempt?}`; for `step` the step; for a terminal event the job. */
  readonly data: unknown;
}

/** A page of jobs, as `GET /v1/research` returns it. */
export interface ResearchJobList {
  readonly data: ResearchJob[];
  readonly next_cursor?: string;
}

/** Query of `GET /v1/research`, as strings from the URL or values from the library. */
export interface ResearchListQuery {
  readonly status?: string;
  readonly limit?: string | number;
  readonly cursor?: string;
}

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
}

/** What the research service works with. */
export interface ResearchServiceDeps {
  readonly queue: JobQueue;
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
    options?: { readonly after?: number; readonly signal?: AbortSignal },
  ): Promise<AsyncIterable<ResearchEvent>>;
  cancel(key: KeyRecord, id: string): Promise<ResearchJob>;
  /** Starts the workers now (they start by themselves with the first job created here). */
  start(): void;
  /** Jobs running on this process's workers. */
  readonly running: number;
  close(): Promise<void>;
}

const reservationOf = (jobId: string) => `research:${jobId}`;

/** The position before a job's first event (its events are numbered from 1): replay them all. */
const BEFORE_FIRST_EVENT = 0;

/** How long an ended job may wait for its finalization before another worker does it (webhook retries included). */
function finalizeGraceMs(webhooks: WebhookSender | null): number {
  const { webhookAttempts, webhookBackoffMs, webhookTimeoutMs } = JOBS_DEFAULTS;
  const backoff = webhooks ? webhookBackoffMs * ((4 ** (webhookAttempts - 1) - 1) / 3) : 0;
  return backoff + webhookAttempts * webhookTimeoutMs + 60_000;
}

/** Pauses before retrying a search refused for overload (503) within a job's time limit. */
const OVERLOAD_RETRY_MS = [1_000, 2_000, 4_000, 8_000];

/** Creates the research service. */
export function createResearchService(
  deps: ResearchServiceDeps,
  settings: ResearchServiceSettings,
): ResearchService {
  const { queue, credits, webhooks } = deps;
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const closing = new AbortController();
  const finalizing = new Set<Promise<void>>();
  /** Jobs running on this process's workers: a cancel here aborts them at once, not at the next heartbeat. */
  const local = new Map<string, AbortController>();
  let workers: JobWorkers | null = null;
  let lastSweep = 0;

  const notify = (id: string) => changes.emit(id);

  async function owned(key: KeyRecord, id: string): Promise<JobRecord> {
    const job = typeof id === 'string' && id.length <= 200 ? await queue.get(id) : null;
    if (!job || job.account !== key.accountId) {
      throw new CitewiseError('not_found', `no research job ${String(id).slice(0, 200)}`, {
        description: 'Not Found: no research job with this id',
      });
    }
    return job;
  }

  async function view(job: JobRecord): Promise<ResearchJob> {
    if (job.status !== 'running') return viewOf(job);
    return viewOf(job, stepsOf(await queue.events(job.id, { limit: MAX_EVENTS_READ })));
  }

  /** Charges what a completed job used (the rest returns), refunds any other; once, by the job's hold id. */
  async function settle(job: JobRecord): Promise<void> {
    const hold = {
      id: reservationOf(job.id),
      account: job.account,
      ...(job.keyId ? { keyId: job.keyId } : {}),
      amount: (job.input as ResearchJobInput).reserved,
    };
    const charge = job.status === 'completed' ? job.creditsUsed : 0;
    await (charge > 0 ? credits.charge(hold, charge) : credits.refund(hold));
  }

  /** Settles the credits of an ended job, then delivers its webhook (in the background) and marks it done. */
  async function finalize(job: JobRecord): Promise<void> {
    try {
      await settle(job);
    } catch (error) {
      // Left unfinalized: a later sweep settles it (commit and refund are idempotent).
      deps.onError(error, 'settle', job.id);
      return;
    }
    const url = (job.input as ResearchJobInput).request.webhook?.url;
    const work = (async () => {
      if (url && webhooks) {
        const delivered = await webhooks.deliver(
          { url, id: `msg_${job.id}`, type: `research.${job.status}`, data: viewOf(job) },
          closing.signal,
        );
        if (closing.signal.aborted) return;
        if (!delivered) deps.onError(new Error(`webhook to ${new URL(url).host} failed`), 'webhook', job.id);
      }
      await queue.markFinalized(job.id);
    })().catch((error: unknown) => deps.onError(error, 'finalize', job.id));
    finalizing.add(work);
    void work.finally(() => finalizing.delete(work));
  }

  /** Finalizes jobs that ended on a worker that died before finishing that (at most once a lease). */
  async function sweep(): Promise<void> {
    if (Date.now() - lastSweep < settings.leaseMs) return;
    lastSweep = Date.now();
    const stale = await queue.unfinalized({ endedBefore: Date.now() - finalizeGraceMs(webhooks), limit: 50 });
    for (const job of stale) await finalize(job);
  }

  async function runJob(claimed: ClaimedJob, signal: AbortSignal): Promise<void> {
    const { job, lease } = claimed;
    notify(job.id);
    const input = job.input as ResearchJobInput;
    const end = async (ended: Promise<JobRecord | null>) => {
      const record = await ended;
      notify(job.id);
      if (record) await finalize(record);
    };
    if (job.attempts > settings.maxAttempts) {
      const description = `Server Error: the job was interrupted ${job.attempts - 1} times`;
      return end(queue.fail(lease, { description, code: 'server_error' }));
    }
    const remaining = input.timeLimitMs - (Date.now() - (job.startedAt ?? Date.now()));
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort('time limit'), Math.max(0, remaining));
    const cancelled = new AbortController();
    local.set(job.id, cancelled);
    const stopped = AbortSignal.any([signal, cancelled.signal]);
    const runSignal = AbortSignal.any([stopped, limit.signal]);
    try {
      const steps: unknown[] = [];
      const outcome = await runWithRetries(job, input, lease, runSignal, steps);
      if (stopped.aborted) return;
      const creditsUsed = Math.max(0, Math.min(Math.floor(outcome.creditsUsed), input.reserved));
      // The steps reported on the way stay with the result unless the runner returned its own.
      const result =
        outcome.result.steps || steps.length === 0 ? outcome.result : { ...outcome.result, steps };
      return await end(queue.complete(lease, { result, creditsUsed }));
    } catch (thrown) {
      // Cancelled, taken over by another worker, or stopping: not this run's to end.
      if (stopped.aborted) return;
      const error = toCitewiseError(thrown);
      const description = limit.signal.aborted
        ? `Research time limit passed (${input.timeLimitMs} ms)`
        : error.description;
      if (!limit.signal.aborted && error.status >= 500) deps.onError(error, 'run', job.id);
      return await end(
        queue.fail(lease, { description, code: limit.signal.aborted ? 'timeout' : error.code }),
      );
    } finally {
      clearTimeout(timer);
      local.delete(job.id);
    }
  }

  async function runWithRetries(
    job: JobRecord,
    input: ResearchJobInput,
    lease: ClaimedJob['lease'],
    signal: AbortSignal,
    steps: unknown[],
  ) {
    for (let attempt = 0; ; attempt++) {
      steps.length = 0;
      try {
        return await deps.run(input.request, {
          signal,
          requestId: `${job.id}:${job.attempts}${attempt ? `:${attempt}` : ''}`,
          account: job.account,
          keyId: job.keyId,
          onStep: async (step) => {
            steps.push(step);
            await queue.appendEvent(lease, 'step', step);
            notify(job.id);
          },
        });
      } catch (thrown) {
        const pause = OVERLOAD_RETRY_MS[attempt];
        if (signal.aborted || pause === undefined || toCitewiseError(thrown).status !== 503) throw thrown;
        await sleep(pause, undefined, { signal });
      }
    }
  }

  function start(): void {
    if (workers || settings.workers === 0 || closing.signal.aborted) return;
    workers = startJobWorkers({
      queue,
      concurrency: settings.workers,
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
      maxRunningPerAccount: settings.maxRunningPerAccount,
      run: runJob,
      idle: sweep,
      onError: (error, context) => deps.onError(error, context),
    });
  }

  /** Waits until the job may have new events: one was written here, or `eventPollMs` passed. */
  function changed(id: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        changes.off(id, done);
        signal?.removeEventListener('abort', done);
        closing.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, settings.eventPollMs);
      changes.on(id, done);
      signal?.addEventListener('abort', done, { once: true });
      closing.signal.addEventListener('abort', done, { once: true });
    });
  }

  async function* follow(job: JobRecord, after: number, signal?: AbortSignal): AsyncGenerator<ResearchEvent> {
    let last = after;
    while (!signal?.aborted && !closing.signal.aborted) {
      const batch = await queue.events(job.id, { after: last });
      for (const event of batch) {
        last = event.id;
        if (isTerminal(event.type as JobStatus)) {
          yield { id: event.id, event: event.type, data: viewOf((await queue.get(job.id)) ?? job) };
          return;
        }
        yield { id: event.id, event: event.type, data: event.data };
      }
      if (batch.length === MAX_EVENTS_READ) continue;
      // Nothing new: a job that ended before `after` has nothing more to say.
      if (batch.length === 0 && isTerminal((await queue.get(job.id))?.status ?? 'cancelled')) return;
      await changed(job.id, signal);
    }
  }

  return {
    async create(key, body, idempotencyKey) {
      const request = parseResearchRequest(body);
      if (request.output_schema !== undefined && !deps.structuredOutput) {
        const description = 'Invalid request: output_schema needs a model (start the service with --model)';
        throw new CitewiseError('invalid_request', description, { description });
      }
      // The search the job will run must be valid too (and priced): refused now rather than failing later.
      const reserved = deps.price(parseSearchRequest(searchRequestOf(request, JOBS_DEFAULTS.searchDepth)));
      if (request.webhook) {
        if (!webhooks) {
          const description =
            'Invalid request: webhook needs a signing secret, and this service has none (--webhook-secret)';
          throw new CitewiseError('invalid_request', description, { description });
        }
        await webhooks.check(request.webhook.url);
      }
      const fingerprint = fingerprintBody(body);
      const replay = async (job: JobRecord) => {
        if (job.fingerprint !== null && job.fingerprint !== fingerprint) {
          throw new CitewiseError('idempotency_mismatch');
        }
        return { job: await view(job), created: false };
      };
      if (idempotencyKey !== undefined) {
        const existing = await queue.findByIdempotencyKey(key.accountId, idempotencyKey);
        if (existing) return replay(existing);
      }
      const id = `res_${randomBytes(12).toString('hex')}`;
      await credits.hold({
        account: key.accountId,
        id: reservationOf(id),
        amount: reserved,
        ttlMs: JOBS_DEFAULTS.reservationTtlMs,
      });
      const input: ResearchJobInput = {
        request,
        reserved,
        timeLimitMs: request.time_limit_ms ?? settings.timeLimitMs,
      };
      let enqueued: { job: JobRecord; created: boolean };
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
      const status = query.status;
      if (status !== undefined && !JOB_STATUSES.includes(status as JobStatus)) {
        throw invalid(`status must be one of ${JOB_STATUSES.join(', ')}`);
      }
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
        throw invalid(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
      }
      if (query.cursor !== undefined && (query.cursor.length > 1_000 || !decodeCursor(query.cursor))) {
        throw invalid('cursor is not one this service returned');
      }
      const page = await queue.list({
        account: key.accountId,
        limit,
        ...(status ? { status: status as JobStatus } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
      return {
        data: page.jobs.map((job) => viewOf(job)),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    },

    async events(key, id, options = {}) {
      const job = await owned(key, id);
      return follow(job, options.after ?? BEFORE_FIRST_EVENT, options.signal);
    },

    async cancel(key, id) {
      const job = await owned(key, id);
      if (isTerminal(job.status)) return view(job);
      const cancelled = (await queue.cancel(job.id)) ?? job;
      local.get(job.id)?.abort('cancelled' satisfies AbortCause);
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
      await Promise.all([...finalizing]);
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
