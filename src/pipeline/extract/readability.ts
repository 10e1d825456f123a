/**
 * Running Mozilla's Readability on a parsed page, with six private methods of Readability replaced by
 * equivalents that cost less on large pages (each answers exactly as the original; tests compare them):
 *
 * - The byline test ran on every node it visits and measured the node's whole text (`textContent`) before
 *   the cheap tests (`rel`, `itemprop`, class and id) that nearly every node fails: the page's text times its
 *   depth. {@link isValidByline} measures the text last.
 * - The visibility test reads `node.style` on every node, which our small DOM does not build (Readability
 *   would then take every node for visible; linkedom, whose results the small DOM reproduces, builds one per
 *   element and keeps it in a module-wide `WeakMap`, which keeps the page alive through V8's minor
 *   collections). {@link isProbablyVisible} reads only nodes with a `style` attribute, from the attribute, as
 *   linkedom's style object would ({@link inlineStyleValue}).
 * - Nodes by tag name were found with a selector query (a selector compiled and matched per call);
 *   {@link elementsWithTag} walks the subtree once.
 * - The test for empty containers ran on every `div`, `section`, `header` and heading of the page, top down,
 *   and built each one's whole text (`textContent`) to see whether it is blank: a quarter of all the text
 *   Readability builds on slow pages. {@link isElementWithoutContent} stops at the first text that is not.
 *
 * - Link and text densities built each node's whole text only to take its length; {@link linkDensity} and
 *   {@link textDensity} measure the lengths without building the texts ({@link collapsedTextLength}).
 *
 * Between attempts the page is put back from a snapshot instead of from its serialized HTML
 * ({@link restorePagesFromSnapshots}).
 *
 * One more is wrapped: {@link InnerTextMemo} remembers each node's text while Readability decides, node by
 * node, which nodes of a list to remove (its conditional clean-up asks for the same node's text four times,
 * and for every text-holding descendant's in each ancestor's text density). And the article's HTML, which
 * `parse` builds only for a debug message it drops, is not built ({@link skipArticleDebugSerialization}).
 *
 * Nothing here keeps a page after it is done: V8's minor collections keep alive whatever outlives the page
 * (a hidden class made for a closure's accessor, a constructor's context), and with it the page's whole DOM.
 * The hooks are the same functions on every page, and Readability is built on a stand-in document
 * ({@link readabilityFor}).
 *
 * All of this relies on Readability's private methods and on the order of statements in `parse`,
 * `_grabArticle` and its constructor, as they are in version {@link READABILITY_VERSION}: package.json pins
 * that version exactly, and a test fails when the installed one differs, so that an upgrade is checked
 * against the new source (and the tests here, which compare each replacement with the original) before it
 * is taken. Nothing reads Readability's source at run time.
 */
import { descendantElements } from './dom.ts';
import { isLiteNode, parseLiteDocument } from './lite-dom.ts';
import { collapsedTextLength } from './text-index.ts';
import { Readability } from '@mozilla/readability';

/**
 * The version of @mozilla/readability whose private methods and statements this module was checked against;
 * package.json pins it exactly (a test compares both with the installed version).
 */
export const READABILITY_VERSION = '0.6.0';

/** What Readability's private methods replaced here, and the byline pattern, look like ({@link READABILITY_VERSION}). */
interface ReadabilityInternals {
  _isValidByline?: (node: Element, matchString: string) => boolean;
  _isProbablyVisible?: (node: Element) => boolean;
  _getAllNodesWithTag?: (node: Element | Document, tagNames: readonly string[]) => ArrayLike<Element>;
  _isElementWithoutContent?: (node: Node) => boolean;
  _getInnerText?: (node: Element, normalizeSpaces?: boolean) => string;
  _getLinkDensity?: (element: Element) => number;
  _getTextDensity?: (element: Element, tags: readonly string[]) => number;
  _removeNodes?: (
    nodes: ArrayLike<Element>,
    filter?: (this: unknown, node: Element, index: number, nodes: ArrayLike<Element>) => boolean,
  ) => void;
  _grabArticle?: (page?: Element) => Element | null;
  _postProcessContent?: (article: Element) => void;
  _attempts?: { articleContent: Element; textLength: number }[];
  readonly REGEXPS?: { readonly byline?: RegExp; readonly hashUrl?: RegExp };
}

