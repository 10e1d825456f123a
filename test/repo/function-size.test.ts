/**
 * No function of src/ or adapters/ is longer than 300 lines (a closure that holds a whole module is a room a
 * newcomer cannot walk into: split it into modules). Counted by scripts/largest-functions.ts.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

it('no function in src/ or adapters/ is over 300 lines', () => {
  const output = execFileSync(process.execPath, ['scripts/largest-functions.ts', '--min', '300'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(output.trim()).toBe('0 functions over 300 lines');
});
