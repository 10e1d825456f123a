/**
 * Reading many files into documents at once, for `citewise index` on a folder: each file is read
 * ({@link readDocumentFile}) and analysed for indexing ({@link analyzeForIndex}: sections, hash, terms) on
 * worker threads, so that a build uses the machine's other cores while its main thread writes the index.
 * With no workers the same two steps run in the calling thread.
 */
import { analyzeForIndex, type DocumentAnalysis } from '../documents/common.ts';
import { readDocumentFile, type FileReadResult } from '../pipeline/extract/read-file.ts';
import { createWorkerPool, type WorkerPool } from '../scheduling/worker-pool.ts';
import type { DocumentInput } from '../documents/analyze.ts';

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './read-worker.ts' : './read-worker.js',
  import.meta.url,
);

/** One file to read. */
export interface ReadFileTask {
  readonly file: string;
  /** The document's URL. */
  readonly url: string;
  readonly maxFileBytes: number;
  /** The file's size, when known (saves a `stat`). */
  readonly size?: number;
}

/** A file read: its document with the document's analysis, or why there is none. */
export type ReadFileTaskResult =
  | { readonly document: DocumentInput; readonly analysis: DocumentAnalysis }
  | Extract<FileReadResult, { skip: unknown }>;

/** Reads files into analysed documents; see the module comment. */
export interface DocumentFileReader {
  /** Rejects when the file cannot be read at all. */
  read(task: ReadFileTask): Promise<ReadFileTaskResult>;
  /** Files read at once: enough to keep every worker busy (1 without workers). */
  readonly parallel: number;
  close(): Promise<void>;
}

async function readInThread(task: ReadFileTask): Promise<ReadFileTaskResult> {
  const read = await readDocumentFile(task.file, task.url, {
    maxFileBytes: task.maxFileBytes,
    ...(task.size === undefined ? {} : { size: task.size }),
  });
  return 'skip' in read ? read : { ...read, analysis: analyzeForIndex(read.document) };
}

/** A reader with `workers` worker threads (`0`: files are read in the calling thread). */
export function createDocumentFileReader(workers: number): DocumentFileReader {
  if (!Number.isInteger(workers) || workers < 0) throw new RangeError('workers must be an integer >= 0');
  if (workers === 0) return { read: readInThread, parallel: 1, close: async () => {} };
  const parallel = workers * 8;
  const pool: WorkerPool<ReadFileTask, ReadFileTaskResult> = createWorkerPool({
    workerUrl: WORKER_URL,
    size: workers,
    maxQueue: parallel,
    maxAccountShare: 1,
    signalsReady: true,
  });
  return {
    async read(task) {
      const read = await pool.run(task);
      if ('skip' in read) return read;
      // The worker sent the content once, in the document (see read-worker.ts).
      const document = { ...read.analysis.document, content: read.document.content };
      return { ...read, analysis: { ...read.analysis, document } };
    },
    parallel,
    close: () => pool.close(),
  };
}