/**
 * Readability's byline test (`rel="author"`, an `itemprop` with `author`, or a class/id matching
 * `bylinePattern`, on a node with 1–99 characters of text), measuring the text only when the rest holds.
 */
export function isValidByline(node: Element, matchString: string, bylinePattern: RegExp): boolean {
  const itemprop = node.getAttribute('itemprop');
  const named =
    node.getAttribute('rel') === 'author' ||
    (itemprop !== null && itemprop.includes('author')) ||
    bylinePattern.test(matchString);
  if (!named) return false;
  const length = (node.textContent ?? '').trim().length;
  return length > 0 && length < 100;
}

/**
 * What linkedom's style object answers for `property` of an inline style (our small DOM answers as linkedom
 * does): declarations split at `;`, each at its first `:`, name and value trimmed, declarations without
 * either skipped, the last one winning; '' when there is none.
 */
export function inlineStyleValue(inlineStyle: string, property: string): string {
  let value = '';
  for (const declaration of inlineStyle.split(/\s*;\s*/)) {
    const colon = declaration.indexOf(':');
    if (colon === -1 || declaration.slice(0, colon).trim() !== property) continue;
    const declared = declaration.slice(colon + 1).trim();
    if (declared !== '') value = declared;
  }
  return value;
}

/**
 * Readability's visibility test: not `display: none` or `visibility: hidden` inline, no `hidden` attribute,
 * not `aria-hidden="true"` unless it is a "fallback-image" (Wikimedia's maths). The style is read only when
 * there is a `style` attribute (without one it is empty): on our small DOM from the attribute itself, on
 * another DOM (a reference DOM in tests) from its style object.
 */
export function isProbablyVisible(node: Element): boolean {
  const inlineStyle = node.getAttribute('style');
  if (inlineStyle !== null) {
    if (isLiteNode(node)) {
      const display = inlineStyleValue(inlineStyle, 'display');
      if (display === 'none' || inlineStyleValue(inlineStyle, 'visibility') === 'hidden') return false;
    } else {
      const style = (node as Partial<ElementCSSInlineStyle>).style;
      if (style && (style.display === 'none' || style.visibility === 'hidden')) return false;
    }
  }
  if (node.hasAttribute('hidden')) return false;
  if (node.getAttribute('aria-hidden') !== 'true') return true;
  const className: unknown = node.className;
  return typeof className === 'string' && className.includes('fallback-image');
}

/**
 * The elements below `node` whose tag is one of `tagNames`, in document order: what `querySelectorAll` of
 * the names joined by commas answers (tag names compared lower-cased, as in an HTML document).
 */
export function elementsWithTag(node: Element | Document, tagNames: readonly string[]): Element[] {
  const wanted = new Set(tagNames.map((name) => name.toLowerCase()));
  return descendantElements(node, (element) => wanted.has(element.localName.toLowerCase()));
}

/**
 * Whether some text below `node` is more than whitespace: what `node.textContent.trim() !== ''` answers (the
 * text of an element is its Text and CDATA descendants' joined, and it trims to nothing only when each of
 * them does), stopping at the first such text instead of building the whole.
 */
export function hasNonBlankText(node: Node): boolean {
  let current: Node | null = node.firstChild;
  while (current) {
    const type = current.nodeType;
    if (type === 3 /* TEXT */ || type === 4 /* CDATA_SECTION */) {
      if ((current as CharacterData).data.trim() !== '') return true;
    } else if (type === 1 /* ELEMENT */ && current.firstChild) {
      current = current.firstChild;
      continue;
    }
    // The next node in document order that is not below `current`, without leaving `node`.
    let next: Node | null = current.nextSibling;
    while (!next) {
      const parent: Node | null = current.parentNode;
      if (!parent || parent === node) return false;
      current = parent;
      next = current.nextSibling;
    }
    current = next;
  }
  return false;
}

