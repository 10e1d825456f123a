/**
 * The worker threads of a folder build's file reader (`read-files.ts`): each worker is handed its next
 * batches at once, not when it answers the one before. The build's main thread writes the index in long
 * synchronous stretches (a batch of puts, a commit); a pool that posts a worker's next task only when the
 * main thread has handled its last answer leaves the worker idle through every such stretch. Here a worker
 * holds up to `depth` batches and works through them in order (`serveWorkerTasks` answers its messages one
 * after the other), so both cores stay busy while the main thread writes.
 *
 * A worker that crashes or exits rejects the batches it holds and is replaced by the next batch posted.
 */
import { Worker } from 'node:worker_threads';

/** Batches posted to a worker and not answered yet, by task id. */
interface PooledWorker<Result> {
  readonly worker: Worker;
  readonly waiting: Map<number, { resolve(result: Result): void; reject(error: Error): void }>;
}

type Reply<Result> =
  | { readonly ready: true }
  | { readonly id: number; readonly result: Result }
  | { readonly id: number; readonly error: { readonly message: string } };

/** Worker threads that each take batches ahead of the one they run; see the module comment. */
export interface ReadPool<Payload, Result> {
  /** Posts a batch to the worker holding the fewest; resolves with its answer. */
  run(payload: Payload): Promise<Result>;
  /** Rejects the batches held and terminates the workers. */
  close(): Promise<void>;
}

/** Starts `size` workers running `workerUrl` (a module answering through `serveWorkerTasks`). */
export function createReadPool<Payload, Result>(workerUrl: URL, size: number): ReadPool<Payload, Result> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be an integer >= 1');
  const workers: PooledWorker<Result>[] = [];
  let nextId = 1;
  let closed = false;

  /** Rejects what a worker held and takes it out of the pool. */
  const fail = (pooled: PooledWorker<Result>, error: Error): void => {
    const at = workers.indexOf(pooled);
    if (at !== -1) workers.splice(at, 1);
    pooled.worker.removeAllListeners('message');
    for (const task of pooled.waiting.values()) task.reject(error);
    pooled.waiting.clear();
    void pooled.worker.terminate();
  };

  const spawn = (): PooledWorker<Result> => {
    const pooled: PooledWorker<Result> = { worker: new Worker(workerUrl), waiting: new Map() };
    pooled.worker.on('message', (reply: Reply<Result>) => {
      if ('ready' in reply) return;
      const task = pooled.waiting.get(reply.id);
      if (task === undefined) return;
      pooled.waiting.delete(reply.id);
      // An idle pool must not keep the process alive.
      if (pooled.waiting.size === 0) pooled.worker.unref();
      if ('error' in reply) task.reject(new Error(reply.error.message));
      else task.resolve(reply.result);
    });
    pooled.worker.on('error', (error: Error) =>
      fail(pooled, new Error(`read worker crashed: ${error.message}`, { cause: error })),
    );
    pooled.worker.on('exit', (code) => fail(pooled, new Error(`read worker exited with code ${code}`)));
    pooled.worker.unref();
    workers.push(pooled);
    return pooled;
  };

  return {
    run(payload) {
      if (closed) return Promise.reject(new Error('the read pool is closed'));
      let pooled = workers.length < size ? spawn() : workers[0]!;
      for (const candidate of workers) if (candidate.waiting.size < pooled.waiting.size) pooled = candidate;
      const id = nextId++;
      return new Promise<Result>((resolve, reject) => {
        pooled.waiting.set(id, { resolve, reject });
        pooled.worker.ref();
        pooled.worker.postMessage({ id, payload });
      });
    },
    async close() {
      closed = true;
      const all = workers.splice(0);
      for (const pooled of all) {
        pooled.worker.removeAllListeners('exit');
        for (const task of pooled.waiting.values()) task.reject(new Error('the read pool is closed'));
        pooled.waiting.clear();
      }
      await Promise.all(all.map((pooled) => pooled.worker.terminate()));
    },
  };
}
