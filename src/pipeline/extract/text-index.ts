/**
 * Text lengths of every element of a subtree, measured in one pass. The clean-up rules ask, for many
 * nested blocks, how long their text is once whitespace is collapsed (`textContent.replace(/\s+/g, ' ')
 * .trim().length`) and how much of it sits in links. Asking each element reads its whole subtree again, so
 * a page of nested wrappers cost time in proportion to its size times its depth; here each text node is
 * read once and the lengths are summed bottom-up.
 *
 * The figures are a snapshot: they hold for an element as long as nothing inside it has changed since
 * {@link indexText}. The rules visit elements in document order and only remove, so an element's own
 * subtree is intact when it is visited (what was removed before it was beside it or contained it).
 */
import { descendantNodes, SHOW } from './dom.ts';

/** Whether a UTF-16 code unit is whitespace to JavaScript's `\s` (and so to `trim()`). */
export function isSpace(code: number): boolean {
  if (code > 32 && code < 160) return false;
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The collapsed length of one text node's data, and whether it starts / ends with whitespace. */
interface TextNodeMeasure {
  readonly text: string;
  readonly length: number;
  readonly startsWithSpace: boolean;
  readonly endsWithSpace: boolean;
}

function measureText(text: string): TextNodeMeasure {
  // Words of the text, and the single spaces between them.
  let length = 0;
  let spaceBefore = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      spaceBefore = length > 0;
    } else {
      if (spaceBefore) length++;
      spaceBefore = false;
      length++;
    }
  }
  return {
    text,
    length,
    startsWithSpace: isSpace(text.charCodeAt(0)),
    endsWithSpace: isSpace(text.charCodeAt(text.length - 1)),
  };
}

/**
 * Where a document keeps its text node measures: on the document itself, dropped with it. In a module-wide
 * `WeakMap` they would keep each page's whole DOM alive through V8's minor collections, which keep the values
 * of such a table alive (see "Pages kept alive" in docs/benchmarks.md).
 */
const TEXT_MEASURES = Symbol('citewise text measures');

type MeasuredDocument = Document & { [TEXT_MEASURES]?: Map<Node, TextNodeMeasure> };

function textMeasures(document: Document): Map<Node, TextNodeMeasure> {
  return ((document as MeasuredDocument)[TEXT_MEASURES] ??= new Map<Node, TextNodeMeasure>());
}

/**
 * Collapsed-whitespace measure of a run of text, built by appending texts in order: `length` is the length
 * of the text with whitespace runs collapsed to one space and trimmed.
 */
class TextMeasure {
  length = 0;
  /** Whether any character was appended, and whether the first / last one was whitespace. */
  empty = true;
  startsWithSpace = false;
  endsWithSpace = false;
  /** Sum of the lengths of the `<a>` elements inside (filled in by {@link indexText}). */
  linkLength = 0;

  /**
   * Appends a text node's data, measured once per page (the clean-up rules index a page several times):
   * `measures` are its document's.
   */
  appendText(node: Node, measures: Map<Node, TextNodeMeasure> | undefined): void {
    const text = node.nodeValue ?? '';
    if (text === '') return;
    let measure = measures?.get(node);
    if (measure?.text !== text) {
      measure = measureText(text);
      measures?.set(node, measure);
    }
    this.#append(measure.length, measure.startsWithSpace, measure.endsWithSpace);
  }

  /** Appends the measure of a child element's text. */
  appendMeasure(other: TextMeasure): void {
    if (!other.empty) this.#append(other.length, other.startsWithSpace, other.endsWithSpace);
  }

  #append(length: number, startsWithSpace: boolean, endsWithSpace: boolean): void {
    if (this.empty) {
      this.startsWithSpace = startsWithSpace;
      this.empty = false;
    } else if (this.length > 0 && length > 0 && (this.endsWithSpace || startsWithSpace)) {
      this.length++;
    }
    this.length += length;
    this.endsWithSpace = endsWithSpace;
  }
}

/** Lengths of the elements of one subtree. */
export interface TextIndex {
  /** Length of the element's text with whitespace collapsed and trimmed (0 for an element not indexed). */
  length(element: Element): number;
  /** Sum of that length over the `<a>` elements inside the element (not the element itself). */
  linkLength(element: Element): number;
}

const ELEMENT_NODE = 1;

/** Measures every element under `root` (and `root`) in one pass over its text nodes. */
export function indexText(root: Element): TextIndex {
  const measured = new Map<Element, TextMeasure>();
  const document = root.ownerDocument;
  const measures = textMeasures(document);
  // The elements open at the current node (root down to its parent), each with its measure so far. The nodes
  // come in document order; an element is closed, and its measure added to its parent's, when a node outside
  // it comes.
  const open: Element[] = [root];
  const openMeasures: TextMeasure[] = [new TextMeasure()];
  const close = (): void => {
    const element = open.pop()!;
    const measure = openMeasures.pop()!;
    measured.set(element, measure);
    const parent = openMeasures[openMeasures.length - 1]!;
    parent.appendMeasure(measure);
    parent.linkLength += measure.linkLength;
    if (element.localName === 'a') parent.linkLength += measure.length;
  };
  for (const node of descendantNodes(root, SHOW.ELEMENT | SHOW.TEXT | SHOW.CDATA_SECTION)) {
    const parent = node.parentNode;
    while (open.length > 1 && open[open.length - 1] !== parent) close();
    if (node.nodeType === ELEMENT_NODE) {
      open.push(node as Element);
      openMeasures.push(new TextMeasure());
    } else {
      openMeasures[openMeasures.length - 1]!.appendText(node, measures);
    }
  }
  while (open.length > 1) close();
  measured.set(root, openMeasures[0]!);
  return {
    length: (element) => measured.get(element)?.length ?? 0,
    linkLength: (element) => measured.get(element)?.linkLength ?? 0,
  };
}

/**
 * The text index of a subtree, shared by clean-up passes that run one after another on it: built again only
 * when a pass before removed something (on most pages most passes remove nothing). A pass reads its
 * snapshot while it removes, as with an index of its own, and removes through {@link SharedTextIndex.remove}
 * (or reports removals made otherwise with {@link SharedTextIndex.changed}).
 */
export class SharedTextIndex {
  readonly root: Element;
  #index: TextIndex | undefined;

  /** `index`, when given, may measure a larger subtree holding `root`: an element's figures are its own. */
  constructor(root: Element, index?: TextIndex) {
    this.root = root;
    this.#index = index;
  }

  /** The index of the subtree as it is now. */
  get(): TextIndex {
    this.#index ??= indexText(this.root);
    return this.#index;
  }

  /** Removes an element of the subtree: the next {@link get} indexes the subtree again. */
  remove(element: Element): void {
    element.remove();
    this.#index = undefined;
  }

  /** After elements of the subtree were removed or moved other than through {@link remove}. */
  changed(): void {
    this.#index = undefined;
  }
}

/**
 * Length of the element's text with whitespace collapsed and trimmed, as {@link TextIndex.length} measures
 * it, read from the element as it is now: one walk over its text nodes (each measured once per page), with
 * no text built.
 */
export function collapsedTextLength(element: Element): number {
  const document = element.ownerDocument;
  const measures = textMeasures(document);
  const measure = new TextMeasure();
  for (const node of descendantNodes(element, SHOW.TEXT | SHOW.CDATA_SECTION))
    measure.appendText(node, measures);
  return measure.length;
}

/** The element's text with whitespace collapsed and trimmed (what {@link TextIndex.length} measures). */
export function normalizedText(element: Element): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}
