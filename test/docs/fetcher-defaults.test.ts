/**
 * The page fetcher's numeric defaults are written once (FETCHER_DEFAULTS): the JSDoc of its options and the
 * fetching guide's options table state the same values (the guide once said 16 for a concurrency of 64).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FETCHER_DEFAULTS } from '../../src/pipeline/fetch/index.ts';

const root = new URL('../../', import.meta.url);
const MIB = 1024 * 1024;

describe('defaults of the page fetcher', () => {
  const source = readFileSync(new URL('src/pipeline/fetch/fetcher.ts', root), 'utf8');
  const options = source.slice(
    source.indexOf('export interface PageFetcherOptions'),
    source.indexOf('export function createPageFetcher'),
  );
  const guide = readFileSync(new URL('docs/guides/fetching.md', root), 'utf8');

  it.each(Object.entries(FETCHER_DEFAULTS))('%s: JSDoc and the guide say %s', (name, value) => {
    const jsdoc = new RegExp(`@default ([\\d_]+)[^\\n]*(?:\\n\\s*\\*/)?\\s*\\n\\s*readonly ${name}\\?:`).exec(
      options,
    );
    expect(jsdoc, `no @default right before ${name}`).not.toBeNull();
    expect(Number(jsdoc![1]!.replace(/_/g, ''))).toBe(value);
    const shown = value >= MIB && value % MIB === 0 ? `${value / MIB} MiB` : String(value);
    expect(guide).toContain(`| \`${name}\` | \`${shown}\` |`);
  });
});
