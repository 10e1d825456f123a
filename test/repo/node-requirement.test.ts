/**
 * The README and the manual state the Node.js requirement exactly as package.json `engines` (its one source)
 * says it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT as ROOT } from '../support/manual.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };

describe('Node.js requirement', () => {
  it('README quick start names the engines range of package.json', () => {
    expect(read('README.md')).toContain(`**Requires Node.js \`${engines.node}\`**`);
  });

  it('every "needs Node.js" of the manual names the engines range of package.json', () => {
    const statements = markdownFiles('docs').flatMap((path) =>
      // Prose statements (a code block may quote the command's own output).
      [
        ...read(path)
          .replace(/^```[\s\S]*?^```/gm, '')
          .matchAll(/needs Node\.js\s+(`[^`]*`|\S+(?: or \S+)?)/g),
      ].map((match) => ({
        path,
        stated: match[1]!,
      })),
    );
    expect(statements.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        join('docs', 'getting-started', 'service.md'),
        join('docs', 'getting-started', 'library.md'),
        join('docs', 'operations', 'deployment.md'),
      ]),
    );
    for (const { path, stated } of statements) {
      expect({ path, stated }).toEqual({ path, stated: `\`${engines.node}\`` });
    }
  });
});
