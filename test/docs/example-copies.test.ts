/** The MCP client configuration shown in the agents guide is the tested file `examples/mcp-client-config.json`. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('examples copied into the manual', () => {
  it('docs/guides/agents.md shows examples/mcp-client-config.json as it is', () => {
    const guide = read('docs/guides/agents.md');
    const shown = /`examples\/mcp-client-config\.json`[\s\S]*?```json\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(shown).toBeDefined();
    expect(JSON.parse(shown!)).toEqual(JSON.parse(read('examples/mcp-client-config.json')));
  });
});
