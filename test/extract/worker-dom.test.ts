import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { createContentExtractor, extractContent } from '../../src/pipeline/extract/index.ts';
import { NO_DOM_EVENTS_MESSAGE } from '../../src/pipeline/extract/worker-dom.ts';
import { isJoinedTokenList } from '../../src/pipeline/extract/lite-dom.ts';
import { classSteps } from './fixtures/class-steps.ts';
import { treeSteps } from './fixtures/tree-steps.ts';

const sentence = (word: string) =>
  `The ${word} paragraph carries enough ordinary words to be read as the body of the page by any extractor.`;

/** Pages of several profiles: an article, a forum thread and a product page. */
const PAGES = [
  `<html><head><title>Story</title></head><body><nav><a href="/">Home</a></nav><article><h1>Story</h1>${[1, 2, 3, 4].map((n) => `<p>${sentence(`story ${n}`)}</p>`).join('\n')}</article><footer>© Site</footer></body></html>`,
  `<html><head><title>Thread</title></head><body><main>${[1, 2, 3, 4].map((n) => `<div class="post-body"><p>${sentence(`reply ${n}`)}</p></div>`).join('\n')}</main></body></html>`,
  `<html><head><script type="application/ld+json">{"@type":"Product","name":"Kettle"}</script></head><body><main><h1>Kettle</h1><p>${sentence('product')}</p><p>$25.00</p></main></body></html>`,
];

describe('linkedom in extraction workers', () => {
  it('builds nodes without event-listener maps in a worker thread; event methods then refuse clearly', async () => {
    const worker = new Worker(new URL('./fixtures/worker-dom-check.ts', import.meta.url));
    const [result] = (await once(worker, 'message')) as [
      { patched: boolean; eventError: string; text: string; classes: unknown[]; tree: unknown[] },
    ];
    await worker.terminate();
    // false would mean linkedom's classes changed shape (an upgrade): the settings no longer apply.
    expect(result).toEqual({
      patched: true,
      eventError: NO_DOM_EVENTS_MESSAGE,
      text: 'kept text',
      // What linkedom's own className answers for the same steps (checked in this thread below).
      classes: classSteps(),
      // What linkedom's own end markers and tree operations answer (this thread).
      tree: treeSteps(),
    });
  });

  it('extracts the same in a worker as in the calling thread, whose linkedom keeps its events', async () => {
    const extractor = createContentExtractor({ workers: 1 });
    try {
      for (const [index, html] of PAGES.entries()) {
        const url = `https://example.test/page-${index}`;
        const body = new TextEncoder().encode(html);
        const inWorker = await extractor.extract(
          { url, requestedUrl: url, status: 200, contentType: 'text/html', body, headers: {} },
          { signal: new AbortController().signal, requestId: 'test' },
        );
        expect(inWorker).not.toBeNull();
        expect(inWorker).toEqual(await extractContent(body, { url, contentType: 'text/html' }));
      }
    } finally {
      await extractor.close?.();
    }
    const { document } = parseHTML('<!doctype html><html><body><p>x</p></body></html>');
    const heard: string[] = [];
    document.body.addEventListener('ping', (event: Event) => heard.push(event.type));
    document.body.dispatchEvent(
      new (document.defaultView as unknown as { Event: typeof Event }).Event('ping'),
    );
    expect(heard).toEqual(['ping']);
  });
});

describe('class attributes already in joined form', () => {
  // The definition: tokens without whitespace (JavaScript's \s), joined by single spaces, each once.
  const joined = (text: string) =>
    /^(?:\S+(?: \S+)*)?$/.test(text) && new Set(text.split(' ')).size === text.split(' ').length;
  const CLASSES = [
    '',
    'a',
    'card',
    'card wide',
    'card card',
    'a b a',
    'a b c d',
    'a b c a',
    ' a',
    'a ',
    'a  b',
    ' ',
    '  ',
    'a\tb',
    'a\nb',
    'a\u00a0b',
    'a\u2028b',
    'a\u3000b',
    'a\ufeffb',
    'a\u200bb',
    'é ü',
    'x-1 x_2 x:3',
  ];

  it('are told apart as the definition does, for every kind of whitespace, repeat and edge', () => {
    for (const text of CLASSES) expect(isJoinedTokenList(text), JSON.stringify(text)).toBe(joined(text));
    expect(CLASSES.filter(isJoinedTokenList)).toHaveLength(8);
  });
});
