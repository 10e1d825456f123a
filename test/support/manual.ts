/** The repository's Markdown pages, for the tests that check the manual. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository, with a trailing separator. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The `.md` files below `dir` (relative to the repository), as paths relative to the repository. */
export function markdownFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}
