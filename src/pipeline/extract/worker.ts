/** Worker-thread entry: runs `extractContent` for the pool. Loaded as `.ts` through Node's type stripping. */
import { parentPort } from 'node:worker_threads';
import { extractContent, type ExtractContentOptions } from './extract.ts';

/** Message sent by the pool. */
export interface ExtractTaskPayload {
  readonly input: string | Uint8Array;
  readonly options: ExtractContentOptions;
}

parentPort?.on('message', (message: { id: number; payload: ExtractTaskPayload }) => {
  extractContent(message.payload.input, message.payload.options).then(
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

// Loaded: the pool starts a page's time limit from here, not from the worker's start-up.
parentPort?.postMessage({ ready: true });
