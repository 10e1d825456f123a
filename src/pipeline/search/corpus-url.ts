/**
 * The URLs of the local corpus: the service's public base URL (`publicUrl`), and where each corpus file is
 * served below it (`<publicUrl>/docs/<path>`, see http/docs.ts), so that a source is a URL a client can
 * open instead of a path on the server.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The path below the service's `/docs/` of corpus folder number `index` (0-based): the first folder is
 * served at `/docs/`, the second at `/docs/2/`, the third at `/docs/3/`, …
 */
export function corpusUrlPrefix(index: number): string {
  return index === 0 ? '' : `${index + 1}/`;
}

/**
 * Checks a public base URL (an absolute http(s) URL, without query or fragment) and returns it without
 * a trailing slash. @throws TypeError otherwise.
 */
export function normalizePublicUrl(value: string): string {
  const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash) {
    throw new TypeError(
      `publicUrl must be an absolute http(s) URL without query or fragment, got ${String(value)}`,
    );
  }
  return parsed.href.replace(/\/+$/, '');
}

/**
 * The public URL of a corpus file: `<publicUrl>/docs/<prefix><relative path>`, each segment
 * percent-encoded. `relativePath` uses the platform's separator.
 */
export function corpusDocumentUrl(publicUrl: string, folderIndex: number, relativePath: string): string {
  const encoded = relativePath.split(path.sep).map(encodeURIComponent).join('/');
  return `${normalizePublicUrl(publicUrl)}/docs/${corpusUrlPrefix(folderIndex)}${encoded}`;
}

/** Path of `file` relative to its corpus root (its name when the root is the file itself). */
export function relativeToRoot(file: string, root: string, rootIsFile: boolean): string {
  return rootIsFile ? path.basename(file) : path.relative(root, file);
}

/**
 * The URL of a corpus file without a `publicUrl`: below `baseUrl` when given (each segment
 * percent-encoded), else its `file:` URL.
 */
export function fileDocumentUrl(
  file: string,
  root: string,
  baseUrl: string | undefined,
  rootIsFile: boolean,
): string {
  if (baseUrl === undefined) return pathToFileURL(file).href;
  const encoded = relativeToRoot(file, root, rootIsFile).split(path.sep).map(encodeURIComponent).join('/');
  return `${baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`}${encoded}`;
}
