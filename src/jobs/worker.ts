/**
 * Workers: `n` loops that claim jobs from a {@link JobQueue} and run them, renewing each lease every third of
 * it. A heartbeat that finds the job cancelled or taken over aborts the run. An idle loop waits `pollMs`
 * (or less: {@link JobWorkers.wake} ends the wait when this process queued a job).
 */
import { hostname } from 'node:os';
import type { ClaimedJob, JobQueue } from '../stores/job-queue.ts';

/** Why a run was aborted (the `reason` of its signal). */
export type AbortCause = 'cancelled' | 'lost' | 'stopped';

/** Options of {@link startJobWorkers}: workers of a queue of jobs of `Input`, returning `Result`. */
export interface JobWorkersOptions<Input = unknown, Result = unknown> {
  readonly queue: JobQueue<Input, Result>;
  /** Loops running at once. */
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxRunningPerAccount?: number;
  /**
   * Runs one claimed job to its end (completing or failing it). `signal` is aborted with an
   * {@link AbortCause} as reason when the job was cancelled, taken over or the workers stop.
   */
  run(claimed: ClaimedJob<Input, Result>, signal: AbortSignal): Promise<void>;
  /** Work of every pass of an idle loop (e.g. finalizing jobs a dead worker left). */
  idle?(): Promise<void>;
  /** Called with what failed outside a run (the backend did not answer). */
  onError(error: unknown, context: string): void;
}

/** Running workers. */
export interface JobWorkers {
  /** Ends the idle waits now (a job was queued here). */
  wake(): void;
  /** Jobs running now. */
  readonly running: number;
  /** Stops claiming, aborts the running jobs (their leases lapse; another worker restarts them). */
  stop(): Promise<void>;
}

/** Starts the workers. */
export function startJobWorkers<Input, Result>(options: JobWorkersOptions<Input, Result>): JobWorkers {
  const { queue, leaseMs } = options;
  const stopping = new AbortController();
  const wakers = new Set<() => void>();
  let running = 0;
  const base = `${hostname()}:${process.pid}`;

  const idleWait = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, options.pollMs);
      wakers.add(done);
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  async function runClaimed(claimed: ClaimedJob<Input, Result>): Promise<void> {
    const controller = new AbortController();
    const stop = () => controller.abort('stopped' satisfies AbortCause);
    stopping.signal.addEventListener('abort', stop, { once: true });
    const beat = setInterval(
      () => {
        queue.heartbeat(claimed.lease, leaseMs).then(
          (state) => {
            if (state !== 'ok') controller.abort(state satisfies AbortCause);
          },
          (error: unknown) => options.onError(error, 'heartbeat'),
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    running++;
    try {
      await options.run(claimed, controller.signal);
    } finally {
      running--;
      clearInterval(beat);
      stopping.signal.removeEventListener('abort', stop);
    }
  }

  async function loop(slot: number): Promise<void> {
    const workerId = `${base}:${slot}`;
    while (!stopping.signal.aborted) {
      let claimed: ClaimedJob<Input, Result> | null = null;
      try {
        claimed = await queue.claim({
          workerId,
          leaseMs,
          ...(options.maxRunningPerAccount ? { maxRunningPerAccount: options.maxRunningPerAccount } : {}),
        });
      } catch (error) {
        options.onError(error, 'claim');
      }
      if (stopping.signal.aborted) break;
      if (claimed) {
        await runClaimed(claimed).catch((error: unknown) => options.onError(error, 'run'));
        continue;
      }
      await options.idle?.().catch((error: unknown) => options.onError(error, 'idle'));
      await idleWait();
    }
  }

  const loops = Array.from({ length: options.concurrency }, (_, slot) => loop(slot));
  return {
    wake() {
      for (const wake of [...wakers]) wake();
    },
    get running() {
      return running;
    },
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
