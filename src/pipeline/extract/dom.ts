/** HTML parsing into a DOM: our small DOM (fastest), linkedom, or jsdom (full fidelity). */
import { DOMParser } from 'linkedom';
import type * as Jsdom from 'jsdom';
import { isLiteNode, nextInTree, parseLiteDocument, type LiteNode } from './lite-dom.ts';

/**
 * The DOM implementations that can parse a page: `lite`, ours (lite-dom.ts: the fastest, the same results as
 * linkedom), `linkedom`, or `jsdom` (a full browser-grade DOM, many times slower).
 */
export const DOM_IMPLEMENTATIONS = ['lite', 'linkedom', 'jsdom'] as const;

/** Which DOM implementation parses the page. */
export type DomImplementation = (typeof DOM_IMPLEMENTATIONS)[number];

/** The DOM pages are parsed into unless an option names another. */
export const DEFAULT_DOM: DomImplementation = 'lite';

/** A parsed page; call `dispose` when done so jsdom can free its window. */
export interface ParsedDocument {
  readonly document: Document;
  dispose(): void;
}

type JsdomModule = typeof Jsdom;
let jsdomModule: Promise<JsdomModule> | undefined;

/** jsdom is loaded lazily: most callers never need it and it is slow to import. */
function loadJsdom(): Promise<JsdomModule> {
  jsdomModule ??= import('jsdom');
  return jsdomModule;
}

/**
 * linkedom's document alone: its `parseHTML` also makes a window, kept in a module-wide `WeakMap` whose values
 * V8's minor collections keep alive, and with it each page's whole DOM until a full collection.
 */
function parseHtmlDocument(html: string): Document {
  return new DOMParser().parseFromString(html, 'text/html') as unknown as Document;
}

/** Our small DOM's document ({@link parseLiteDocument}), built as linkedom builds its own. */
function parseLiteHtmlDocument(html: string): Document {
  return parseLiteDocument(html) as unknown as Document;
}

/** Parses an HTML string. `url` becomes the document URL (jsdom) and is used to resolve links. */
export async function parseDocument(
  html: string,
  url: string,
  dom: DomImplementation,
): Promise<ParsedDocument> {
  if (dom === 'jsdom') {
    const { JSDOM, VirtualConsole } = await loadJsdom();
    // A silent console: pages' broken CSS would otherwise flood stderr.
    const window = new JSDOM(html, { url: safeUrl(url), virtualConsole: new VirtualConsole() }).window;
    return { document: window.document, dispose: () => window.close() };
  }
  const parse = dom === 'lite' ? parseLiteHtmlDocument : parseHtmlDocument;
  let document = parse(withoutMarkupCdata(html));
  repairStrayBodyContent(document);
  // linkedom builds no <html>/<body> for a fragment (browsers and jsdom do): wrap it and parse again.
  if (document.documentElement?.tagName.toUpperCase() !== 'HTML' || !document.body) {
    document = parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`);
  }
  return { document, dispose: () => undefined };
}

/** `<![CDATA[` in HTML markup (not in a script's `//<![CDATA[`), up to the first `>`. */
const MARKUP_CDATA = /(?<!\/\/[ \t]*|\/\*[ \t]*)<!\[CDATA\[[^>]*>/g;

/**
 * In HTML, `<![CDATA[` outside SVG/MathML is a bogus comment that ends at the next `>` (browsers and jsdom);
 * linkedom's parser instead swallows everything up to `]]>`, sometimes the whole body. The bogus comment is
 * dropped before linkedom parses, as a browser would.
 */
function withoutMarkupCdata(html: string): string {
  return html.includes('<![CDATA[') ? html.replace(MARKUP_CDATA, '') : html;
}

/**
 * linkedom keeps elements found between `</head>` and `<body>` (a `<script>` there is common) as siblings of
 * `<body>`, and its `document.body` then answers a new, empty body. Browsers move such nodes into the body;
 * so does this, so that `document.body` is the page's body.
 */
function repairStrayBodyContent(document: Document): void {
  const html = document.documentElement;
  // A page of text alone has no root element, and linkedom's `head` then throws (the page is wrapped below).
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

function safeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return 'about:blank';
  }
}

/** What a tree walker shows: `NodeFilter.SHOW_ELEMENT`, `SHOW_TEXT`, `SHOW_CDATA_SECTION` (no global `NodeFilter` in Node.js). */
export const SHOW = { ELEMENT: 0x1, TEXT: 0x4, CDATA_SECTION: 0x8 } as const;

/**
 * Whether `show` (`SHOW` flags) names nodes of this type, as a tree walker reads it: each flag is
 * `1 << (nodeType - 1)` (elements, texts and CDATA sections; never attributes or linkedom's end markers).
 */
export function isShown(nodeType: number, show: number): boolean {
  return (nodeType === 1 || nodeType === 3 || nodeType === 4) && (show & (1 << (nodeType - 1))) !== 0;
}

/**
 * Lists the nodes below a root of the kinds `show` names (`SHOW` flags) straight from a DOM's own structures,
 * or answers undefined for a root it does not know (see {@link useDescendantLister}).
 */
export type DescendantLister = (
  root: Element | Document,
  show: number,
  accept?: (node: Node) => boolean,
) => Node[] | undefined;

let descendantLister: DescendantLister | undefined;

/**
 * Makes {@link descendantNodes} and {@link descendantElements} ask `lister` first: extraction workers list
 * linkedom's nodes from its node list directly (worker-dom.ts), with no tree walker building a list to copy.
 */
export function useDescendantLister(lister: DescendantLister): void {
  descendantLister = lister;
}

/**
 * Every node below `root` of the kinds `show` names (`SHOW` flags: elements, texts, CDATA sections) in
 * document order (for a document: from its root element on), or only those `accept` answers true for. A
 * tree walker: linkedom keeps the whole document as one list of nodes in document order and answers it by
 * running along that list, without the per-element child and sibling look-ups of a recursive walk (its
 * `getElementsByTagName('*')` answers nothing, and a selector query costs more on both DOMs).
 */
export function descendantNodes(
  root: Element | Document,
  show: number,
  accept?: (node: Node) => boolean,
): Node[] {
  if (isLiteNode(root)) return liteDescendants(root, show, accept);
  const listed = descendantLister?.(root, show, accept);
  if (listed) return listed;
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
