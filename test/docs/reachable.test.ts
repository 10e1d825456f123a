/** Every page of the manual can be reached from README.md by following links (no orphan pages). */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT as ROOT } from '../support/manual.ts';

/** Relative links to Markdown files, as absolute paths. */
function linkedPages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\]\(\s*<?([^)\s>#]+\.md)(?:#[^)\s>]*)?>?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => resolve(dirname(file), target));
}

describe('the manual', () => {
  it('has no page that README.md does not lead to', () => {
    const seen = new Set<string>();
    const queue = [join(ROOT, 'README.md')];
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      try {
        queue.push(...linkedPages(file));
      } catch {
        // a broken link: the links test reports it
      }
    }
    const orphans = markdownFiles('docs')
      .map((file) => join(ROOT, file))
      .filter((file) => !seen.has(file))
      .map((file) => relative(ROOT, file));
    expect(orphans).toEqual([]);
  });
});
