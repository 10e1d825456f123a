/**
 * Worker-thread entry of `readDocumentFiles`: reads a file into a document and analyses it for indexing
 * (sections, hash, terms), so that a build reads and tokenizes files on the other cores while its main
 * thread writes the index. Loaded as `.ts` through Node's type stripping, or as the built `.js`.
 */
import { parentPort } from 'node:worker_threads';
import { analyzeForIndex } from './common.ts';
import { readDocumentFile } from './read-file.ts';
import type { ReadFileTask, ReadFileTaskResult } from './read-files.ts';

parentPort?.on('message', (message: { id: number; payload: ReadFileTask }) => {
  const { file, url, maxFileBytes, size } = message.payload;
  readDocumentFile(file, url, { maxFileBytes, size })
    .then((read): ReadFileTaskResult => {
      if ('skip' in read) return read;
      // The content is sent once: the analysed document's copy is put back by the reader.
      const analysis = analyzeForIndex(read.document);
      return { ...read, analysis: { ...analysis, document: { ...analysis.document, content: '' } } };
    })
    .then(
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
