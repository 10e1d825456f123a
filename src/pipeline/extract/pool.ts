/**
 * A small worker-thread pool with a bounded queue. A task that is aborted while running terminates its
 * worker (the only way to stop synchronous parsing); a worker that crashes rejects its task; both are replaced.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { CitewiseError } from '../../errors.ts';

/** Options of {@link createWorkerPool}. */
export interface WorkerPoolOptions {
  /** Module run by each worker; it answers `{ id, payload }` messages with `{ id, result }` or `{ id, error }`. */
  readonly workerUrl: URL;
  /** Number of worker threads. @default Math.min(2, availableParallelism()) */
  readonly size?: number;
  /** Tasks allowed to wait for a free worker; more are rejected with `service_unavailable`. @default 256 */
  readonly maxQueue?: number;
}

/** A pool of worker threads running one task each at a time. */
export interface WorkerPool<Payload, Result> {
  /** Runs a task on a free worker. Rejects with the signal's reason when aborted. */
  run(payload: Payload, options?: { readonly signal?: AbortSignal }): Promise<Result>;
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

interface Task<Payload, Result> {
  readonly id: number;
  readonly payload: Payload;
  readonly signal: AbortSignal | undefined;
  resolve(result: Result): void;
  reject(error: unknown): void;
  onAbort?: () => void;
}

interface Slot<Payload, Result> {
  worker: Worker;
  task: Task<Payload, Result> | undefined;
}

type WorkerReply<Result> =
  | { readonly id: number; readonly result: Result }
  | { readonly id: number; readonly error: { readonly message: string; readonly name?: string } };

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'This operation was aborted', 'AbortError');
}

/** Defaults of {@link WorkerPoolOptions}. */
export const POOL_DEFAULTS = { maxQueue: 256 } as const;

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

  const slots: Slot<Payload, Result>[] = [];
  const queue: Task<Payload, Result>[] = [];
  let nextId = 1;
  let closed = false;

  const settle = (task: Task<Payload, Result>): void => {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
  };

  const spawn = (): Slot<Payload, Result> => {
    const slot: Slot<Payload, Result> = { worker: new Worker(options.workerUrl), task: undefined };
    const fail = (error: Error): void => {
      const task = slot.task;
      slot.task = undefined;
      replace(slot);
      if (task) {
        settle(task);
        task.reject(error);
      }
    };
    slot.worker.on('message', (reply: WorkerReply<Result>) => {
      const task = slot.task;
      if (!task || task.id !== reply.id) return;
      slot.task = undefined;
      settle(task);
      if ('error' in reply) {
        task.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name ?? 'Error' }));
      } else {
        task.resolve(reply.result);
      }
      dispatch();
    });
    slot.worker.on('error', (error: Error) =>
      fail(new Error(`extraction worker crashed: ${error.message}`, { cause: error })),
    );
    slot.worker.on('exit', (code) => {
      if (slots.includes(slot)) fail(new Error(`extraction worker exited with code ${code}`));
    });
    // An idle pool must not keep the process alive.
    slot.worker.unref();
    return slot;
  };

  const replace = (slot: Slot<Payload, Result>): void => {
    const index = slots.indexOf(slot);
    if (index === -1) return;
    slots.splice(index, 1);
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate();
    // The replacement is spawned by dispatch() when work arrives, so a worker module that fails to load
    // rejects each task once instead of respawning in a loop.
    queueMicrotask(dispatch);
  };

  const dispatch = (): void => {
    if (closed) return;
    while (queue.length > 0) {
      let slot = slots.find((candidate) => candidate.task === undefined);
      if (!slot && slots.length < size) {
        slot = spawn();
        slots.push(slot);
      }
      if (!slot) return;
      const task = queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage({ id: task.id, payload: task.payload });
    }
    for (const slot of slots) if (!slot.task) slot.worker.unref();
  };

  const pool: WorkerPool<Payload, Result> = {
    run(payload, runOptions = {}) {
      const { signal } = runOptions;
      if (closed) return Promise.reject(new Error('worker pool is closed'));
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (queue.length >= maxQueue && !slots.some((slot) => !slot.task) && slots.length >= size) {
        return Promise.reject(new CitewiseError('service_unavailable', 'extraction queue is full'));
      }
      return new Promise<Result>((resolve, reject) => {
        const task: Task<Payload, Result> = { id: nextId++, payload, signal, resolve, reject };
        if (signal) {
          task.onAbort = () => {
            const queued = queue.indexOf(task);
            if (queued !== -1) queue.splice(queued, 1);
            const slot = slots.find((candidate) => candidate.task === task);
            if (slot) {
              // Parsing is synchronous inside the worker: terminating it is the only way to stop it.
              slot.task = undefined;
              replace(slot);
            }
            settle(task);
            reject(abortReason(signal));
          };
          signal.addEventListener('abort', task.onAbort, { once: true });
        }
        queue.push(task);
        dispatch();
      });
    },
    async warm(payload) {
      // Tasks posted together cannot finish in between, so dispatch() gives each one its own worker.
      const tasks = Array.from({ length: size }, () => pool.run(payload).catch(() => undefined));
      await Promise.all(tasks);
    },
    get stats() {
      return {
        running: slots.filter((slot) => slot.task).length,
        queued: queue.length,
        workers: slots.length,
      };
    },
    async close() {
      closed = true;
      for (const task of queue.splice(0)) {
        settle(task);
        task.reject(new Error('worker pool closed'));
      }
      const running = slots.splice(0);
      for (const slot of running) {
        if (slot.task) {
          settle(slot.task);
          slot.task.reject(new Error('worker pool closed'));
        }
      }
      await Promise.all(running.map((slot) => slot.worker.terminate()));
    },
  };
  return pool;
}
