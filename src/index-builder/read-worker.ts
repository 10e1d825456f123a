/**
 * Worker-thread entry of the build's file reader (`read-files.ts`): reads a batch of files into documents
 * and analyses them for indexing (sections, hash, terms), so that a build reads and tokenizes files on the
 * other cores while its main thread writes the index. Loaded as `.ts` through Node's type stripping, or as
 * the built `.js`.
 */
import { serveWorkerTasks } from '../scheduling/worker-tasks.ts';
import { readFileTask, type ReadFileTask } from './read-task.ts';
import type { ReadBatchOutcome } from './read-files.ts';

serveWorkerTasks(async (tasks: readonly ReadFileTask[]): Promise<ReadBatchOutcome[]> => {
  const outcomes: ReadBatchOutcome[] = [];
  // One file after the other, with blocking reads: the thread has nothing else to do meanwhile.
  for (const task of tasks) {
    try {
      const read = await readFileTask(task, true);
      if ('skip' in read) outcomes.push({ read });
      else {
        // The content is sent once: the analysed document's copy is put back by the reader.
        const { analysis } = read;
        outcomes.push({
          read: { ...read, analysis: { ...analysis, document: { ...analysis.document, content: '' } } },
        });
      }
    } catch (error) {
      outcomes.push({ error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcomes;
});
