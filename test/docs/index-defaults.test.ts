/**
 * The index builder's defaults are written once (INDEX_BUILDER_DEFAULTS): `citewise index` takes its flags'
 * defaults from there, and the JSDoc of buildIndex (every default) and the indexing guide's table (those with
 * a flag) state the same values.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedPages } from '../../scripts/generate-docs.ts';
import { INDEX_BUILDER_DEFAULTS } from '../../src/index-builder/index.ts';

const root = new URL('../../', import.meta.url);
const FLAGS = { maxPages: '--max-pages <n>', maxDepth: '--max-depth <n>', concurrency: '--concurrency <n>' };

describe('defaults of the index builder', () => {
  const builder = readFileSync(new URL('src/index-builder/builder.ts', root), 'utf8');
  const guide = readFileSync(new URL('docs/guides/indexing.md', root), 'utf8');
  const cli = generatedPages()['docs/reference/cli.md']!;

  it.each(Object.entries(INDEX_BUILDER_DEFAULTS))('%s: the JSDoc says %s', (name, value) => {
    expect(builder).toMatch(new RegExp(`@default ${value}\\s*\\n\\s*\\*/\\s*\\n\\s*readonly ${name}\\?:`));
  });

  it.each(Object.entries(FLAGS))('%s: --help and the guide say the default', (name, flag) => {
    const value = INDEX_BUILDER_DEFAULTS[name as keyof typeof FLAGS];
    expect(cli).toMatch(new RegExp(`${flag.replace(/[<>]/g, '.')}[^\\n]*\\(default: ${value}\\)`));
    expect(guide).toContain(`| \`${flag}\` | ${value} |`);
  });
});
