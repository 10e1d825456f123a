/**
 * Local sources: a folder (its document files, with files deleted since the last run removed) and a single
 * file, each read by `readDocumentFile` (as `--corpus` folders are). A file whose modification time and
 * size did not change is not read again.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FILE_TYPES, readDocumentFile } from '../pipeline/extract/read-file.ts';
import { createDocumentFileReader, type ReadFileTaskResult } from './read-files.ts';
import { fileVersionOf } from './read-task.ts';
import { listDocumentFiles } from '../pipeline/search/local-index.ts';
import { messageOf, type BuildRun } from './run.ts';

/** Reads one local file into the store (see {@link readDocumentFile}, shared with `--corpus`). */
export async function indexFile(run: BuildRun, file: string, source: string): Promise<'ok' | 'skipped'> {
  const { store } = run;
  const url = pathToFileURL(file).href;
  if (FILE_TYPES[path.extname(file).toLowerCase()] === undefined) {
    run.skip(url, 'unsupported_type', `extension ${path.extname(file) || '(none)'} is not indexed`);
    return 'skipped';
  }
  const info = await stat(file);
  // Unchanged since the last run (same modification time and size): not read again.
  const fileVersion = fileVersionOf(info);
  const record = await store.record(url);
  if (record?.fileVersion === fileVersion && record.source === source) {
    run.count('unchanged');
    return 'ok';
  }
  const read = await readDocumentFile(file, url, {
    maxFileBytes: run.settings.maxFileBytes,
    size: info.size,
  });
  if ('skip' in read) {
    run.skip(url, read.skip, read.message);
    return 'skipped';
  }
  run.count(await store.put(source, read.document, fileVersion));
  return 'ok';
}

/** Documents of a folder being written to the index at once. */
const WRITES_IN_FLIGHT = 8;

/** Files stat'ed at once while a folder is compared with the index. */
const STAT_BATCH = 256;

/**
 * The files of a folder that changed since the last run (new, or another modification time or size), with
 * their version and size. The index's versions (`known`) come from one listing; the files are stat'ed a
 * batch at a time.
 */
async function changedFiles(
  run: BuildRun,
  root: string,
  files: readonly string[],
  known: ReadonlyMap<string, string>,
): Promise<{ file: string; url: string; version: string; size: number }[]> {
  const changed: { file: string; url: string; version: string; size: number }[] = [];
  for (let start = 0; start < files.length; start += STAT_BATCH) {
    if (run.settings.signal.aborted) break;
    const batch = files.slice(start, start + STAT_BATCH);
    const stats = await Promise.all(
      batch.map((file) => stat(file).catch((error: unknown) => error as Error)),
    );
    batch.forEach((file, i) => {
      const url = pathToFileURL(file).href;
      const info = stats[i]!;
      if (info instanceof Error) run.skip(url, 'error', messageOf(info));
      else if (known.get(url) === fileVersionOf(info)) run.count('unchanged');
      else changed.push({ file, url, version: fileVersionOf(info), size: info.size });
    });
    run.progress({ source: root, done: start + batch.length, pending: files.length - start - batch.length });
  }
  return changed;
}

/** A file of a folder to read: its size and version when it was `stat`ed already. */
interface FileToRead {
  readonly file: string;
  readonly url: string;
  readonly version?: string;
  readonly size?: number;
}

/**
 * Reads the document files of a folder (within include/exclude); files deleted since leave the index.
 * Only the files that changed are read, on worker threads when there are many of them
 * (`maxReadWorkers`, `readWorkersFrom`), and written to the index in the folder's order. A folder the index
 * holds nothing of (a first build) is not `stat`ed first: every file is read, and `stat`ed where it is read.
 */
export async function indexFolder(run: BuildRun, root: string): Promise<void> {
  const { store, settings } = run;
  await run.remember(root, 'folder');
  const files = (await listDocumentFiles(root, (extension) => FILE_TYPES[extension] !== undefined)).filter(
    (file) => settings.filter(path.relative(root, file).split(path.sep).join('/')),
  );
  const known = await store.fileVersionsOf(root);
  const changed: FileToRead[] =
    known.size === 0
      ? files.map((file) => ({ file, url: pathToFileURL(file).href }))
      : await changedFiles(run, root, files, known);
  await readChangedFiles(run, root, files.length, changed);
  if (settings.signal.aborted) return;
  await removeDeletedFiles(run, root, files, known);
  run.progress({ source: root, done: files.length, pending: 0 });
}

/**
 * Reads `changed` (on worker threads when there are many) and puts them into the store in their order:
 * files are asked for a batch at a time, up to the reader's `parallel` ahead of the one being written.
 */
async function readChangedFiles(
  run: BuildRun,
  root: string,
  total: number,
  changed: readonly FileToRead[],
): Promise<void> {
  const { store, settings } = run;
  const reader = createDocumentFileReader(
    changed.length >= settings.readWorkersFrom ? settings.readWorkers : 0,
  );
  const writing = new Set<Promise<void>>();
  try {
    const reads: (Promise<ReadFileTaskResult> | undefined)[] = [];
    let asked = 0;
    const askUpTo = (end: number): void => {
      while (asked < Math.min(end, changed.length) && !settings.signal.aborted) {
        const batch = changed.slice(asked, asked + reader.batchSize);
        reader
          .read(
            batch.map(({ file, url, size }) => ({
              file,
              url,
              maxFileBytes: settings.maxFileBytes,
              ...(size === undefined ? {} : { size }),
            })),
          )
          .forEach((read, i) => {
            // Handled when its turn comes; a rejection must not be unhandled meanwhile.
            read.catch(() => {});
            reads[asked + i] = read;
          });
        asked += batch.length;
      }
    };
    for (const [i, { file, url, version }] of changed.entries()) {
      askUpTo(i + reader.parallel);
      if (settings.signal.aborted) return;
      run.progress({
        source: root,
        done: total - changed.length + i,
        pending: changed.length - i,
        current: file,
      });
      try {
        const read = await reads[i]!;
        reads[i] = undefined;
        if ('skip' in read) run.skip(url, read.skip, read.message);
        else {
          // Writes overlap (each is its own transaction on PostgreSQL; SQLite runs them one by one).
          const write: Promise<void> = store
            .put(root, read.document, version ?? read.version, read.analysis)
            .then(
              (result) => run.count(result),
              (error: unknown) => run.skip(url, 'error', messageOf(error)),
            );
          writing.add(write);
          void write.finally(() => writing.delete(write));
          if (writing.size >= WRITES_IN_FLIGHT) await Promise.race(writing);
        }
      } catch (error) {
        reads[i] = undefined;
        run.skip(url, 'error', messageOf(error));
      }
      await run.checkpoint();
    }
  } finally {
    await Promise.all(writing);
    await reader.close();
  }
}

/** Files deleted since the last run (within the include/exclude scope) leave the index. */
async function removeDeletedFiles(
  run: BuildRun,
  root: string,
  files: readonly string[],
  known: ReadonlyMap<string, string>,
): Promise<void> {
  const present = new Set(files.map((file) => pathToFileURL(file).href));
  for (const url of known.keys()) {
    const relative = path.relative(root, fileURLToPath(url)).split(path.sep).join('/');
    if (!present.has(url) && run.settings.filter(relative) && (await run.store.remove(url)))
      run.summary.removed++;
  }
}
