/**
 * A document index hit cuts its snippet when it is first read, and the `local` provider passes it on
 * unread: the pipeline reads such hits whole, so a search for 40 hits does not cut 40 snippets. Read, the
 * snippet is the one it always was.
 */
import { describe, expect, it } from 'vitest';
import { sectionSnippet } from '../../src/documents/analyze.ts';
import { createMemoryDocumentIndex } from '../../src/documents/index.ts';
import { createLocalIndexProvider } from '../../src/pipeline/search/local-index.ts';
import { withHitFields } from '../../src/pipeline/search/hits.ts';

const PAGE = {
  url: 'https://example.test/kiln',
  content:
    '# Kiln\n\nThe kiln fires at 1,200 degrees. Its door locks while firing. Glazes melt near the top of the range.\n',
};

describe('snippets of document index hits', () => {
  it('are cut when read, as before', async () => {
    const index = createMemoryDocumentIndex();
    await index.put(PAGE);
    const [hit] = await index.search('door locks');
    const descriptor = Object.getOwnPropertyDescriptor(hit!, 'snippet');
    expect(typeof descriptor?.get).toBe('function');
    const expected = sectionSnippet(
      'The kiln fires at 1,200 degrees. Its door locks while firing. Glazes melt near the top of the range.',
      new Set(['door', 'lock']),
      300,
    );
    expect(hit!.snippet).toBe(expected);
    expect(JSON.parse(JSON.stringify(hit))).toMatchObject({ snippet: expected, url: PAGE.url });
    // A copy with another URL keeps the getter, and reads the same snippet.
    const moved = withHitFields(hit!, { url: 'https://example.test/elsewhere' });
    expect(typeof Object.getOwnPropertyDescriptor(moved, 'snippet')?.get).toBe('function');
    expect(moved.snippet).toBe(expected);
    expect(moved.url).toBe('https://example.test/elsewhere');
    expect(hit!.url).toBe(PAGE.url);
  });

  it('reach the local provider unread, and read there give the index snippet', async () => {
    const index = createMemoryDocumentIndex();
    await index.put(PAGE);
    const provider = createLocalIndexProvider({
      paths: [],
      documentIndex: index,
      fallbackPaths: [],
      indexFiles: ['/nonexistent/index.json'],
    });
    const signal = new AbortController().signal;
    const [hit] = await provider.search({ query: 'door locks', limit: 40 }, { signal, requestId: 'r' });
    expect(typeof Object.getOwnPropertyDescriptor(hit!, 'snippet')?.get).toBe('function');
    expect(hit!.snippet).toBe((await index.search('door locks'))[0]!.snippet);
    expect(hit!.content).toBe(PAGE.content);
  });
});
