/**
 * Local sources: a folder (its document files, with files deleted since the last run removed) and a single
 * file. Markdown and text are stored as written; HTML and PDF go through `extractContent`. A file whose
 * modification time and size did not change is not read again.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeBytes } from '../pipeline/extract/decode.ts';
import { extractContent } from '../pipeline/extract/extract.ts';
import { listDocumentFiles } from '../pipeline/search/local-index.ts';
import { FILE_TYPES } from './builder.ts';
import { messageOf, type BuildRun } from './run.ts';

/** Reads one local file into the store. */
export async function indexFile(run: BuildRun, file: string, source: string): Promise<'ok' | 'skipped'> {
  const { store } = run;
  const url = pathToFileURL(file).href;
  const mediaType = FILE_TYPES[path.extname(file).toLowerCase()];
  if (mediaType === undefined) {
    run.skip(url, 'unsupported_type', `extension ${path.extname(file) || '(none)'} is not indexed`);
    return 'skipped';
  }
  const info = await stat(file);
  const { size } = info;
  // Unchanged since the last run (same modification time and size): not read again.
  const fileVersion = `${Math.floor(info.mtimeMs)}:${size}`;
  const record = store.record(url);
  if (record?.fileVersion === fileVersion && record.source === source && store.index.has(url)) {
    run.count('unchanged');
    return 'ok';
  }
  const { maxFileBytes } = run.settings;
  if (size > maxFileBytes) {
    run.skip(url, 'too_large', `${size} bytes is more than ${maxFileBytes}`);
    return 'skipped';
  }
  // A plain Uint8Array, not a Buffer: the PDF reader (pdf.js) refuses Buffers.
  const bytes = new Uint8Array(await readFile(file));
  if (mediaType === 'text/markdown' || mediaType === 'text/plain') {
    // Markdown and text are stored as written (the index splits Markdown at its headings itself).
    const text = decodeBytes(bytes).text.replace(/^\uFEFF/, '');
    if (text.trim() === '') {
      run.skip(url, 'no_text', 'empty file');
      return 'skipped';
    }
    const format = mediaType === 'text/plain' ? 'text' : 'markdown';
    run.count(store.put(source, { url, content: text, format }, fileVersion));
    return 'ok';
  }
  const content = await extractContent(bytes, { url, contentType: mediaType });
  if (content === null || content.markdown.trim() === '') {
    run.skip(url, 'no_text', 'no readable text');
    return 'skipped';
  }
  run.count(
    store.put(
      source,
      {
        url,
        content: content.markdown,
        format: 'markdown',
        ...(content.title ? { title: content.title } : {}),
        ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
      },
      fileVersion,
    ),
  );
  return 'ok';
}

/** Reads the document files of a folder (within include/exclude); files deleted since leave the index. */
export async function indexFolder(run: BuildRun, root: string): Promise<void> {
  const { store, settings, summary } = run;
  run.remember(root, 'folder');
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
  for (const url of store.documentsOf(root)) {
    const relative = path.relative(root, fileURLToPath(url)).split(path.sep).join('/');
    if (!present.has(url) && settings.filter(relative) && store.remove(url)) summary.removed++;
  }
  run.progress({ source: root, done: files.length, pending: 0 });
}
