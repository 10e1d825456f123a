import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leafBlocks } from '../../src/pipeline/extract/boilerplate.ts';
import type { ParsedDocument } from '../../src/pipeline/extract/dom.ts';
import { DOMS, parseWithDom, type DomName } from '../../bench/lib/reference-doms.ts';
import {
  collapsedTextLength,
  indexText,
  normalizedText,
  SharedTextIndex,
} from '../../src/pipeline/extract/text-index.ts';

// Whitespace at every kind of boundary: leading/trailing, between inline elements, only-space text nodes,
// non-breaking and other Unicode spaces, empty elements, nested and adjacent links, and a table.
const PAGE = `<!doctype html><html><body>
<div id="a">  Hello<b> big </b>world<i></i>\u00a0!<span>   </span><a href="/x">one<a href="/y"> two </a></a>
  <p>  <a href="/z">Link</a>text<br>more\u2003space </p>
  <ul><li><a href="/1">Item 1</a></li><li> <a href="/2"> Item 2 </a> and prose</li><li></li></ul>
  <section><div><p>Deep <em>inside<strong> nested</strong></em></p></div><h2>Title</h2></section>
  <table><tr><td> a </td><td>b<a href="/t">c</a></td></tr></table>
  <div>  <div>   </div> \u3000\ufeff </div>x
</div><footer>Last</footer></body></html>`;

function linkLengthByQuery(element: Element): number {
  let length = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) length += normalizedText(link).length;
  return length;
}

const LEAF_TAGS = new Set('P H1 H2 H3 H4 H5 H6 LI DIV SECTION TD TH FOOTER'.split(' '));
function leafBlocksByQuery(root: Element): Element[] {
  return Array.from(root.querySelectorAll('*')).filter(
    (element) =>
      LEAF_TAGS.has(element.tagName.toUpperCase()) &&
      !Array.from(element.querySelectorAll('*')).some((child) => LEAF_TAGS.has(child.tagName.toUpperCase())),
  );
}

describe.each<DomName>(DOMS)('indexText (%s)', (dom) => {
  let parsed: ParsedDocument;
  let document: Document;
  beforeEach(async () => {
    parsed = await parseWithDom(PAGE, 'https://example.test/', dom);
    document = parsed.document;
  });
  afterEach(() => parsed.dispose());

  it('measures every element as its collapsed, trimmed textContent, and its links as the sum of theirs', () => {
    const index = indexText(document.body);
    const elements = [document.body, ...Array.from(document.body.querySelectorAll('*'))];
    expect(elements.length).toBeGreaterThanOrEqual(25);
    for (const element of elements) {
      expect([element.tagName, index.length(element)]).toEqual([
        element.tagName,
        normalizedText(element).length,
      ]);
      expect([element.tagName, index.linkLength(element)]).toEqual([
        element.tagName,
        linkLengthByQuery(element),
      ]);
    }
    expect(index.length(document.createElement('p'))).toBe(0);
  });

  it('measures one element as it is now, as the index does, without a snapshot', () => {
    const elements = [document.body, ...Array.from(document.body.querySelectorAll('*'))];
    for (const element of elements) {
      expect([element.tagName, collapsedTextLength(element)]).toEqual([
        element.tagName,
        normalizedText(element).length,
      ]);
    }
    const first = document.querySelector('#a')!;
    collapsedTextLength(first);
    first.firstChild!.nodeValue = ' changed  text ';
    first.querySelector('ul')?.remove();
    expect(collapsedTextLength(first)).toBe(normalizedText(first).length);
    expect(collapsedTextLength(document.createElement('p'))).toBe(0);
  });

  it('measures a page again after its text changed (text nodes are measured once per page)', () => {
    const first = document.querySelector('#a')!;
    expect(indexText(document.body).length(first)).toBe(normalizedText(first).length);
    const text = first.firstChild!;
    text.nodeValue = '  a much longer   opening  ';
    first.querySelector('p')?.remove();
    expect(indexText(document.body).length(first)).toBe(normalizedText(first).length);
  });

  it('shares one index between passes until an element is removed, then measures the subtree as it is now', () => {
    const root = document.querySelector('#a')!;
    const shared = new SharedTextIndex(root);
    const first = shared.get();
    expect(shared.get()).toBe(first);
    expect(first.length(root)).toBe(normalizedText(root).length);
    // A pass reads its snapshot while it removes; the next pass gets the subtree's figures after the removal.
    shared.remove(root.querySelector('ul')!);
    expect(first.length(root)).not.toBe(normalizedText(root).length);
    const second = shared.get();
    expect(second).not.toBe(first);
    expect(second.length(root)).toBe(normalizedText(root).length);
    expect(second.linkLength(root)).toBe(linkLengthByQuery(root));
    // A removal made otherwise is reported with changed().
    root.querySelector('section')!.remove();
    shared.changed();
    expect(shared.get().length(root)).toBe(normalizedText(root).length);
  });

  it('starts from an index of a larger subtree, whose figures for the inner elements are the same', () => {
    const root = document.querySelector('section')!;
    const bodyIndex = indexText(document.body);
    const shared = new SharedTextIndex(root, bodyIndex);
    expect(shared.get()).toBe(bodyIndex);
    for (const element of [root, ...Array.from(root.querySelectorAll('*'))]) {
      expect(shared.get().length(element)).toBe(indexText(root).length(element));
    }
  });

  it('finds the leaf blocks in document order, as a query of every element would', () => {
    expect(leafBlocks(document.body)).toEqual(leafBlocksByQuery(document.body));
    expect(leafBlocks(document.body).map((element) => element.tagName.toUpperCase())).toEqual([
      'P',
      'LI',
      'LI',
      'LI',
      'P',
      'H2',
      'TD',
      'TD',
      'DIV',
      'FOOTER',
    ]);
  });
});
