/**
 * The one way a local file becomes a document, for `citewise index` (folders and files) and for the
 * `--corpus` folders of `serve` and `mcp` alike: Markdown and text are kept as written (decoded by their
 * byte order mark or charset sniffing), HTML, XHTML, PDF, CSV and DOCX go through `extractContent`, the extractor of
 * web pages. A new file type is one entry in {@link FILE_TYPES} and, when it needs a converter, one branch
 * here.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { decodeBytes } from './decode.ts';
import { DOCX_TYPE, extractContent } from './extract.ts';
import type { DocumentInput } from '../../documents/analyze.ts';

/** File extensions read as documents, with the media type each is read as. */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.mdx': 'text/markdown',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.pdf': 'application/pdf',
  '.csv': 'text/csv',
  '.docx': DOCX_TYPE,
};

/** Larger files are not read, by default (`citewise index --max-file-bytes`, the local provider's `maxFileBytes`). */
export const MAX_DOCUMENT_FILE_BYTES = 10 * 1024 * 1024;

/** Why a file gave no document. */
export type FileSkipReason = 'unsupported_type' | 'too_large' | 'no_text';

/** What {@link readDocumentFile} read. */
export type FileReadResult =
  { readonly document: DocumentInput } | { readonly skip: FileSkipReason; readonly message: string };

/**
 * Reads one file into a document with the given URL, or says why it gives none. Throws only when the file
 * cannot be read at all.
 */
export async function readDocumentFile(
  file: string,
  url: string,
  options: {
    readonly maxFileBytes: number;
    readonly size?: number;
    /** Read with blocking calls: cheaper, for a worker thread, where nothing else waits. @default false */
    readonly sync?: boolean;
  },
): Promise<FileReadResult> {
  const extension = path.extname(file).toLowerCase();
  const mediaType = FILE_TYPES[extension];
  if (mediaType === undefined)
    return { skip: 'unsupported_type', message: `extension ${extension || '(none)'} is not indexed` };
  const size = options.size ?? (options.sync ? statSync(file) : await stat(file)).size;
  if (size > options.maxFileBytes)
    return { skip: 'too_large', message: `${size} bytes is more than ${options.maxFileBytes}` };
  // A plain Uint8Array, not a Buffer: the PDF reader (pdf.js) refuses Buffers.
  const bytes = new Uint8Array(options.sync ? readFileSync(file) : await readFile(file));
  if (mediaType === 'text/markdown' || mediaType === 'text/plain') {
    // Markdown and text are kept as written (the index splits Markdown at its headings itself).
    const text = decodeBytes(bytes).text.replace(/^\uFEFF/, '');
    if (text.trim() === '') return { skip: 'no_text', message: 'empty file' };
    return { document: { url, content: text, format: mediaType === 'text/plain' ? 'text' : 'markdown' } };
  }
  const content = await extractContent(bytes, { url, contentType: mediaType });
  if (content === null || content.markdown.trim() === '')
    return { skip: 'no_text', message: 'no readable text' };
  return {
    document: {
      url,
      content: content.markdown,
      format: 'markdown',
      ...(content.title ? { title: content.title } : {}),
      ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
    },
  };
}
