import { Readability } from '@mozilla/readability';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { extractHtml } from '../../src/pipeline/extract/html.ts';
import {
  elementsWithTag,
  InnerTextMemo,
  isElementWithoutContent,
  memoizeInnerText,
  isProbablyVisible,
  isValidByline,
} from '../../src/pipeline/extract/readability.ts';

/** Readability's own byline test and pattern, visibility test and tag query: what `runReadability` replaces. */
interface Internals {
  _isValidByline: (node: Element, matchString: string) => boolean;
  _isProbablyVisible: (node: Element) => boolean;
  _getAllNodesWithTag: (node: Element | Document, tagNames: readonly string[]) => ArrayLike<Element>;
  _isElementWithoutContent: (node: Node) => boolean;
  _getInnerText: (node: Element, normalizeSpaces?: boolean) => string;
  _removeNodes: (nodes: ArrayLike<Element>, filter?: (node: Element) => boolean) => void;
  REGEXPS: { byline: RegExp };
}

/** Readability's own instance on a freshly parsed page, to compare its private tests with ours. */
async function readerOn(
  html: string,
): Promise<{ document: Document; reader: Internals; dispose: () => void }> {
  const parsed = await parseDocument(html, 'https://example.test/', 'linkedom');
  const reader = new Readability(parsed.document) as unknown as Internals;
  return { document: parsed.document, reader, dispose: () => parsed.dispose() };
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
    const { reader, dispose } = await readerOn(PAGE);
    const internals = reader as Partial<Internals>;
    expect(typeof internals._isValidByline).toBe('function');
    expect(internals.REGEXPS?.byline).toBeInstanceOf(RegExp);
    dispose();
  });

  it('answers as Readability’s own test on every node, for the class/id string Readability passes', async () => {
    const { document, reader, dispose } = await readerOn(PAGE);
    const elements = Array.from(document.querySelectorAll('*'));
    let valid = 0;
    for (const element of elements) {
      const matchString = `${element.className} ${element.id}`;
      const expected = reader._isValidByline(element, matchString);
      expect(isValidByline(element, matchString, reader.REGEXPS.byline), element.outerHTML).toBe(expected);
      if (expected) valid++;
    }
    expect(valid).toBe(5); // rel Jane, itemprop Ann, byline, writtenby, dateline; not empty, blank or long
    dispose();
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

// Nodes of every visibility: inline styles (with spaces, !important, other properties), hidden and aria-hidden
// in their forms, Wikimedia's fallback images, SVG and MathML.
const VISIBILITY_PAGE = `<!doctype html><html><body>
<div style="display:none">a</div><div style="display: none !important">b</div><div style="DISPLAY:NONE">c</div>
<div style="visibility:hidden">d</div><div style="visibility: visible; color: red">e</div><div style="">f</div>
<div hidden>g</div><div hidden="until-found">h</div><div aria-hidden="true">i</div><div aria-hidden="false">j</div>
<img aria-hidden="true" class="mwe-math-fallback-image-inline" src="m.png"><span aria-hidden="TRUE">k</span>
<svg aria-hidden="true" class="icon"><path d="M0 0"></path></svg><svg style="display:none"></svg>
<math><mi>x</mi></math><p>Plain <b>text</b> and <a href="/">a link</a>.</p><h2>Heading</h2><h3>Sub</h3>
<table><tr><td><p>Cell</p></td></tr></table><pre>code</pre><section><h2>Nested</h2><p>More.</p></section>
</body></html>`;

describe('Readability visibility test and tag query', () => {
  it('are still where runReadability replaces them (an upgrade of @mozilla/readability that moves them fails here)', async () => {
    const { reader, dispose } = await readerOn(VISIBILITY_PAGE);
    const internals = reader as Partial<Internals>;
    expect(typeof internals._isProbablyVisible).toBe('function');
    expect(typeof internals._getAllNodesWithTag).toBe('function');
    dispose();
  });

  it('answer as Readability’s own on every node', async () => {
    const { document, reader, dispose } = await readerOn(VISIBILITY_PAGE);
    const elements = Array.from(document.querySelectorAll('*'));
    let hidden = 0;
    for (const element of elements) {
      const expected = Boolean(reader._isProbablyVisible(element));
      expect(isProbablyVisible(element), element.outerHTML).toBe(expected);
      if (!expected) hidden++;
    }
    expect(hidden).toBeGreaterThanOrEqual(5);
    for (const root of [document, document.body, document.querySelector('table')!]) {
      for (const tags of [['p'], ['h1', 'h2', 'h3'], ['P', 'PRE'], ['td', 'p', 'section'], ['svg', 'math']]) {
        const expected = Array.from(reader._getAllNodesWithTag(root, tags));
        expect(elementsWithTag(root, tags)).toEqual(expected);
      }
    }
    dispose();
  });
});

// Empty and nearly empty containers: whitespace of several kinds (a no-break space and a line separator trim
// away too), comments, line breaks and rules, nested empties, and text at the end of a deep subtree.
const DEEP = '<div>'.repeat(3000) + 'x' + '</div>'.repeat(3000);
const EMPTY_PAGE = `<!doctype html><html><body>
<div id="a"></div><div> \n\t </div><div>&nbsp;\u2028</div><div><!-- only a comment --></div>
<section><br><hr><br></section><header><br><p></p></header><h2> <span> </span> </h2>
<div><div><div></div><span>  </span></div><b>bold</b></div><div><div></div><div><i></i></div></div>
<div><img src="a.png"></div><h3>Title</h3><div>${DEEP}</div><div><p> </p><p> </p><p>last</p></div>
</body></html>`;

describe('Readability empty-container test', () => {
  it('is still where runReadability replaces it (an upgrade of @mozilla/readability that moves it fails here)', async () => {
    const { reader, dispose } = await readerOn(EMPTY_PAGE);
    expect(typeof (reader as Partial<Internals>)._isElementWithoutContent).toBe('function');
    dispose();
  });

  it('answers as Readability’s own on every node, down to text at the end of a deep subtree', async () => {
    const { document, reader, dispose } = await readerOn(EMPTY_PAGE);
    const nodes = [...Array.from(document.querySelectorAll('*')), ...Array.from(document.body.childNodes)];
    let empty = 0;
    for (const node of nodes) {
      const expected = reader._isElementWithoutContent(node);
      expect(isElementWithoutContent(node), (node as Element).outerHTML?.slice(0, 80)).toBe(expected);
      if (expected) empty++;
    }
    expect(empty).toBeGreaterThanOrEqual(12);
    dispose();
  });
});

const NESTED_PAGE = `<!doctype html><html><body><div id="outer">
<div id="middle"><p class="ad">Buy   now</p><div id="inner"><p>First,   second</p><span class="ad">Sale</span></div></div>
<p>Kept    text</p><div class="ad">More ads</div></div></body></html>`;

describe('Readability text remembered while filtering nodes', () => {
  /** Each filter call's view of the texts, and the page after the removals, with or without the memo. */
  async function filterRun(memoized: boolean): Promise<unknown[]> {
    const { document, reader, dispose } = await readerOn(NESTED_PAGE);
    if (memoized)
      memoizeInnerText(reader as unknown as Parameters<typeof memoizeInnerText>[0], new InnerTextMemo());
    const seen: unknown[] = [];
    const ids = ['outer', 'middle', 'inner'];
    reader._removeNodes(Array.from(document.querySelectorAll('div, p, span')), (node) => {
      seen.push(ids.map((id) => reader._getInnerText(document.getElementById(id)!)));
      seen.push(ids.map((id) => reader._getInnerText(document.getElementById(id)!, false)));
      return node.className === 'ad';
    });
    // Outside a filter nothing is remembered: a change made between two reads shows.
    const before = reader._getInnerText(document.getElementById('outer')!);
    document.getElementById('inner')!.remove();
    seen.push(before, reader._getInnerText(document.getElementById('outer')!), document.body.innerHTML);
    dispose();
    return seen;
  }

  it('answers every read as Readability’s own does, after each removal of the filtered list', async () => {
    const expected = await filterRun(false);
    // Three removals: each later read must show them (the memo forgets the removed node's ancestors).
    expect(new Set(expected.slice(0, -3).map((texts) => JSON.stringify(texts))).size).toBeGreaterThan(4);
    expect(await filterRun(true)).toEqual(expected);
  });

  it('remembers only while started, and forgets when the outermost start is stopped', () => {
    const memo = new InnerTextMemo();
    const node = {} as Node;
    let computed = 0;
    const compute = () => `text ${++computed}`;
    expect(memo.text(node, true, compute)).toBe('text 1');
    memo.start();
    memo.start();
    expect(memo.text(node, true, compute)).toBe('text 2');
    expect(memo.text(node, true, compute)).toBe('text 2');
    expect(memo.text(node, false, compute)).toBe('text 3');
    memo.stop();
    expect(memo.text(node, true, compute)).toBe('text 2');
    memo.stop();
    memo.start();
    expect(memo.text(node, true, compute)).toBe('text 4');
    memo.stop();
  });
});
