import { Readability } from '@mozilla/readability';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { extractHtml } from '../../src/pipeline/extract/html.ts';
import { isValidByline } from '../../src/pipeline/extract/readability.ts';

/** Readability's own byline test and pattern, the ones `runReadability` replaces. */
interface Internals {
  _isValidByline: (node: Element, matchString: string) => boolean;
  REGEXPS: { byline: RegExp };
}

// Candidates of every kind: each naming (rel, itemprop, class, id) with empty, short, padded and long text,
// and nodes that name nothing.
const LONG = 'word '.repeat(30);
const PAGE = `<!doctype html><html><body>
<a rel="author" href="/jane">Jane Doe</a><a rel="author" href="/x"></a><a rel="author">${LONG}</a>
<span itemprop="author">Ann</span><span itemprop="author name">   </span><span itemprop="">Bob</span>
<div class="byline">By Sam Lee</div><div id="writtenby">  Kim  </div><div class="p-author">${LONG}</div>
<p class="dateline">Paris, May 2</p><div class="author-box"><img src="a.png"></div>
<div class="content"><p>Plain text of the article, which names nobody.</p><p>Short.</p></div>
</body></html>`;

describe('Readability byline test', () => {
  it('is still where runReadability replaces it (an upgrade of @mozilla/readability that moves it fails here)', async () => {
    const parsed = await parseDocument(PAGE, 'https://example.test/', 'linkedom');
    const { document } = parsed;
    const reader = new Readability(document) as unknown as Partial<Internals>;
    expect(typeof reader._isValidByline).toBe('function');
    expect(reader.REGEXPS?.byline).toBeInstanceOf(RegExp);
    parsed.dispose();
  });

  it('answers as Readability’s own test on every node, for the class/id string Readability passes', async () => {
    const parsed = await parseDocument(PAGE, 'https://example.test/', 'linkedom');
    const { document } = parsed;
    const reader = new Readability(document) as unknown as Internals;
    const elements = Array.from(document.querySelectorAll('*'));
    let valid = 0;
    for (const element of elements) {
      const matchString = `${element.className} ${element.id}`;
      const expected = reader._isValidByline(element, matchString);
      expect(isValidByline(element, matchString, reader.REGEXPS.byline), element.outerHTML).toBe(expected);
      if (expected) valid++;
    }
    expect(valid).toBe(5); // rel Jane, itemprop Ann, byline, writtenby, dateline; not empty, blank or long
    parsed.dispose();
  });

  it('still finds the byline of an article', async () => {
    const paragraphs = Array.from(
      { length: 6 },
      (_, i) => `<p>Paragraph ${i} of a long article about lighthouses, their keepers and the rocks they
      stand on, with enough words that Readability takes it for the article body of the page.</p>`,
    ).join('');
    const html = `<!doctype html><html><head><title>Lighthouses</title></head><body><article>
      <h1>Lighthouses</h1><div class="byline">By Sam Lee</div>${paragraphs}</article></body></html>`;
    const content = await extractHtml(html, { url: 'https://example.test/lighthouses' });
    expect(content?.byline).toBe('By Sam Lee');
    expect(content?.text).not.toContain('By Sam Lee');
  });
});
