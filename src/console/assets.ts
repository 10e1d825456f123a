/**
 * The console's static files: its stylesheet and script (in `assets/`), and two vendored browser
 * libraries read from their npm packages (marked renders the playground's Markdown, DOMPurify sanitises
 * it). Nothing is fetched from the network at run time.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** `assets/` from the sources (`src/console/`) or from the build (`dist/src/console/`). */
const ASSETS = ['./assets/', '../../../src/console/assets/']
  .map((path) => fileURLToPath(new URL(path, import.meta.url)))
  .find((path) => existsSync(path));

const FILES: Readonly<Record<string, { path: () => string; type: string }>> = {
  'console.css': { path: () => `${ASSETS}console.css`, type: 'text/css; charset=utf-8' },
  'console.js': { path: () => `${ASSETS}console.js`, type: 'text/javascript; charset=utf-8' },
  'favicon.svg': { path: () => `${ASSETS}favicon.svg`, type: 'image/svg+xml' },
  'marked.umd.js': {
    path: () => inPackage('marked', 'lib/marked.umd.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'purify.min.js': {
    path: () => require.resolve('dompurify/dist/purify.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

/** A file of an installed package, found through its package.json (its `exports` hide the browser build). */
function inPackage(name: string, file: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), file);
}

const cache = new Map<string, string>();

/** The content of a console asset by file name, or `null` when there is no such asset. */
export async function readAsset(name: string): Promise<{ body: string; type: string } | null> {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return null;
  let body = cache.get(name);
  if (body === undefined) {
    body = await readFile(file.path(), 'utf8');
    cache.set(name, body);
  }
  return { body, type: file.type };
}
