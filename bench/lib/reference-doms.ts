/**
 * The DOMs extraction is compared with: linkedom, whose tree and quirks our small DOM reproduces, and jsdom, a
 * full browser-grade DOM. Both are dev dependencies: extraction parses every page with the small DOM
 * (src/pipeline/extract/lite-dom.ts) and nothing under src/ loads them. Tests and `bench:extract:parity`
 * parse pages with them to check that extraction gives the same results on each.
 */
import { DOMParser } from 'linkedom';
import type * as Jsdom from 'jsdom';
import {
  parseDocument,
  parseHtmlDocument,
  type DocumentParser,
  type ParsedDocument,
} from '../../src/pipeline/extract/dom.ts';

/** The DOMs a page can be parsed into here: `lite` (ours, what extraction uses), `linkedom`, `jsdom`. */
export const DOMS = ['lite', 'linkedom', 'jsdom'] as const;

/** One of {@link DOMS}. */
export type DomName = (typeof DOMS)[number];

let jsdomModule: Promise<typeof Jsdom> | undefined;

/** jsdom is loaded when first asked for: it is slow to import. */
function loadJsdom(): Promise<typeof Jsdom> {
  jsdomModule ??= import('jsdom');
  return jsdomModule;
}

/**
 * Records `document` through the DOM's public API, and answers the function that puts it back as it was:
 * the children of the document and of every element where they changed (in document order, so that each
 * node's ancestors are back in place before its children are), attributes where they changed, and every
 * text's data. Nodes created since are no longer in the document.
 */
export function snapshotThroughDom(document: Document): () => void {
  const parents: { parent: Node; children: Node[] }[] = [];
  const elements: { element: Element; attributes: [string, string][] }[] = [];
  const texts: { text: CharacterData; data: string }[] = [];
  const stack: Node[] = [document];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType === 1 || node.nodeType === 9) {
      const children = Array.from(node.childNodes);
      parents.push({ parent: node, children });
      for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
    }
    if (node.nodeType === 1) {
      const element = node as Element;
      const attributes = Array.from(element.attributes, ({ name, value }): [string, string] => [name, value]);
      elements.push({ element, attributes });
    } else if (node.nodeType === 3 || node.nodeType === 4 || node.nodeType === 8) {
      texts.push({ text: node as CharacterData, data: (node as CharacterData).data });
    }
  }
  return () => {
    for (const { parent, children } of parents) putChildrenBack(parent, children);
    for (const { element, attributes } of elements) putAttributesBack(element, attributes);
    for (const { text, data } of texts) if (text.data !== data) text.data = data;
  };
}

/** Whether `element` has these attributes, in this order. */
function hasAttributes(element: Element, attributes: readonly (readonly [string, string])[]): boolean {
  const now = Array.from(element.attributes);
  return (
    now.length === attributes.length &&
    now.every(({ name, value }, index) => attributes[index]![0] === name && attributes[index]![1] === value)
  );
}

/**
 * Gives `element` these attributes in this order. A DOM adds a new attribute last (the standard, jsdom) or
 * first (linkedom): set first to last, and where that gives the reverse order, last to first.
 */
function putAttributesBack(element: Element, attributes: readonly (readonly [string, string])[]): void {
  for (const order of [attributes, attributes.toReversed()]) {
    if (hasAttributes(element, attributes)) return;
    for (const name of element.getAttributeNames()) element.removeAttribute(name);
    for (const [name, value] of order) element.setAttribute(name, value);
  }
}

/** Makes `children` the children of `parent`, in that order, moving only what is out of place. */
function putChildrenBack(parent: Node, children: readonly Node[]): void {
  let current = Array.from(parent.childNodes);
  if (current.length === children.length && children.every((child, index) => current[index] === child))
    return;
  const recorded = new Set(children);
  for (const child of current) if (!recorded.has(child)) parent.removeChild(child);
  current = Array.from(parent.childNodes);
  for (const [index, child] of children.entries()) {
    if (current[index] === child) continue;
    parent.insertBefore(child, current[index] ?? null);
    current = Array.from(parent.childNodes);
  }
}

/**
 * A page in linkedom, repaired as extraction repairs its own ({@link parseHtmlDocument}), recorded for
 * Readability's attempts through the public API ({@link snapshotThroughDom}). linkedom's document alone: its
 * `parseHTML` also makes a window, kept in a module-wide `WeakMap`.
 */
function parseLinkedom(html: string): ParsedDocument {
  const parse = (markup: string): Document =>
    new DOMParser().parseFromString(markup, 'text/html') as unknown as Document;
  const document = parseHtmlDocument(html, parse);
  return { document, snapshot: () => snapshotThroughDom(document), dispose: () => undefined };
}

/** A page in jsdom, at `url` (about:blank when it does not parse), with a silent console. */
async function parseJsdom(html: string, url: string): Promise<ParsedDocument> {
  const { JSDOM, VirtualConsole } = await loadJsdom();
  const address = URL.canParse(url) ? new URL(url).href : 'about:blank';
  // A silent console: pages' broken CSS would otherwise flood stderr.
  const window = new JSDOM(html, { url: address, virtualConsole: new VirtualConsole() }).window;
  return { document: window.document, dispose: () => window.close() };
}

/** The parser of `dom`, for `extractHtml`'s `parser` option. */
export function parserOf(dom: DomName): DocumentParser {
  if (dom === 'jsdom') return parseJsdom;
  return dom === 'linkedom' ? parseLinkedom : (html) => parseDocument(html);
}

/** `html` parsed into `dom`; call `dispose` when done. */
export async function parseWithDom(html: string, url: string, dom: DomName): Promise<ParsedDocument> {
  return parserOf(dom)(html, url);
}
