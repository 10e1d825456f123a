/**
 * `GET /docs/<path>`: the files of the local corpus, read-only, so that a source of the `local` search
 * provider is a URL a client can open instead of a path on the server. The first corpus folder is served
 * at `/docs/`, the second at `/docs/2/`, … (the URLs `corpusDocumentUrl` gives them, pipeline/search/corpus-url.ts).
 *
 * Only regular files inside a corpus folder are served (checked on the real path, so neither `..`, nor
 * an encoded `%2e%2e` or `%2f`, nor a symbolic link can leave the folder), only with an extension below,
 * and never hidden entries or `node_modules` (which the index skips too). The files of `citewise index`
 * (`/docs/.indexed/…`) are held to the same rules inside the source they were indexed from: a file replaced
 * by a symbolic link, or a folder by a link to another one, after indexing is not served. A file is read
 * through its real path, opened without following a link, so a swap between the check and the read fails.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CitewiseError } from '../errors.ts';
import type { IndexedDocumentFile } from '../pipeline/search/local-index.ts';
import type { ProtocolResponse } from './handler.ts';

/** The media type served for each extension; files with other extensions are not served. */
export const DOCUMENT_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown; charset=utf-8',
  '.markdown': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  // No charset: an HTML file declares its own (a <meta charset>), which a header would override.
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.csv': 'text/csv; charset=utf-8',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** Larger files are not served (they are read whole into memory). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/**
 * Serves the files of `folders` (folders or single files) by their path below `/docs/`, and the files
 * `indexedFiles` names by an exact path (the documents of `citewise index` outside the folders; a bare path
 * must stay inside its own folder).
 */
export function createDocumentServer(
  folders: readonly string[],
  indexedFiles?: (
    encodedPath: string,
  ) => IndexedDocumentFile | string | undefined | Promise<IndexedDocumentFile | string | undefined>,
): (encodedPath: string) => Promise<ProtocolResponse> {
  const roots = folders.map((folder) => path.resolve(folder));
  return async (encodedPath) => {
    const indexed = await indexedFiles?.(encodedPath);
    const file =
      indexed === undefined
        ? await resolveDocument(roots, encodedPath)
        : await resolveIndexed(
            typeof indexed === 'string' ? { file: indexed, root: path.dirname(indexed) } : indexed,
            encodedPath,
          );
    const body = await readServable(file, encodedPath);
    const contentType = DOCUMENT_CONTENT_TYPES[path.extname(file).toLowerCase()]!;
    return {
      status: 200,
      headers: {
        'content-type': contentType,
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=60',
        // An HTML file of the corpus runs in a sandbox: no scripts, no access to this origin.
        ...(contentType === 'text/html' ? { 'content-security-policy': 'sandbox' } : {}),
      },
      body,
    };
  };
}

/** The real path of the file an encoded `/docs/` path names; throws 404 for anything not servable. */
async function resolveDocument(roots: readonly string[], encodedPath: string): Promise<string> {
  const segments = encodedPath.split('/').map(decodeSegment);
  if (segments.some((segment) => segment === null)) throw notFound(encodedPath);
  let names = segments as string[];
  let rootIndex = 0;
  const folderNumber = /^[1-9][0-9]*$/.test(names[0] ?? '') ? Number(names[0]) : 0;
  if (folderNumber >= 2 && folderNumber <= roots.length) {
    rootIndex = folderNumber - 1;
    names = names.slice(1);
  }
  const root = roots[rootIndex];
  const extension = path.extname(names.at(-1) ?? '').toLowerCase();
  if (root === undefined || names.length === 0 || !Object.hasOwn(DOCUMENT_CONTENT_TYPES, extension)) {
    throw notFound(encodedPath);
  }
  // A corpus "folder" that is one file serves that file under its own name, and nothing else.
  const rootIsFile = (await stat(root).catch(() => null))?.isFile() ?? false;
  if (rootIsFile && (names.length !== 1 || names[0] !== path.basename(root))) throw notFound(encodedPath);
  const file = rootIsFile ? root : path.join(root, ...names);
  return realPathInside(root, file, encodedPath);
}

/** The real path of an indexed file, if it still lies inside the real path of its source; else 404. */
function resolveIndexed(indexed: IndexedDocumentFile, encodedPath: string): Promise<string> {
  return realPathInside(path.resolve(indexed.root), path.resolve(indexed.file), encodedPath);
}

/**
 * The real path of `file` when it is `root` itself (a source that is one file) or lies below the real path
 * of `root` through no hidden entry or `node_modules`, with a served extension; else 404.
 */
async function realPathInside(root: string, file: string, encodedPath: string): Promise<string> {
  let realRoot: string;
  let real: string;
  try {
    [realRoot, real] = await Promise.all([realpath(root), realpath(file)]);
  } catch (error) {
    throw notFound(encodedPath, error);
  }
  const inside =
    real === realRoot ||
    (real.startsWith(`${realRoot}${path.sep}`) &&
      path
        .relative(realRoot, real)
        .split(path.sep)
        .every((name) => !name.startsWith('.') && name !== 'node_modules'));
  if (!inside || !Object.hasOwn(DOCUMENT_CONTENT_TYPES, path.extname(real).toLowerCase())) {
    throw notFound(encodedPath);
  }
  return real;
}

/**
 * Reads `real` (a real path) if it is a regular file of a served size: opened without following a
 * symbolic link (one swapped in since the check fails), and checked on the opened file itself; else 404.
 */
async function readServable(real: string, encodedPath: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw notFound(encodedPath, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_DOCUMENT_BYTES) throw notFound(encodedPath);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** One decoded path segment; `null` for a segment that could name something outside or hidden. */
function decodeSegment(segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (decoded === '' || decoded.startsWith('.') || decoded === 'node_modules') return null;
  return /[/\\\0]/.test(decoded) || path.isAbsolute(decoded) ? null : decoded;
}

function notFound(encodedPath: string, cause?: unknown): CitewiseError {
  return new CitewiseError('not_found', `no corpus file ${encodedPath}`, { cause });
}
