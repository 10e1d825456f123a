/** The README states the Node.js requirement exactly as package.json `engines` (its one source) says it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('Node.js requirement', () => {
  it('README quick start names the engines range of package.json', () => {
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(read('README.md')).toContain(`**Requires Node.js \`${engines.node}\`**`);
  });
});
