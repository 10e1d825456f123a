/**
 * A small worker-thread pool shared fairly between accounts. Waiting tasks are handed to free workers by
 * the same fair scheduler as searches (fair-scheduler.ts): one account holds at most a share of the
 * workers and of the queue, and a freed worker goes to the account running the fewest tasks, so a tenant
 * that floods the pool waits behind its own tasks. A task's time limit starts when it starts on a worker,
 * not while it waits. Each worker runs under a memory limit; a task that is aborted, times out or passes
 * the limit terminates its worker (the only way to stop synchronous parsing), and a worker that crashes
 * rejects its task: only that task fails, and the worker is replaced.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { CitewiseError } from '../errors.ts';
import { createFairScheduler } from './fair-scheduler.ts';

/** Options of {@link createWorkerPool}. */
export interface WorkerPoolOptions {
  /** Module run by each worker; it answers `{ id, payload }` messages with `{ id, result }` or `{ id, error }`. */
  readonly workerUrl: URL;
  /** Number of worker threads. @default Math.min(2, availableParallelism()) */
  readonly size?: number;
  /** Tasks allowed to wait for a free worker; more are rejected with `service_unavailable`. @default 256 */
  readonly maxQueue?: number;
  /**
   * Largest share (0–1] of the workers, and of the waiting tasks, that one account may hold; at least one
   * each. 1 lets one account use every worker. Tasks without an account are each their own.
   * @default 0.5
   */
  readonly maxAccountShare?: number;
  /**
   * Time limit of one task in ms, counted from when it starts on a worker (waiting for a worker does not
   * count). Past it the worker is terminated and the task rejects with a `timeout` {@link CitewiseError}.
   * @default none
   */
  readonly taskTimeoutMs?: number;
  /**
   * Most memory of one worker, in MiB: its V8 heap limit (`resourceLimits.maxOldGenerationSizeMb`) and,
   * checked every 100 ms while a task runs, its heap plus external memory (buffers, which the heap limit
   * does not count). Past it the worker is terminated and replaced; only its task fails.
   * @default none
   */
  readonly maxWorkerMemoryMb?: number;
  /**
   * The worker module posts `{ ready: true }` once its modules are loaded: a task's time limit then starts
   * when its worker is ready, so a replacement worker's start-up does not count against its first task.
   * @default false (the limit starts when the task is posted)
   */
  readonly signalsReady?: boolean;
}

/** Options of one {@link WorkerPool.run}. */
export interface WorkerTaskOptions {
  /** Rejects the task (terminating its worker if it runs) when aborted. */
  readonly signal?: AbortSignal;
  /** Who the task is for: the pool is shared fairly between accounts. @default the task is on its own */
  readonly account?: string;
}

/** A pool of worker threads running one task each at a time. */
export interface WorkerPool<Payload, Result> {
  /** Runs a task on a free worker. Rejects with the signal's reason when aborted. */
  run(payload: Payload, options?: WorkerTaskOptions): Promise<Result>;
  /**
   * Starts every worker and runs `payload` once on each, so that the workers' modules are loaded before
   * real work arrives. Resolves when all have answered (a task error counts as answered).
   */
  warm(payload: Payload): Promise<void>;
  /** Tasks running and waiting. */
  readonly stats: { readonly running: number; readonly queued: number; readonly workers: number };
  /** Rejects waiting tasks and terminates the workers. */
  close(): Promise<void>;
}

interface Task<Result> {
  readonly id: number;
  /** Starts the task's time limit (once its worker is ready). */
  startClock(): void;
  /** Settles the task once: clears its timer and abort listener. */
  finish(outcome: { readonly result: Result } | { readonly error: Error }): void;
}

interface Slot<Result> {
  worker: Worker;
  task: Task<Result> | undefined;
  /** The worker has loaded its modules (always true unless `signalsReady`). */
  ready: boolean;
}

type WorkerReply<Result> =
  | { readonly ready: true }
  | { readonly id: number; readonly result: Result }
  | { readonly id: number; readonly error: { readonly message: string; readonly name?: string } };

/** How often a running worker's memory is checked against `maxWorkerMemoryMb`. */
const MEMORY_CHECK_MS = 100;
const MIB = 1024 * 1024;

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'This operation was aborted', 'AbortError');
}

function optionalPositive(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isFinite(value) && value > 0))
    throw new RangeError(`createWorkerPool: ${name} must be a positive number`);
  return value;
}

/** Defaults of {@link WorkerPoolOptions}. */
export const POOL_DEFAULTS = { maxQueue: 256, maxAccountShare: 0.5 } as const;