/**
 * Readability's test for an element with no content: no text but whitespace, and no children other than
 * `<br>` and `<hr>` elements (at any depth).
 */
export function isElementWithoutContent(node: Node): boolean {
  if (node.nodeType !== 1 || hasNonBlankText(node)) return false;
  const { children } = node as Element;
  return (
    children.length === 0 ||
    children.length ===
      (node as Element).getElementsByTagName('br').length +
        (node as Element).getElementsByTagName('hr').length
  );
}

/**
 * The texts Readability's `_getInnerText` answered (trimmed, and with runs of whitespace made one space when
 * asked), kept only while `_removeNodes` runs a filter: filters only read the page, and the loop's own
 * removals change the text of the removed node's ancestors, which are forgotten then.
 */
export class InnerTextMemo {
  #active = 0;
  readonly #normalized = new Map<Node, string>();
  readonly #trimmed = new Map<Node, string>();
  readonly #lengths = new Map<Node, number>();

  /** Remembers texts until {@link stop} (calls nest). */
  start(): void {
    this.#active++;
  }

  /** Forgets every text once the outermost {@link start} is stopped. */
  stop(): void {
    if (--this.#active > 0) return;
    this.#active = 0;
    this.#normalized.clear();
    this.#trimmed.clear();
    this.#lengths.clear();
  }

  /** Before `node` is removed: its ancestors' texts change. */
  forgetAncestorsOf(node: Node): void {
    for (let ancestor = node.parentNode; ancestor; ancestor = ancestor.parentNode) {
      this.#normalized.delete(ancestor);
      this.#trimmed.delete(ancestor);
      this.#lengths.delete(ancestor);
    }
  }

  /** `compute(node)` or, while remembering, what it answered for `node` before. */
  text(node: Node, normalizeSpaces: boolean, compute: () => string): string {
    if (this.#active === 0) return compute();
    const texts = normalizeSpaces ? this.#normalized : this.#trimmed;
    let text = texts.get(node);
    if (text === undefined) {
      text = compute();
      texts.set(node, text);
    }
    return text;
  }

  /**
   * `compute(node)`, the length of the node's normalized text, or while remembering, that text's length or
   * what `compute` answered before.
   */
  length<N extends Node>(node: N, compute: (node: N) => number): number {
    if (this.#active === 0) return compute(node);
    const text = this.#normalized.get(node);
    if (text !== undefined) return text.length;
    let length = this.#lengths.get(node);
    if (length === undefined) {
      length = compute(node);
      this.#lengths.set(node, length);
    }
    return length;
  }
}

/**
 * Readability's link density: the length of the text in the element's links (a link to a fragment of the
 * page counting 0.3 of it) over the length of the element's text, 0 when it has none. `textLength` answers
 * what `_getInnerText(node).length` would, without building the text.
 */
export function linkDensity(
  element: Element,
  textLength: (node: Element) => number,
  hashUrlPattern: RegExp,
): number {
  const length = textLength(element);
  if (length === 0) return 0;
  let linkLength = 0;
  // Summed in document order as Readability does, so that the float is the same.
  for (const link of Array.from(element.getElementsByTagName('a'))) {
    const href = link.getAttribute('href');
    const coefficient = href && hashUrlPattern.test(href) ? 0.3 : 1;
    linkLength += textLength(link) * coefficient;
  }
  return linkLength / length;
}

/** Readability's text density: the text length of the elements below `element` with one of `tags` over its own. */
export function textDensity(
  element: Element,
  tags: readonly string[],
  textLength: (node: Element) => number,
): number {
  const length = textLength(element);
  if (length === 0) return 0;
  let childrenLength = 0;
  for (const child of elementsWithTag(element, tags)) childrenLength += textLength(child);
  return childrenLength / length;
}

/**
 * Readability's link and text densities measured without building texts ({@link collapsedTextLength}), and
 * through `memo` while it remembers.
 */
export function measureDensities(internals: ReadabilityInternals, memo: InnerTextMemo): void {
  const textLength = (node: Element): number => memo.length(node, collapsedTextLength);
  const hashUrlPattern = internals.REGEXPS?.hashUrl;
  if (typeof internals._getLinkDensity === 'function' && hashUrlPattern) {
    internals._getLinkDensity = (element) => linkDensity(element, textLength, hashUrlPattern);
  }
  if (typeof internals._getTextDensity === 'function') {
    internals._getTextDensity = (element, tags) => textDensity(element, tags, textLength);
  }
}

/** Readability's `_getInnerText` and `_removeNodes` made to use `memo` (the originals do the work). */
export function memoizeInnerText(internals: ReadabilityInternals, memo: InnerTextMemo): void {
  const getInnerText = internals._getInnerText;
  const removeNodes = internals._removeNodes;
  if (typeof getInnerText !== 'function' || typeof removeNodes !== 'function') return;
  internals._getInnerText = function (this: unknown, node, normalizeSpaces) {
    return memo.text(node, normalizeSpaces ?? true, () => getInnerText.call(this, node, normalizeSpaces));
  };
  internals._removeNodes = function (this: unknown, nodes, filter) {
    if (!filter) return removeNodes.call(this, nodes);
    memo.start();
    try {
      removeNodes.call(this, nodes, function (this: unknown, node, index, list) {
        const remove = filter.call(this, node, index, list);
        if (remove) memo.forgetAncestorsOf(node);
        return remove;
      });
    } finally {
      memo.stop();
    }
  };
}

/**
 * Readability's `parse` serializes the article it grabbed into a debug message (`this.log("Grabbed: " +
 * articleContent.innerHTML)`, the first read of the article's HTML after `_grabArticle` answers it) that it
 * drops when not debugging: the article's whole HTML built for nothing. The grabbed article answers its next
 * `innerHTML` read with '' (once, and in any case no later than when its post-processing starts).
 */
export function skipArticleDebugSerialization(internals: ReadabilityInternals): void {
  const grabArticle = internals._grabArticle;
  const postProcessContent = internals._postProcessContent;
  if (typeof grabArticle !== 'function' || typeof postProcessContent !== 'function') return;
  internals._grabArticle = function (this: unknown, page) {
    const article = grabArticle.call(this, page);
    if (article) {
      Object.defineProperty(article, 'innerHTML', { configurable: true, get: innerHtmlSkippedOnce });
    }
    return article;
  };
  internals._postProcessContent = function (this: unknown, article) {
    Reflect.deleteProperty(article, 'innerHTML');
    postProcessContent.call(this, article);
  };
}

/**
 * The grabbed article's `innerHTML` for Readability's debug line: '' once, then the element's own again. One
 * function for every page, reading only `this`: an accessor closing over the page would keep its DOM alive
 * through V8's minor collections (the hidden class made for the accessor outlives the page).
 */
function innerHtmlSkippedOnce(this: Element): string {
  Reflect.deleteProperty(this, 'innerHTML');
  return '';
}

/** Readability's marks on the elements it scores: fresh nodes, as a parse would make them, have none. */
const READABILITY_MARKS = ['readability', '_readabilityDataTable'] as const;

/**
 * Readability serializes the page (`var pageCacheHtml = page.innerHTML`) before its search and, when an
 * attempt keeps under 500 characters, parses that HTML into the page again (`page.innerHTML = pageCacheHtml`,
 * right before it records the attempt in `_attempts`) for one more with fewer rules: on the slowest article
 * pages, a serialization on each and up to three parses of the page (see the extraction profile in
 * docs/benchmarks.md). Where the DOM can record its document (`snapshot`: our small DOM's
 * `snapshotLiteDocument`), the page answers that read with a marker and a snapshot of the document; given the
 * marker back, it is restored from the snapshot and its elements lose Readability's marks. The failed
 * attempt's article, which Readability keeps as a last resort, holds nodes of the page that the restore moves
 * back: it is kept as a copy. Each attempt then starts from the very page the first one did (a parse of the
 * serialized page differs in small ways, such as joining adjacent texts). Without `snapshot` Readability
 * serializes and parses as it always does. Returns the function that removes the hooks.
 */
export function restorePagesFromSnapshots(
  internals: ReadabilityInternals,
  document: Document,
  snapshot: (() => () => void) | undefined,
): () => void {
  const page = document.body as Element | null;
  const attempts = internals._attempts;
  if (!page || !Array.isArray(attempts) || !snapshot) return () => undefined;
  const restore: PageRestore = {
    takeSnapshot: snapshot,
    page,
    marker: `<!-- citewise: the page as before Readability's first attempt ${Math.random()} -->`,
    snapshot: undefined,
    restorePending: false,
  };
  (page as WithPageRestore)[PAGE_RESTORE] = restore;
  (attempts as WithPageRestore)[PAGE_RESTORE] = restore;
  Object.defineProperty(page, 'innerHTML', { configurable: true, get: cachedPageHtml, set: restorePageHtml });
  Object.defineProperty(attempts, 'push', { configurable: true, writable: true, value: recordAttempt });
  return () => {
    Reflect.deleteProperty(page, 'innerHTML');
    Reflect.deleteProperty(attempts, 'push');
    Reflect.deleteProperty(page, PAGE_RESTORE);
    Reflect.deleteProperty(attempts, PAGE_RESTORE);
  };
}

/** Readability's record of an attempt. */
type Attempt = NonNullable<ReadabilityInternals['_attempts']>[number];

/**
 * What the hooks of {@link restorePagesFromSnapshots} share, kept on the page element and on Readability's
 * list of attempts: the hooks are the same functions for every page and read it from `this`. (Accessors
 * closing over the page would keep its DOM alive through V8's minor collections: the hidden class made for
 * each page's accessors outlives the page.)
 */
interface PageRestore {
  /** Records the document, answering the function that puts it back. */
  readonly takeSnapshot: () => () => void;
  readonly page: Element;
  /** What the page's `innerHTML` answers instead of its HTML, to be given back to restore it. */
  readonly marker: string;
  /** Puts the document back as it was when the page was first read. */
  snapshot: (() => void) | undefined;
  /** The marker was given back: the page is restored when the attempt is recorded. */
  restorePending: boolean;
}

const PAGE_RESTORE = Symbol('citewise page restore');

type WithPageRestore = { [PAGE_RESTORE]?: PageRestore };

/** The page's `innerHTML` read: a snapshot of the document and the marker. */
function cachedPageHtml(this: Element): string {
  const restore = (this as WithPageRestore)[PAGE_RESTORE];
  if (restore) {
    restore.snapshot = restore.takeSnapshot();
    return restore.marker;
  }
  Reflect.deleteProperty(this, 'innerHTML');
  return this.innerHTML;
}

/** The page's `innerHTML` written: the marker asks for the restore, anything else is parsed as HTML. */
function restorePageHtml(this: Element, html: string): void {
  const restore = (this as WithPageRestore)[PAGE_RESTORE];
  if (restore?.snapshot && html === restore.marker) {
    // Restored when the attempt is recorded, right after: its article must be copied first.
    restore.restorePending = true;
    return;
  }
  Reflect.deleteProperty(this, 'innerHTML');
  this.innerHTML = html;
}

/** Readability recording an attempt: the failed attempt's article copied, then the page restored. */
function recordAttempt(this: Attempt[], ...recorded: Attempt[]): number {
  const restore = (this as WithPageRestore)[PAGE_RESTORE];
  if (restore?.restorePending && restore.snapshot) {
    restore.restorePending = false;
    recorded = recorded.map((attempt) => ({
      ...attempt,
      articleContent: attempt.articleContent.cloneNode(true) as Element,
    }));
    restore.snapshot();
    for (const element of descendantElements(restore.page)) {
      const marked = element as unknown as Record<string, unknown>;
      for (const mark of READABILITY_MARKS) if (marked[mark] !== undefined) marked[mark] = undefined;
    }
  }
  return Array.prototype.push.apply(this, recorded);
}

/**
 * Readability's `charThreshold`: an article its strict pass finds with fewer characters is thrown away for
 * a looser pass, and when none reaches the threshold the longest is kept. Readability's default, 500, threw
 * away a short page's article (one paragraph of a wiki page, a product note) for a pass that kept the cookie
 * banner, the site's logo and the comments around it (and took a commenter for the byline). Below it, the
 * extractor's own fallback takes over (html.ts counts fewer characters as "found nothing"); WCXB and the article
 * benchmark give the same F1 with it (docs/benchmarks.md).
 */
export const ARTICLE_CHAR_THRESHOLD = 200;

/** The document Readability is constructed on ({@link readabilityFor}): one small page, kept for the process. */
let standIn: Document | undefined;

/**
 * Readability constructed for `document`. Readability's constructor keeps its document in a context that
 * outlives the page (its `log` function's, through sloppy-mode `arguments`): V8's minor collections then keep
 * the page's whole DOM alive (0.5 MB per page of the slow ones; see "Pages kept alive" in docs/benchmarks.md).
 * Its constructor reads the document only to check it and keep it (`this._doc = doc; this._docJSDOMParser =
 * this._doc.firstChild.__JSDOMParser__`), so the reader is built on a small stand-in document, kept for the
 * process, and then given the page as those statements would.
 */
export function readabilityFor(document: Document): Readability<Element> {
  standIn ??= parseLiteDocument(
    '<!doctype html><html><head></head><body></body></html>',
  ) as unknown as Document;
  const reader = new Readability<Element>(standIn, {
    serializer: (node: Node) => node as Element,
    keepClasses: true,
    charThreshold: ARTICLE_CHAR_THRESHOLD,
  });
  const fields = reader as unknown as { _doc: Document; _docJSDOMParser: unknown };
  fields._doc = document;
  fields._docJSDOMParser = (document.firstChild as { __JSDOMParser__?: unknown } | null)?.__JSDOMParser__;
  return reader;
}

/**
 * Readability's article element, or null when it finds nothing (or throws on odd markup). `snapshot` records
 * the document and answers the function that puts it back ({@link restorePagesFromSnapshots}).
 */
export function runReadability(
  document: Document,
  snapshot?: () => () => void,
): ReturnType<Readability<Element>['parse']> {
  try {
    const reader = readabilityFor(document);
    const internals = reader as unknown as ReadabilityInternals;
    const bylinePattern = internals.REGEXPS?.byline;
    // Only where the private methods exist as expected (a test fails if an upgrade renames them).
    if (typeof internals._isValidByline === 'function' && bylinePattern) {
      internals._isValidByline = (node, matchString) => isValidByline(node, matchString, bylinePattern);
    }
    if (typeof internals._isProbablyVisible === 'function') internals._isProbablyVisible = isProbablyVisible;
    if (typeof internals._getAllNodesWithTag === 'function') internals._getAllNodesWithTag = elementsWithTag;
    if (typeof internals._isElementWithoutContent === 'function') {
      internals._isElementWithoutContent = isElementWithoutContent;
    }
    const memo = new InnerTextMemo();
    memoizeInnerText(internals, memo);
    measureDensities(internals, memo);
    skipArticleDebugSerialization(internals);
    const removeRestoreHooks = restorePagesFromSnapshots(internals, document, snapshot);
    try {
      return reader.parse();
    } finally {
      removeRestoreHooks();
    }
  } catch {
    return null;
  }
}
