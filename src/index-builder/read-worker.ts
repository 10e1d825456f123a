/**
 * Worker-thread entry of `readDocumentFiles`: reads a file into a document and analyses it for indexing
 * (sections, hash, terms), so that a build reads and tokenizes files on the other cores while its main
 * thread writes the index. Loaded as `.ts` through Node's type stripping, or as the built `.js`.
 */
import { serveWorkerTasks } from '../scheduling/worker-tasks.ts';
import { analyzeForIndex } from '../documents/common.ts';
import { readDocumentFile } from '../pipeline/extract/read-file.ts';
import type { ReadFileTask, ReadFileTaskResult } from './read-files.ts';

serveWorkerTasks(async ({ file, url, maxFileBytes, size }: ReadFileTask): Promise<ReadFileTaskResult> => {
  const read = await readDocumentFile(file, url, { maxFileBytes, size });
  if ('skip' in read) return read;
  // The content is sent once: the analysed document's copy is put back by the reader.
  const analysis = analyzeForIndex(read.document);
  return { ...read, analysis: { ...analysis, document: { ...analysis.document, content: '' } } };
});
