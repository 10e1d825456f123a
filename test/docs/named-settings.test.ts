/**
 * Every `CITEWISE_*` environment variable named in the hand-written pages of the manual (and the README)
 * exists: it is listed on the generated configuration or CLI reference page, or it is the benchmarks'
 * data-folder variable. A renamed or removed setting then fails here instead of misleading a reader.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT as ROOT } from '../support/manual.ts';
import { DATASETS_ENV } from '../../bench/lib/datasets.ts';
import { generatedPages } from '../../scripts/generate-docs.ts';

const generated = generatedPages();
const reference = Object.values(generated).join('\n');
const handWritten = ['README.md', ...markdownFiles('docs')].filter(
  (path) => !(path.split('\\').join('/') in generated),
);

describe('settings named in the manual', () => {
  it.each(handWritten)('%s names only CITEWISE_* variables that exist', (path) => {
    const named = new Set(readFileSync(join(ROOT, path), 'utf8').match(/\bCITEWISE_[A-Z0-9_]+\b/g) ?? []);
    const unknown = [...named].filter(
      (name) => name !== DATASETS_ENV && !new RegExp(`\\b${name}\\b`).test(reference),
    );
    expect(unknown).toEqual([]);
  });
});
