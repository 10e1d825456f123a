/**
 * Local sources: a folder (its document files, with files deleted since the last run removed) and a single
 * file, each read by `readDocumentFile` (as `--corpus` folders are). A file whose modification time and
 * size did not change is not read again.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FILE_TYPES, readDocumentFile } from '../documents/read-file.ts';
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
  const fileVersion = `${Math.floor(info.mtimeMs)}:${info.size}`;
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

/** Reads the document files of a folder (within include/exclude); files deleted since leave the index. */
export async function indexFolder(run: BuildRun, root: string): Promise<void> {
  const { store, settings, summary } = run;
  await run.remember(root, 'folder');
  const files = (await listDocumentFiles(root, (extension) => FILE_TYPES[extension] !== undefined)).filter(
    (file) => settings.filter(path.relative(root, file).split(path.sep).join('/')),
  );
  const present = new Set(files.map((file) => pathToFileURL(file).href));
  for (const [i, file] of files.entries()) {
    if (settings.signal.aborted) return;
    run.progress({ source: root, done: i, pending: files.length - i, current: file });
    try {
      await indexFile(run, file, root);
    } catch (error) {
      run.skip(pathToFileURL(file).href, 'error', messageOf(error));
    }
    await run.checkpoint();
  }
  // Files deleted since the last run (within the include/exclude scope) leave the index.
  for (const url of await store.documentsOf(root)) {
    const relative = path.relative(root, fileURLToPath(url)).split(path.sep).join('/');
    if (!present.has(url) && settings.filter(relative) && (await store.remove(url))) summary.removed++;
  }
  run.progress({ source: root, done: files.length, pending: 0 });
}
