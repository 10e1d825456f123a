/**
 * The fallback folders (the built-in manual) answer only while the operator has no documents of their own.
 * Once the document index holds some, a search does not search the fallback folders at all: every hit
 * there would be dropped, and searching them cut a snippet for each of their matching documents (about a
 * tenth of `serve`'s CPU per search at 100,000 documents).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex } from '../../src/documents/index.ts';
import { createLocalIndexProvider } from '../../src/pipeline/search/local-index.ts';

const manual = mkdtempSync(join(tmpdir(), 'cw-fallback-'));
for (const name of ['backups', 'keys', 'quota'])
  writeFileSync(join(manual, `${name}.md`), `# ${name}\n\nHow to rotate the kiln door keys, for ${name}.\n`);
afterAll(() => rmSync(manual, { recursive: true, force: true }));

/** A provider over the manual and a document index, with a count of searches of its in-memory index. */
async function provider(operatorDocument: boolean) {
  const documentIndex = createMemoryDocumentIndex();
  if (operatorDocument)
    await documentIndex.put({
      url: 'https://example.test/kiln',
      content: '# Kiln\n\nThe kiln door keys rotate.\n',
    });
  const local = createLocalIndexProvider({
    paths: [],
    fallbackPaths: [manual],
    documentIndex,
    indexFiles: [],
  });
  await local.load();
  const memory = { searches: 0 };
  const search = local.index.search.bind(local.index);
  local.index.search = (...args) => {
    memory.searches++;
    return search(...args);
  };
  const hits = () =>
    local.search(
      { query: 'kiln door keys', limit: 40 },
      { signal: new AbortController().signal, requestId: 'r' },
    );
  return { hits, memory };
}

describe('the fallback folders', () => {
  it('answer while the operator has indexed nothing', async () => {
    const { hits, memory } = await provider(false);
    expect((await hits()).length).toBe(3);
    expect(memory.searches).toBe(1);
  });

  it('are not searched once the operator has documents: their hits would all be dropped', async () => {
    const { hits, memory } = await provider(true);
    expect((await hits()).map((hit) => hit.url)).toEqual(['https://example.test/kiln']);
    expect(memory.searches).toBe(0);
  });
});
