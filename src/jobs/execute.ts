/**
 * Running a claimed research job on a worker of this process: within the job's time limit, retrying a search
 * refused for overload, recording its steps as events, then completing or failing it and handing the ended
 * job to the finalizer. A job cancelled here is aborted at once (not at the next heartbeat).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { toCitewiseError } from '../errors.ts';
import type { ClaimedResearchJob, ResearchJobInput, ResearchJobQueue, ResearchJobRecord } from './records.ts';
import type { ResearchRunner } from './runner.ts';
import type { AbortCause } from './worker.ts';

/** Pauses before retrying a search refused for overload (503) within a job's time limit. */
const OVERLOAD_RETRY_MS = [1_000, 2_000, 4_000, 8_000];

/** What {@link createJobExecutor} works with. */
export interface JobExecutorDeps {
  readonly queue: ResearchJobQueue;
  readonly run: ResearchRunner;
  /** A job claimed more often than this (its workers died) fails. */
  readonly maxAttempts: number;
  /** Settles an ended job (see `createJobFinalizer`). */
  readonly finalize: (job: ResearchJobRecord) => Promise<void>;
  /** Says the job has new events. */
  readonly notify: (id: string) => void;
  readonly onError: (error: unknown, context: string, jobId?: string) => void;
}

/** Runs claimed jobs. */
export interface JobExecutor {
  /** Runs one claimed job to its end (the `run` of the job workers). */
  readonly run: (claimed: ClaimedResearchJob, signal: AbortSignal) => Promise<void>;
  /** Aborts the job if it runs on this process (it was cancelled). */
  readonly abortLocal: (id: string) => void;
}

/** Creates the job runner of the research service's workers. */
export function createJobExecutor(deps: JobExecutorDeps): JobExecutor {
  const { queue, notify } = deps;
  /** Jobs running on this process's workers: a cancel here aborts them at once, not at the next heartbeat. */
  const local = new Map<string, AbortController>();

  async function runJob(claimed: ClaimedResearchJob, signal: AbortSignal): Promise<void> {
    const { job, lease } = claimed;
    notify(job.id);
    const input = job.input;
    const end = async (ended: Promise<ResearchJobRecord | null>) => {
      const record = await ended;
      notify(job.id);
      if (record) await deps.finalize(record);
    };
    if (job.attempts > deps.maxAttempts) {
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
    job: ResearchJobRecord,
    input: ResearchJobInput,
    lease: ClaimedResearchJob['lease'],
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
          budget: input.reserved,
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

  return {
    run: runJob,
    abortLocal(id) {
      local.get(id)?.abort('cancelled' satisfies AbortCause);
    },
  };
}
