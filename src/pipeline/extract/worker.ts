/** Worker-thread entry: runs `extractContent` for the pool. Loaded as `.ts` through Node's type stripping. */
import { serveWorkerTasks } from '../../scheduling/worker-tasks.ts';
import { extractContent, type ExtractContentOptions } from './extract.ts';

/** Message sent by the pool. */
export interface ExtractTaskPayload {
  readonly input: string | Uint8Array;
  readonly options: ExtractContentOptions;
}

serveWorkerTasks((payload: ExtractTaskPayload) => extractContent(payload.input, payload.options));
