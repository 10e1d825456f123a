/** `process.env` is read only by the CLI (src/cli/); the library and the adapters take options. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Lines that read process.env outside comments (JSDoc examples may show it). */
function readersOf(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .flatMap((entry) => {
      const file = relative(ROOT, join(entry.parentPath, entry.name));
      return readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => /process\.env\b/.test(line) && !/^\s*(\*|\/\/|\/\*)/.test(line))
        .map((line) => `${file}: ${line.trim()}`);
    });
}

describe('process.env', () => {
  it('is read only in src/cli/', () => {
    const readers = [...readersOf('src'), ...readersOf('adapters')];
    expect(readers.filter((line) => line.startsWith('src/cli/'))).not.toEqual([]);
    expect(readers.filter((line) => !line.startsWith('src/cli/'))).toEqual([]);
  });
});
