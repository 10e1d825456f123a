/**
 * HTML parsing into our small DOM (lite-dom.ts), and the walks over a parsed page that the extraction stages
 * share. Extraction parses every page with the small DOM; tests and the parity bench parse the same pages
 * with linkedom and jsdom (dev dependencies, bench/lib/reference-doms.ts) through {@link DocumentParser}.
 */
import {
  isLiteNode,
  nextInTree,
  parseLiteDocument,
  snapshotLiteDocument,
  type LiteDocument,
  type LiteNode,
} from './lite-dom.ts';

/** A parsed page; call `dispose` when done (a reference DOM such as jsdom frees its window then). */
export interface ParsedDocument {
  readonly document: Document;
  /**
   * Records the document as it is now and answers the function that puts it back (Readability's later
   * attempts start from it instead of parsing the page again); absent where the DOM cannot.
   */
  readonly snapshot?: () => () => void;
  dispose(): void;
}

/**
 * Parses a page's HTML into a document; `url` is the page's address, for a DOM that keeps one. Extraction
 * uses {@link parseDocument}; tests and the parity bench pass a reference DOM's.
 */
export type DocumentParser = (html: string, url: string) => ParsedDocument | Promise<ParsedDocument>;

/** Parses a page into our small DOM ({@link parseHtmlDocument} with {@link parseLiteDocument}). */
export function parseDocument(html: string): ParsedDocument {
  const document = parseHtmlDocument(html, (markup) => parseLiteDocument(markup) as unknown as Document);
  return {
    document,
    snapshot: () => snapshotLiteDocument(document as unknown as LiteDocument),
    dispose: () => undefined,
  };
}

/**
 * A page parsed by `parse` (a DOM built from htmlparser2's events as linkedom builds its own: our small DOM,
 * or linkedom itself), repaired where that tree departs from a browser's in ways extraction depends on: a
 * bogus `<![CDATA[` comment dropped first, content between `</head>` and `<body>` moved into the body, and a
 * fragment (no `<html>` or no body) wrapped in a page and parsed again.
 */
export function parseHtmlDocument(html: string, parse: (html: string) => Document): Document {
  let document = parse(withoutMarkupCdata(html));
  repairStrayBodyContent(document);
  // htmlparser2's events build no <html>/<body> for a fragment (browsers and jsdom do): wrap it and parse again.
  if (document.documentElement?.tagName.toUpperCase() !== 'HTML' || !document.body) {
    document = parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`);
  }
  return document;
}

/** `<![CDATA[` in HTML markup (not in a script's `//<![CDATA[`), up to the first `>`. */
const MARKUP_CDATA = /(?<!\/\/[ \t]*|\/\*[ \t]*)<!\[CDATA\[[^>]*>/g;

/**
 * In HTML, `<![CDATA[` outside SVG/MathML is a bogus comment that ends at the next `>` (browsers and jsdom);
 * htmlparser2 instead swallows everything up to `]]>`, sometimes the whole body. The bogus comment is dropped
 * before parsing, as a browser would.
 */
function withoutMarkupCdata(html: string): string {
  return html.includes('<![CDATA[') ? html.replace(MARKUP_CDATA, '') : html;
}

/**
 * A tree built from htmlparser2's events keeps elements found between `</head>` and `<body>` (a `<script>`
 * there is common) as siblings of `<body>`, and its `document.body` then answers a new, empty body. Browsers
 * move such nodes into the body; so does this, so that `document.body` is the page's body.
 */
function repairStrayBodyContent(document: Document): void {
  const html = document.documentElement;
  // A page of text alone has no root element, and `head` then throws (the page is wrapped instead).
  if (!html) return;
  const head = document.head as Element | null;
  if (!head || head.nextElementSibling?.tagName.toUpperCase() === 'BODY') return;
  const children = Array.from(html.childNodes);
  const body = children.find(
    (node): node is Element => node.nodeType === 1 && (node as Element).tagName.toUpperCase() === 'BODY',
  );
  if (!body) return;
  const before: Node[] = [];
  for (const node of children) {
    if (node === head || node === body) continue;
    if (node.nodeType === 1 && (node as Element).tagName.toUpperCase() === 'BODY') {
      // A second <body>: its content belongs to the first.
      body.append(...Array.from(node.childNodes));
      node.parentNode?.removeChild(node);
    } else if (body.compareDocumentPosition(node) & 2 /* PRECEDING */) {
      before.push(node);
    } else {
      body.appendChild(node);
    }
  }
  body.prepend(...before);
  head.after(body);
}

/** What a tree walker shows: `NodeFilter.SHOW_ELEMENT`, `SHOW_TEXT`, `SHOW_CDATA_SECTION` (no global `NodeFilter` in Node.js). */
export const SHOW = { ELEMENT: 0x1, TEXT: 0x4, CDATA_SECTION: 0x8 } as const;

/**
 * Whether `show` (`SHOW` flags) names nodes of this type, as a tree walker reads it: each flag is
 * `1 << (nodeType - 1)` (elements, texts and CDATA sections only).
 */
export function isShown(nodeType: number, show: number): boolean {
  return (nodeType === 1 || nodeType === 3 || nodeType === 4) && (show & (1 << (nodeType - 1))) !== 0;
}

/**
 * Every node below `root` of the kinds `show` names (`SHOW` flags: elements, texts, CDATA sections) in
 * document order (for a document: from its root element on), or only those `accept` answers true for. On
 * our small DOM a walk along its tree, no list built to copy; on another DOM (a reference DOM in tests) a
 * tree walker (linkedom's `getElementsByTagName('*')` answers nothing, and a selector query costs more).
 */
export function descendantNodes(
  root: Element | Document,
  show: number,
  accept?: (node: Node) => boolean,
): Node[] {
  if (isLiteNode(root)) return liteDescendants(root, show, accept);
  const document = root.nodeType === 9 ? (root as Document) : root.ownerDocument;
  if (!document) return [];
  const walker = document.createTreeWalker(root, show);
  const out: Node[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!accept || accept(node)) out.push(node);
  }
  return out;
}

/** Every element below `root` in document order, or only those `accept` answers true for ({@link descendantNodes}). */
export function descendantElements(
  root: Element | Document,
  accept?: (element: Element) => boolean,
): Element[] {
  return descendantNodes(root, SHOW.ELEMENT, accept as ((node: Node) => boolean) | undefined) as Element[];
}

/** {@link descendantNodes} on our small DOM: along its tree, no list built to copy. */
function liteDescendants(root: LiteNode, show: number, accept?: (node: Node) => boolean): Node[] {
  const out: Node[] = [];
  for (let node = root.firstChild; node !== null; node = nextInTree(node, root)) {
    if (isShown(node.nodeType, show) && (!accept || accept(node as unknown as Node)))
      out.push(node as unknown as Node);
  }
  return out;
}
