/**
 * One file of a folder build read into an analysed document ({@link readFileTask}): the work the build's
 * read workers do (`read-worker.ts`), or the calling thread when there are none (`read-files.ts`).
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { DocumentInput } from '../documents/analyze.ts';
import { analyzeForIndex, type DocumentAnalysis } from '../documents/common.ts';
import { readDocumentFile, type FileReadResult } from '../pipeline/extract/read-file.ts';

/** One file to read. */
export interface ReadFileTask {
  readonly file: string;
  /** The document's URL. */
  readonly url: string;
  readonly maxFileBytes: number;
  /** The file's size, when known (the file was `stat`ed already); otherwise it is `stat`ed first. */
  readonly size?: number;
}

/**
 * A file read: its document with the document's analysis, or why there is none; `version` (see
 * {@link fileVersionOf}) when the file was `stat`ed here (no `size` given).
 */
export type ReadFileTaskResult = (
  | { readonly document: DocumentInput; readonly analysis: DocumentAnalysis }
  | Extract<FileReadResult, { skip: unknown }>
) & { readonly version?: string };

/** `mtimeMs:size`, the version of a file an unchanged file is recognised by. */
export function fileVersionOf(info: { readonly mtimeMs: number; readonly size: number }): string {
  return `${Math.floor(info.mtimeMs)}:${info.size}`;
}

/**
 * Reads and analyses one file. `sync`: with blocking calls, cheaper in a worker thread where nothing else
 * waits. Rejects when the file cannot be read at all.
 */
export async function readFileTask(task: ReadFileTask, sync: boolean): Promise<ReadFileTaskResult> {
  let size = task.size;
  let version: string | undefined;
  if (size === undefined) {
    const info = sync ? statSync(task.file) : await stat(task.file);
    size = info.size;
    version = fileVersionOf(info);
  }
  const read = await readDocumentFile(task.file, task.url, { maxFileBytes: task.maxFileBytes, size, sync });
  const result = 'skip' in read ? read : { ...read, analysis: analyzeForIndex(read.document) };
  return version === undefined ? result : { ...result, version };
}
