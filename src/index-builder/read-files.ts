/**
 * Reading many files into documents at once, for `citewise index` on a folder: each file is read
 * ({@link readDocumentFile}) and analysed for indexing ({@link analyzeForIndex}: sections, hash, terms) on
 * worker threads, so that a build uses the machine's other cores while its main thread writes the index.
 * Files go to the workers in batches ({@link DOCUMENT_READER_DEFAULTS}): one message per batch, and each
 * worker holds its next batches already (`read-pool.ts`), so it has work left while the main thread is
 * busy writing and committing. With no workers the same steps run in
 * the calling thread, one file at a time.
 */
import { createReadPool } from './read-pool.ts';
import { readFileTask, type ReadFileTask, type ReadFileTaskResult } from './read-task.ts';

export type { ReadFileTask, ReadFileTaskResult } from './read-task.ts';

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './read-worker.ts' : './read-worker.js',
  import.meta.url,
);

/** Defaults of {@link createDocumentFileReader}. */
export const DOCUMENT_READER_DEFAULTS = {
  /** Files one message to a worker reads (fewer messages, and work queued while the main thread writes). */
  batchSize: 64,
  /**
   * Batches in flight per worker: one being read, the others posted to it already, so that it reads on
   * through the main thread's longest write (a commit).
   */
  batchesPerWorker: 8,
} as const;

/** What a worker sends back for one file of a batch. */
export type ReadBatchOutcome = { readonly read: ReadFileTaskResult } | { readonly error: string };

/** Reads files into analysed documents; see the module comment. */
export interface DocumentFileReader {
  /**
   * Reads the files, one promise per file in the same order; a promise rejects when its file cannot be
   * read at all.
   */
  read(tasks: readonly ReadFileTask[]): Promise<ReadFileTaskResult>[];
  /** Files to keep asked for at once: enough to keep every worker busy (1 without workers). */
  readonly parallel: number;
  /** Files worth asking for together ({@link DocumentFileReader.read}): a batch (1 without workers). */
  readonly batchSize: number;
  close(): Promise<void>;
}

/** A reader with `workers` worker threads (`0`: files are read in the calling thread). */
export function createDocumentFileReader(workers: number): DocumentFileReader {
  if (!Number.isInteger(workers) || workers < 0) throw new RangeError('workers must be an integer >= 0');
  if (workers === 0)
    return {
      read: (tasks) => tasks.map((task) => readFileTask(task, false)),
      parallel: 1,
      batchSize: 1,
      close: async () => {},
    };
  const { batchSize, batchesPerWorker } = DOCUMENT_READER_DEFAULTS;
  const pool = createReadPool<readonly ReadFileTask[], ReadBatchOutcome[]>(WORKER_URL, workers);
  return {
    read(tasks) {
      const batch = pool.run(tasks);
      return tasks.map(async (_, i) => {
        const outcome = (await batch)[i]!;
        if ('error' in outcome) throw new Error(outcome.error);
        const { read } = outcome;
        if ('skip' in read) return read;
        // The worker sent the content once, in the document (see read-worker.ts).
        const document = { ...read.analysis.document, content: read.document.content };
        return { ...read, analysis: { ...read.analysis, document } };
      });
    },
    parallel: workers * batchSize * batchesPerWorker,
    batchSize,
    close: () => pool.close(),
  };
}
