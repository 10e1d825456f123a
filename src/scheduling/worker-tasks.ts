/**
 * The worker-thread side of a task pool: answers each `{ id, payload }` message with `{ id, result }` or
 * `{ id, error: { message, name } }`, and says `{ ready: true }` once loaded (a pool starts a task's time
 * limit from there, not from the worker's start-up).
 */
import { parentPort } from 'node:worker_threads';

/** Runs `handle` for every task the pool posts to this worker thread. */
export function serveWorkerTasks<Payload, Result>(handle: (payload: Payload) => Promise<Result>): void {
  parentPort?.on('message', (message: { id: number; payload: Payload }) => {
    handle(message.payload).then(
      (result) => parentPort?.postMessage({ id: message.id, result }),
      (error: unknown) =>
        parentPort?.postMessage({
          id: message.id,
          error: {
            message: error instanceof Error ? error.message : String(error),
            name: error instanceof Error ? error.name : 'Error',
          },
        }),
    );
  });
  parentPort?.postMessage({ ready: true });
}
