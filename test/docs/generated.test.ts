/**
 * The generated reference pages are what the code generates, and the defaults written in JSDoc are the
 * defaults the code applies.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedPages } from '../../scripts/generate-docs.ts';
import { SERVE_SETTINGS } from '../../src/cli/settings.ts';
import { ENGINE_DEFAULTS } from '../../src/engine/index.ts';
import { ERROR_TABLE } from '../../src/errors.ts';

const root = new URL('../../', import.meta.url);

describe('generated reference pages', () => {
  const pages = generatedPages();

  it.each(Object.keys(pages))('%s is up to date', (path) => {
    let committed = '';
    try {
      committed = readFileSync(new URL(path, root), 'utf8');
    } catch {
      // A missing page fails below with the same hint.
    }
    expect(committed === pages[path], `${path} differs from the code: run npm run docs:generate`).toBe(true);
  });

  it('the configuration page lists every setting, flag and variable; the errors page every code', () => {
    const configuration = pages['docs/reference/configuration.md']!;
    for (const [name, setting] of Object.entries(SERVE_SETTINGS)) {
      expect(configuration).toContain(`\`${name}\``);
      expect(configuration).toContain(`\`${setting.env}\``);
      if ('flag' in setting) expect(configuration).toContain(`\`${setting.flag}\``);
    }
    const errors = pages['docs/reference/errors.md']!;
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(errors).toContain(`| \`${code}\` | ${row.status} | \`${row.description}\` |`);
    }
  });

  it('pages link only to relative Markdown files', () => {
    for (const text of Object.values(pages)) {
      for (const [, target] of text.matchAll(/\]\(([^)]+)\)/g)) {
        expect(target).toMatch(/^(#[\w-]+|[\w./-]+\.md(#[\w-]+)?)$/);
      }
    }
  });
});

describe('JSDoc defaults of createSearchEngine', () => {
  const source = readFileSync(new URL('src/engine/options.ts', root), 'utf8');
  const optionsInterface = source.slice(
    source.indexOf('export interface SearchEngineOptions'),
    source.indexOf('export interface SearchCallOptions'),
  );
  const normalize = (text: string) => text.replace(/[\s_]/g, '').replace(/([{,])(\w+):/g, '$1"$2":');

  it.each(Object.keys(ENGINE_DEFAULTS).filter((name) => name !== 'freeCredits'))(
    'the @default of %s is ENGINE_DEFAULTS',
    (name) => {
      const declaration = new RegExp(
        `@default ([^\\n]*?)\\s*(?:\\*/)?\\s*\\n(?:\\s*\\*/\\s*\\n)?\\s*readonly ${name}\\?:`,
      );
      const match = declaration.exec(optionsInterface);
      expect(match, `no @default right before ${name}`).not.toBeNull();
      const value = ENGINE_DEFAULTS[name as keyof typeof ENGINE_DEFAULTS];
      expect(normalize(match![1]!)).toBe(JSON.stringify(value));
    },
  );
});

describe('defaults in the library reference', () => {
  const page = readFileSync(new URL('docs/reference/library.md', root), 'utf8');
  const normalize = (text: string) =>
    text
      .replace(/[\s_]/g, '')
      .replace(/'/g, '"')
      .replace(/([{,])(\w+):/g, '$1"$2":');

  it.each(Object.keys(ENGINE_DEFAULTS).filter((name) => name !== 'freeCredits'))(
    'the options table states ENGINE_DEFAULTS.%s',
    (name) => {
      const row = new RegExp(`^\\| \`${name}\` \\| \`([^\`]*)\``, 'm').exec(page);
      if (row === null) return; // not every default has a row of its own
      const value = ENGINE_DEFAULTS[name as keyof typeof ENGINE_DEFAULTS];
      expect(normalize(row[1]!)).toBe(typeof value === 'string' ? value : JSON.stringify(value));
    },
  );

  it('has a row for the defaults a reader tunes first', () => {
    for (const name of [
      'maxResults',
      'requestTimeoutMs',
      'pageTimeoutMs',
      'maxPassageTokens',
      'creditCost',
    ]) {
      expect(page).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
    }
  });
});