/** Creates a worker pool. Throws TypeError/RangeError on bad options. */
export function createWorkerPool<Payload, Result>(options: WorkerPoolOptions): WorkerPool<Payload, Result> {
  if (!(options?.workerUrl instanceof URL)) throw new TypeError('createWorkerPool: workerUrl must be a URL');
  const size = options.size ?? Math.min(2, availableParallelism());
  const maxQueue = options.maxQueue ?? POOL_DEFAULTS.maxQueue;
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError('createWorkerPool: size must be an integer >= 1');
  if (!Number.isInteger(maxQueue) || maxQueue < 0) {
    throw new RangeError('createWorkerPool: maxQueue must be an integer >= 0');
  }
  const taskTimeoutMs = optionalPositive('taskTimeoutMs', options.taskTimeoutMs);
  const maxMemoryMb = optionalPositive('maxWorkerMemoryMb', options.maxWorkerMemoryMb);
  const scheduler = createFairScheduler({
    concurrency: size,
    maxQueued: maxQueue,
    maxAccountShare: options.maxAccountShare ?? POOL_DEFAULTS.maxAccountShare,
  });

  const slots: Slot<Result>[] = [];
  let nextId = 1;
  let closed = false;
  let memoryTimer: NodeJS.Timeout | undefined;

  const spawn = (): Slot<Result> => {
    const slot: Slot<Result> = {
      worker: new Worker(options.workerUrl, {
        ...(maxMemoryMb ? { resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } } : {}),
      }),
      task: undefined,
      ready: !options.signalsReady,
    };
    slot.worker.on('message', (reply: WorkerReply<Result>) => {
      const task = slot.task;
      if ('ready' in reply) {
        slot.ready = true;
        task?.startClock();
        return;
      }
      if (!task || task.id !== reply.id) return;
      slot.task = undefined;
      slot.worker.unref();
      if ('error' in reply) {
        const error = Object.assign(new Error(reply.error.message), { name: reply.error.name ?? 'Error' });
        task.finish({ error });
      } else {
        task.finish({ result: reply.result });
      }
    });
    slot.worker.on('error', (error: Error) =>
      stop(slot, new Error(`extraction worker crashed: ${error.message}`, { cause: error })),
    );
    slot.worker.on('exit', (code) => {
      if (slots.includes(slot)) stop(slot, new Error(`extraction worker exited with code ${code}`));
    });
    // An idle pool must not keep the process alive.
    slot.worker.unref();
    slots.push(slot);
    return slot;
  };

  /** Terminates a slot's worker (it is replaced when the next task starts) and fails its task, if any. */
  const stop = (slot: Slot<Result>, error: Error): void => {
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate();
    const task = slot.task;
    slot.task = undefined;
    task?.finish({ error });
  };

  /** Terminates the workers whose heap plus external memory passed the limit; runs while tasks run. */
  const watchMemory = (): void => {
    if (!maxMemoryMb || memoryTimer) return;
    memoryTimer = setInterval(() => {
      const busy = slots.filter((slot) => slot.task);
      if (busy.length === 0) {
        clearInterval(memoryTimer);
        memoryTimer = undefined;
        return;
      }
      for (const slot of busy) {
        const task = slot.task;
        // worker.getHeapStatistics(): Node ≥ 22.16 / 24; older versions rely on the heap limit alone.
        void slot.worker.getHeapStatistics?.().then(
          (stats) => {
            const used =
              stats.used_heap_size + ((stats as { external_memory?: number }).external_memory ?? 0);
            if (slot.task === task && used > maxMemoryMb * MIB) {
              stop(slot, new Error(`extraction worker used over ${maxMemoryMb} MiB`));
            }
          },
          () => {},
        );
      }
    }, MEMORY_CHECK_MS);
    memoryTimer.unref();
  };

  /** Runs a task on a free worker (the scheduler guarantees one is free or may be started). */
  const start = (payload: Payload, signal: AbortSignal | undefined): Promise<Result> =>
    new Promise<Result>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const slot = slots.find((candidate) => candidate.task === undefined) ?? spawn();
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => stop(slot, abortReason(signal!));
      const task: Task<Result> = {
        id: nextId++,
        startClock() {
          if (!taskTimeoutMs || timer) return;
          timer = setTimeout(
            () => stop(slot, new CitewiseError('timeout', `task took over ${taskTimeoutMs} ms`)),
            taskTimeoutMs,
          );
        },
        finish(outcome) {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if ('result' in outcome) resolve(outcome.result);
          else reject(outcome.error);
        },
      };
      slot.task = task;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (slot.ready) task.startClock();
      slot.worker.ref();
      slot.worker.postMessage({ id: task.id, payload });
      watchMemory();
    });

  const pool: WorkerPool<Payload, Result> = {
    async run(payload, runOptions = {}) {
      const { signal } = runOptions;
      if (closed) throw new Error('worker pool is closed');
      if (signal?.aborted) throw abortReason(signal);
      let release: () => void;
      try {
        release = await scheduler.acquire(
          runOptions.account ?? `\0task:${nextId++}`,
          signal ?? new AbortController().signal,
        );
      } catch (error) {
        if (closed) throw new Error('worker pool closed', { cause: error });
        if (error instanceof CitewiseError && error.code === 'service_unavailable') {
          throw new CitewiseError('service_unavailable', 'extraction queue is full', { cause: error });
        }
        throw error;
      }
      try {
        if (closed) throw new Error('worker pool closed');
        return await start(payload, signal);
      } finally {
        release();
      }
    },
    async warm(payload) {
      // Tasks of no account posted together each get their own worker.
      const tasks = Array.from({ length: size }, () => pool.run(payload).catch(() => undefined));
      await Promise.all(tasks);
    },
    get stats() {
      return {
        running: slots.filter((slot) => slot.task).length,
        queued: scheduler.waiting,
        workers: slots.length,
      };
    },
    async close() {
      closed = true;
      scheduler.close();
      clearInterval(memoryTimer);
      const running = slots.splice(0);
      for (const slot of running) {
        const task = slot.task;
        slot.task = undefined;
        task?.finish({ error: new Error('worker pool closed') });
      }
      await Promise.all(running.map((slot) => slot.worker.terminate()));
    },
  };
  return pool;
}
