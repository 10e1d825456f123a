/**
 * A small DOM for extraction: the subset of the DOM that the extraction stages and Readability use, built
 * straight from htmlparser2's events into nodes that link to their parent, siblings and first and last child.
 *
 * linkedom keeps a page as one list of nodes in which every attribute and every element's end is a node as
 * well, and answers `firstChild`, `nextSibling`, `children` or `textContent` by walking that list; on the
 * slow pages the extraction stages walk it about twenty times, and building it is most of the parse (see the
 * extraction profile in docs/benchmarks.md). Here a sibling or a child is a field, attributes are a small
 * array, and a selector is compiled once per process (css-select, linkedom's own selector engine).
 *
 * The tree is the one linkedom builds from the same events (same parser, same options): every element
 * where the parser opens it, each text the parser reports as its own node. Where linkedom departs from the
 * DOM standard in ways the extraction's output depends on, this does the same, so that both give the same
 * result on every page (tests compare them on small pages, `npm run bench:extract:parity` on both benchmark
 * sets):
 * - `createElement(name)` keeps the name as written (`createElement('P')` has the local name `P`);
 * - a new attribute goes first (`setAttribute`, `setAttributeNode`), a parsed one in source order;
 * - `class` is kept as its tokens joined by single spaces, each once;
 * - `getElementsByTagName('*')` answers nothing, and selector queries skip the inside of `<template>`;
 * - `document.head` and `document.body` create the element when it is missing.
 */
import { Parser } from 'htmlparser2';
import { compile, type Options } from 'css-select';
import { isSpace } from './text-index.ts';
import { detachedCopy, MAX_CACHED_NAMES, nameTable } from './detached.ts';

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const COMMENT_NODE = 8;
const DOCUMENT_NODE = 9;
const DOCUMENT_FRAGMENT_NODE = 11;
/** `NodeFilter.SHOW_ALL`: a tree walker's default. */
const SHOW_ALL = 0xffffffff;

/** Upper-case tag names, computed once per name. */
const upperCase = nameTable((name) => name.toUpperCase());

/** An attribute: `name="value"`, owned by at most one element. */
export class LiteAttr {
  readonly nodeType = 2;
  readonly name: string;
  value: string;
  ownerElement: LiteElement | null = null;

  constructor(name: string, value: string) {
    this.name = name;
    this.value = value;
  }

  get localName(): string {
    return this.name;
  }

  get nodeName(): string {
    return this.name;
  }

  cloneNode(): LiteAttr {
    return new LiteAttr(this.name, this.value);
  }
}

/** Any node: its place in the tree, and the tree operations every kind of node answers. */
export abstract class LiteNode {
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;
  ownerDocument: LiteDocument;
  parentNode: LiteNode | null = null;
  previousSibling: LiteNode | null = null;
  nextSibling: LiteNode | null = null;
  /** Always null on texts and comments. */
  firstChild: LiteNode | null = null;
  lastChild: LiteNode | null = null;

  constructor(ownerDocument: LiteDocument | null) {
    // A document is its own owner here (the DOM's answers null; extraction never asks a document for it).
    this.ownerDocument = ownerDocument ?? (this as unknown as LiteDocument);
  }

  get parentElement(): LiteElement | null {
    const parent = this.parentNode;
    return parent !== null && parent.nodeType === ELEMENT_NODE ? (parent as LiteElement) : null;
  }

  get isConnected(): boolean {
    let node: LiteNode | null = this.parentNode;
    while (node !== null) {
      if (node.nodeType === DOCUMENT_NODE) return true;
      node = node.parentNode;
    }
    return false;
  }

  get nextElementSibling(): LiteElement | null {
    return elementAtOrAfter(this.nextSibling);
  }

  get previousElementSibling(): LiteElement | null {
    return elementAtOrBefore(this.previousSibling);
  }

  get childNodes(): LiteNode[] {
    const nodes: LiteNode[] = [];
    for (let child = this.firstChild; child !== null; child = child.nextSibling) nodes.push(child);
    return nodes;
  }

  get children(): LiteElement[] {
    const elements: LiteElement[] = [];
    for (let child = this.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType === ELEMENT_NODE) elements.push(child as LiteElement);
    }
    return elements;
  }

  get firstElementChild(): LiteElement | null {
    return elementAtOrAfter(this.firstChild);
  }

  get lastElementChild(): LiteElement | null {
    return elementAtOrBefore(this.lastChild);
  }

  get childElementCount(): number {
    return this.children.length;
  }

  hasChildNodes(): boolean {
    return this.firstChild !== null;
  }

  get textContent(): string | null {
    return collectText(this);
  }

  set textContent(text: string | null) {
    this.replaceChildren();
    if (text !== null && text !== '') this.appendChild(new LiteText(this.ownerDocument, String(text)));
  }

  get nodeValue(): string | null {
    return null;
  }

  contains(node: LiteNode | null): boolean {
    for (let current = node; current !== null; current = current.parentNode) {
      if (current === this) return true;
    }
    return false;
  }

  /** Takes the node out of its parent (the node and its subtree stay whole). */
  remove(): void {
    const parent = this.parentNode;
    if (parent === null) return;
    const { previousSibling, nextSibling } = this;
    if (previousSibling === null) parent.firstChild = nextSibling;
    else previousSibling.nextSibling = nextSibling;
    if (nextSibling === null) parent.lastChild = previousSibling;
    else nextSibling.previousSibling = previousSibling;
    this.parentNode = this.previousSibling = this.nextSibling = null;
  }

  insertBefore<T extends LiteNode>(node: T, before: LiteNode | null): T {
    if (node === before) return node;
    if ((node as LiteNode) === this) throw new Error('unable to append a node to itself');
    if (node.nodeType === DOCUMENT_FRAGMENT_NODE) {
      for (const child of node.childNodes) this.insertBefore(child, before);
      return node;
    }
    node.remove();
    const previous = before === null ? this.lastChild : before.previousSibling;
    node.parentNode = this;
    node.previousSibling = previous;
    node.nextSibling = before;
    if (previous === null) this.firstChild = node;
    else previous.nextSibling = node;
    if (before === null) this.lastChild = node;
    else before.previousSibling = node;
    return node;
  }

  appendChild<T extends LiteNode>(node: T): T {
    return this.insertBefore(node, null);
  }

  removeChild<T extends LiteNode>(node: T): T {
    if (node.parentNode !== this) throw new Error('node is not a child');
    node.remove();
    return node;
  }

  replaceChild<T extends LiteNode>(node: LiteNode, replaced: T): T {
    const next = replaced.nextSibling;
    replaced.remove();
    this.insertBefore(node, next === node ? node.nextSibling : next);
    return replaced;
  }

  append(...nodes: (LiteNode | string)[]): void {
    for (const node of nodes) this.insertBefore(this.asNode(node), null);
  }

  prepend(...nodes: (LiteNode | string)[]): void {
    const first = this.firstChild;
    for (const node of nodes) this.insertBefore(this.asNode(node), first);
  }

  replaceChildren(...nodes: (LiteNode | string)[]): void {
    while (this.firstChild !== null) this.firstChild.remove();
    this.append(...nodes);
  }

  before(...nodes: (LiteNode | string)[]): void {
    const parent = this.parentNode;
    if (parent !== null) for (const node of nodes) parent.insertBefore(this.asNode(node), this);
  }

  after(...nodes: (LiteNode | string)[]): void {
    const parent = this.parentNode;
    if (parent === null) return;
    const next = this.nextSibling;
    for (const node of nodes) parent.insertBefore(this.asNode(node), next);
  }

  replaceWith(...nodes: (LiteNode | string)[]): void {
    const parent = this.parentNode;
    if (parent === null) return;
    const next = this.nextSibling;
    this.remove();
    for (const node of nodes) parent.insertBefore(this.asNode(node), next);
  }

  /** Joins adjacent texts and drops empty ones, as `Node.normalize` does. */
  normalize(): void {
    for (let node = this.firstChild; node !== null;) {
      const next = node.nextSibling;
      if (node.nodeType === TEXT_NODE) {
        const text = node as LiteText;
        const previous = text.previousSibling;
        if (text.data === '') text.remove();
        else if (previous !== null && previous.nodeType === TEXT_NODE) {
          (previous as LiteText).data += text.data;
          text.remove();
        }
      } else if (node.firstChild !== null) {
        node.normalize();
      }
      node = next;
    }
  }

  /**
   * Where `other` is relative to this node (`Node.DOCUMENT_POSITION_*` flags): preceding (2) or following (4),
   * and containing (8) or contained (16).
   */
  compareDocumentPosition(other: LiteNode): number {
    if (other === this) return 0;
    if (this.contains(other)) return 4 | 16;
    if (other.contains(this)) return 2 | 8;
    const mine = ancestry(this);
    const theirs = ancestry(other);
    if (mine[0] !== theirs[0]) return 1 | 32;
    let depth = 0;
    while (mine[depth + 1] === theirs[depth + 1]) depth++;
    const parent = mine[depth]!;
    for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
      if (child === mine[depth + 1]) return 4;
      if (child === theirs[depth + 1]) return 2;
    }
    return 1 | 32;
  }

  abstract cloneNode(deep?: boolean): LiteNode;

  private asNode(node: LiteNode | string): LiteNode {
    return typeof node === 'string' ? new LiteText(this.ownerDocument, node) : node;
  }
}

/** `node` if it is an element, else the first element among the siblings after it. */
function elementAtOrAfter(node: LiteNode | null): LiteElement | null {
  while (node !== null && node.nodeType !== ELEMENT_NODE) node = node.nextSibling;
  return node as LiteElement | null;
}

/** `node` if it is an element, else the first element among the siblings before it (nearest first). */
function elementAtOrBefore(node: LiteNode | null): LiteElement | null {
  while (node !== null && node.nodeType !== ELEMENT_NODE) node = node.previousSibling;
  return node as LiteElement | null;
}

/** The node and its ancestors, the root first. */
function ancestry(node: LiteNode): LiteNode[] {
  const chain: LiteNode[] = [];
  for (let current: LiteNode | null = node; current !== null; current = current.parentNode)
    chain.push(current);
  return chain.reverse();
}

/** The node after `node` in document order, not leaving `root`'s subtree. */
export function nextInTree(node: LiteNode, root: LiteNode): LiteNode | null {
  return node.firstChild ?? nextAfterSubtree(node, root);
}

/** The node after `node`'s whole subtree in document order, not leaving `root`'s subtree. */
function nextAfterSubtree(node: LiteNode, root: LiteNode): LiteNode | null {
  for (
    let current: LiteNode | null = node;
    current !== null && current !== root;
    current = current.parentNode
  ) {
    if (current.nextSibling !== null) return current.nextSibling;
  }
  return null;
}

/** The text of a node's Text and CDATA descendants, in document order. */
function collectText(root: LiteNode): string {
  let text = '';
  for (let node = root.firstChild; node !== null; node = nextInTree(node, root)) {
    const type = node.nodeType;
    if (type === TEXT_NODE || type === CDATA_SECTION_NODE) text += (node as LiteCharacterData).data;
  }
  return text;
}

/** Text, CDATA sections and comments. */
export abstract class LiteCharacterData extends LiteNode {
  data: string;

  constructor(ownerDocument: LiteDocument, data: string) {
    super(ownerDocument);
    this.data = data;
  }

  override get textContent(): string {
    return this.data;
  }

  override set textContent(value: string | null) {
    this.data = value ?? '';
  }

  override get nodeValue(): string {
    return this.data;
  }

  override set nodeValue(value: string | null) {
    this.data = value ?? '';
  }

  get length(): number {
    return this.data.length;
  }
}

export class LiteText extends LiteCharacterData {
  readonly nodeType = TEXT_NODE;
  readonly nodeName = '#text';

  cloneNode(): LiteText {
    return new LiteText(this.ownerDocument, this.data);
  }
}

export class LiteCdataSection extends LiteCharacterData {
  readonly nodeType = CDATA_SECTION_NODE;
  readonly nodeName = '#cdata-section';

  cloneNode(): LiteCdataSection {
    return new LiteCdataSection(this.ownerDocument, this.data);
  }
}

export class LiteComment extends LiteCharacterData {
  readonly nodeType = COMMENT_NODE;
  readonly nodeName = '#comment';

  cloneNode(): LiteComment {
    return new LiteComment(this.ownerDocument, this.data);
  }
}

/** Elements and documents: the nodes that hold others and can be queried. */
abstract class LiteParentNode extends LiteNode {
  getElementsByTagName(name: string): LiteElement[] {
    const found: LiteElement[] = [];
    for (let node = this.firstChild; node !== null; node = nextInTree(node, this)) {
      if (node.nodeType === ELEMENT_NODE) {
        const element = node as LiteElement;
        if (element.localName === name || element.tagName === name) found.push(element);
      }
    }
    return found;
  }

  querySelectorAll(selectors: string): LiteElement[] {
    const matches = compiledSelector(selectors);
    const found: LiteElement[] = [];
    for (let node = this.firstChild; node !== null; node = nextOutsideTemplates(node, this)) {
      if (node.nodeType === ELEMENT_NODE && matches(node as LiteElement)) found.push(node as LiteElement);
    }
    return found;
  }

  querySelector(selectors: string): LiteElement | null {
    const matches = compiledSelector(selectors);
    for (let node = this.firstChild; node !== null; node = nextOutsideTemplates(node, this)) {
      if (node.nodeType === ELEMENT_NODE && matches(node as LiteElement)) return node as LiteElement;
    }
    return null;
  }
}

/** Document order inside `root`, not entering a `<template>` (as linkedom's selector queries). */
function nextOutsideTemplates(node: LiteNode, root: LiteNode): LiteNode | null {
  const isTemplate = node.nodeType === ELEMENT_NODE && (node as LiteElement).localName === 'template';
  return isTemplate ? nextAfterSubtree(node, root) : nextInTree(node, root);
}

/**
 * Whether a class attribute is already its tokens joined by single spaces, each once (most are: one pass over
 * the characters instead of splitting, collecting and joining them).
 */
export function isJoinedTokenList(text: string): boolean {
  const last = text.length - 1;
  let spaces = 0;
  for (let i = 0; i <= last; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      if (i === 0 || i === last || text.charCodeAt(i - 1) === 32) return false;
      spaces++;
    } else if (isSpace(code)) {
      return false;
    }
  }
  if (spaces === 0) return true;
  const tokens = text.split(' ');
  if (spaces > 8) return new Set(tokens).size === tokens.length;
  // A few tokens: compared pairwise, without building a set.
  for (let i = 1; i < tokens.length; i++) {
    for (let j = 0; j < i; j++) if (tokens[i] === tokens[j]) return false;
  }
  return true;
}

/** The tokens of a class attribute joined by single spaces, each once (how linkedom keeps `class`). */
export function joinedClassTokens(value: string): string {
  if (isJoinedTokenList(value)) return value;
  const tokens = new Set<string>();
  for (const token of value.split(/\s+/)) if (token !== '') tokens.add(token);
  return [...tokens].join(' ');
}

/** Elements with a `src` and a `srcset` property. */
const SRC_ELEMENTS = new Set(['img', 'iframe', 'source']);
const SRCSET_ELEMENTS = new Set(['img', 'source']);

export class LiteElement extends LiteParentNode {
  readonly nodeType = ELEMENT_NODE;
  readonly localName: string;
  readonly tagName: string;
  /** The attributes, parsed ones in source order, added ones first. */
  readonly attrs: LiteAttr[] = [];

  constructor(ownerDocument: LiteDocument, localName: string) {
    super(ownerDocument);
    this.localName = localName;
    this.tagName = upperCase(localName);
  }

  get nodeName(): string {
    return this.tagName;
  }

  get namespaceURI(): string {
    return 'http://www.w3.org/1999/xhtml';
  }

  get attributes(): LiteAttr[] {
    return this.attrs.slice();
  }

  getAttributeNode(name: string): LiteAttr | null {
    const attrs = this.attrs;
    for (let i = 0; i < attrs.length; i++) if (attrs[i]!.name === name) return attrs[i]!;
    return null;
  }

  getAttribute(name: string): string | null {
    const attrs = this.attrs;
    for (let i = 0; i < attrs.length; i++) if (attrs[i]!.name === name) return attrs[i]!.value;
    return null;
  }

  hasAttribute(name: string): boolean {
    return this.getAttributeNode(name) !== null;
  }

  hasAttributes(): boolean {
    return this.attrs.length > 0;
  }

  getAttributeNames(): string[] {
    return this.attrs.map((attr) => attr.name);
  }

  setAttribute(name: string, value: unknown): void {
    const text = name === 'class' ? joinedClassTokens(String(value)) : String(value);
    const attr = this.getAttributeNode(name);
    if (attr !== null) attr.value = text;
    else this.addAttr(new LiteAttr(name, text), true);
  }

  setAttributeNode(attr: LiteAttr): LiteAttr | null {
    const previous = this.getAttributeNode(attr.name);
    if (previous === attr) return previous;
    if (previous !== null) this.removeAttr(previous);
    attr.ownerElement?.removeAttr(attr);
    if (attr.name === 'class') attr.value = joinedClassTokens(attr.value);
    this.addAttr(attr, true);
    return previous;
  }

  removeAttribute(name: string): void {
    const attr = this.getAttributeNode(name);
    if (attr !== null) this.removeAttr(attr);
  }

  removeAttributeNode(attr: LiteAttr): void {
    if (attr.ownerElement === this) this.removeAttr(attr);
  }

  toggleAttribute(name: string, force?: boolean): boolean {
    if (this.hasAttribute(name)) {
      if (force === true) return true;
      this.removeAttribute(name);
      return false;
    }
    if (force === false) return false;
    this.setAttribute(name, '');
    return true;
  }

  /** Adds an attribute this element does not have: first (an added one) or last (a parsed one). */
  addAttr(attr: LiteAttr, first: boolean): void {
    attr.ownerElement = this;
    if (first) this.attrs.unshift(attr);
    else this.attrs.push(attr);
  }

  private removeAttr(attr: LiteAttr): void {
    const index = this.attrs.indexOf(attr);
    if (index !== -1) this.attrs.splice(index, 1);
    attr.ownerElement = null;
  }

  get id(): string {
    return this.getAttribute('id') ?? '';
  }

  set id(value: string) {
    this.setAttribute('id', value);
  }

  get className(): string {
    return this.getAttribute('class') ?? '';
  }

  set className(value: string) {
    this.setAttribute('class', value);
  }

  get lang(): string {
    return this.getAttribute('lang') ?? '';
  }

  get dir(): string {
    return this.getAttribute('dir') ?? '';
  }

  get title(): string {
    return this.getAttribute('title') ?? '';
  }

  /** The `src` attribute of elements that have the property (linkedom's `img`, `iframe`, `source`), else undefined. */
  get src(): string | undefined {
    return SRC_ELEMENTS.has(this.localName) ? (this.getAttribute('src') ?? '') : undefined;
  }

  /** The `srcset` attribute of `img` and `source`, else undefined. */
  get srcset(): string | undefined {
    return SRCSET_ELEMENTS.has(this.localName) ? (this.getAttribute('srcset') ?? '') : undefined;
  }

  get hidden(): boolean {
    return this.hasAttribute('hidden');
  }

  get innerHTML(): string {
    return serializeChildren(this);
  }

  set innerHTML(html: string) {
    this.replaceChildren();
    buildTree(this.ownerDocument, this, String(html));
  }

  get outerHTML(): string {
    return serializeNode(this);
  }

  matches(selectors: string): boolean {
    return compiledSelector(selectors)(this);
  }

  closest(selectors: string): LiteElement | null {
    const matches = compiledSelector(selectors);
    if (matches(this)) return this;
    for (let element = this.parentElement; element !== null; element = element.parentElement) {
      if (matches(element)) return element;
    }
    return null;
  }

  cloneNode(deep = false): LiteElement {
    const clone = new LiteElement(this.ownerDocument, this.localName);
    for (const attr of this.attrs) clone.addAttr(attr.cloneNode(), false);
    if (deep) {
      for (let child = this.firstChild; child !== null; child = child.nextSibling) {
        clone.appendChild(child.cloneNode(true));
      }
    }
    return clone;
  }
}

export class LiteDocumentFragment extends LiteParentNode {
  readonly nodeType = DOCUMENT_FRAGMENT_NODE;
  readonly nodeName = '#document-fragment';

  cloneNode(deep = false): LiteDocumentFragment {
    const clone = new LiteDocumentFragment(this.ownerDocument);
    if (deep) for (const child of this.childNodes) clone.appendChild(child.cloneNode(true));
    return clone;
  }
}

/** What a tree walker asks of a node: `NodeFilter.SHOW_*` flags of its type. */
function isShownTo(node: LiteNode, whatToShow: number): boolean {
  return (whatToShow & (1 << (node.nodeType - 1))) !== 0;
}

/** A tree walker that only goes forward (`nextNode`), which is all extraction asks of one. */
class LiteTreeWalker {
  readonly root: LiteNode;
  currentNode: LiteNode;
  private readonly whatToShow: number;

  constructor(root: LiteNode, whatToShow: number) {
    this.root = this.currentNode = root;
    this.whatToShow = whatToShow;
  }

  nextNode(): LiteNode | null {
    for (
      let node = nextInTree(this.currentNode, this.root);
      node !== null;
      node = nextInTree(node, this.root)
    ) {
      if (isShownTo(node, this.whatToShow)) {
        this.currentNode = node;
        return node;
      }
    }
    return null;
  }
}

export class LiteDocument extends LiteParentNode {
  readonly nodeType = DOCUMENT_NODE;
  readonly nodeName = '#document';
  documentURI = 'about:blank';
  baseURI = 'about:blank';
  doctype: string | null = null;

  constructor() {
    super(null);
  }

  override get textContent(): null {
    return null;
  }

  override set textContent(_value: string | null) {
    // A document's text cannot be set (DOM standard: setting it does nothing).
  }

  get documentElement(): LiteElement | null {
    return this.firstElementChild;
  }

  /** The root element's first child when it is `<head>`; one is created there when it is not. */
  get head(): LiteElement {
    const root = this.documentElement!;
    let head = root.firstElementChild;
    if (head === null || head.tagName !== 'HEAD') {
      head = this.createElement('head');
      root.prepend(head);
    }
    return head;
  }

  /** The element after `<head>` when it is `<body>`; one is created there when it is not. */
  get body(): LiteElement {
    const head = this.head;
    let body = head.nextElementSibling;
    if (body === null || body.tagName !== 'BODY') {
      body = this.createElement('body');
      head.after(body);
    }
    return body;
  }

  get title(): string {
    return this.head.getElementsByTagName('title')[0]?.textContent || '';
  }

  createElement(localName: string): LiteElement {
    return new LiteElement(this, localName);
  }

  createTextNode(data: string): LiteText {
    return new LiteText(this, String(data));
  }

  createComment(data: string): LiteComment {
    return new LiteComment(this, String(data));
  }

  createDocumentFragment(): LiteDocumentFragment {
    return new LiteDocumentFragment(this);
  }

  createTreeWalker(root: LiteNode, whatToShow: number = SHOW_ALL): LiteTreeWalker {
    return new LiteTreeWalker(root, whatToShow);
  }

  cloneNode(deep = false): LiteDocument {
    const clone = new LiteDocument();
    clone.documentURI = this.documentURI;
    clone.baseURI = this.baseURI;
    if (deep) {
      for (let child = this.firstChild; child !== null; child = child.nextSibling) {
        const copy = child.cloneNode(true);
        setOwner(copy, clone);
        clone.appendChild(copy);
      }
    }
    return clone;
  }
}

function setOwner(node: LiteNode, owner: LiteDocument): void {
  node.ownerDocument = owner;
  for (let child = node.firstChild; child !== null; child = child.nextSibling) setOwner(child, owner);
}

/** Whether a node belongs to this DOM. */
export function isLiteNode(node: unknown): node is LiteNode {
  return node instanceof LiteNode;
}

// ---- Selectors: css-select over these nodes, each selector compiled once ----

const adapter: NonNullable<Options<LiteNode, LiteElement>['adapter']> = {
  isTag: (node): node is LiteElement => node.nodeType === ELEMENT_NODE,
  getAttributeValue: (element, name) => element.getAttribute(name) ?? undefined,
  getChildren: (node) => node.childNodes,
  getName: (element) => element.localName.toLowerCase(),
  getParent: (element) => element.parentNode,
  getSiblings: (node) => (node.parentNode ? node.parentNode.childNodes : [node]),
  prevElementSibling: (node) => node.previousElementSibling,
  getText: (node) => (node.nodeType === ELEMENT_NODE ? collectText(node) : (node.textContent ?? '')),
  hasAttrib: (element, name) => element.hasAttribute(name),
  removeSubsets: (nodes) =>
    nodes.filter(
      (node, index) => !nodes.some((other, at) => at !== index && other.contains(node) && other !== node),
    ),
};

/**
 * Selectors compiled so far: extraction asks the same few dozen on every page. Bounded and detached from the
 * strings they came from, like the tables of tag names, should a caller build selectors from a page.
 */
const compiledSelectors = new Map<string, (element: LiteElement) => boolean>();

function compiledSelector(selectors: string): (element: LiteElement) => boolean {
  let matches = compiledSelectors.get(selectors);
  if (matches === undefined) {
    const query = compile<LiteNode, LiteElement>(selectors, { xmlMode: false, adapter });
    matches = (element) => query(element);
    if (compiledSelectors.size < MAX_CACHED_NAMES) compiledSelectors.set(detachedCopy(selectors), matches);
  }
  return matches;
}

// ---- Serialization (as linkedom writes it) ----

const VOID_ELEMENTS =
  /^(?:area|base|br|col|embed|hr|img|input|keygen|link|menuitem|meta|param|source|track|wbr)$/i;
/** Elements whose content is raw text: written as it is. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title', 'xmp']);
/** Attributes written without a value when empty. */
const EMPTY_ATTRIBUTES = new Set([
  'allowfullscreen',
  'allowpaymentrequest',
  'async',
  'autofocus',
  'autoplay',
  'checked',
  'class',
  'contenteditable',
  'controls',
  'default',
  'defer',
  'disabled',
  'draggable',
  'formnovalidate',
  'hidden',
  'id',
  'ismap',
  'itemscope',
  'loop',
  'multiple',
  'muted',
  'nomodule',
  'novalidate',
  'open',
  'playsinline',
  'readonly',
  'required',
  'reversed',
  'selected',
  'style',
  'truespeed',
]);

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

function serializeAttr(attr: LiteAttr): string {
  if (EMPTY_ATTRIBUTES.has(attr.name) && attr.value === '') {
    // linkedom writes empty `id`, `class` and `style` not at all, other boolean-like ones by name.
    return attr.name === 'id' || attr.name === 'class' || attr.name === 'style' ? '' : ` ${attr.name}`;
  }
  return ` ${attr.name}="${attr.value.replace(/"/g, '&quot;')}"`;
}

function serializeChildren(node: LiteNode): string {
  let html = '';
  for (let child = node.firstChild; child !== null; child = child.nextSibling) html += serializeNode(child);
  return html;
}

function serializeNode(node: LiteNode): string {
  switch (node.nodeType) {
    case TEXT_NODE: {
      const parent = node.parentNode;
      const raw =
        parent?.nodeType === ELEMENT_NODE && RAW_TEXT_ELEMENTS.has((parent as LiteElement).localName);
      return raw ? (node as LiteText).data : escapeText((node as LiteText).data);
    }
    case CDATA_SECTION_NODE:
      return `<![CDATA[${(node as LiteCdataSection).data}]]>`;
    case COMMENT_NODE:
      return `<!--${(node as LiteComment).data}-->`;
    case ELEMENT_NODE: {
      const element = node as LiteElement;
      const open = `<${element.localName}${element.attrs.map(serializeAttr).join('')}`;
      if (VOID_ELEMENTS.test(element.localName) && element.firstChild === null) return `${open}>`;
      return `${open}>${serializeChildren(element)}</${element.localName}>`;
    }
    default:
      return serializeChildren(node);
  }
}

// ---- Parsing ----

/**
 * Builds the nodes of `html` into `parent`, from htmlparser2's events with linkedom's options (tag names in
 * lower case, attribute names as written, entities decoded).
 */
function buildTree(document: LiteDocument, parent: LiteNode, html: string): void {
  let node: LiteNode = parent;
  let inCdata = false;
  const parser = new Parser(
    {
      onprocessinginstruction(name, data) {
        if (name.toLowerCase() === '!doctype') document.doctype = data.slice(name.length).trim();
      },
      onopentag(name, attributes) {
        const element = new LiteElement(document, name);
        for (const attribute in attributes) {
          const value = attributes[attribute]!;
          element.addAttr(
            new LiteAttr(attribute, attribute === 'class' ? joinedClassTokens(value) : value),
            false,
          );
        }
        node = appendParsed(node, element);
      },
      oncomment(data) {
        appendParsed(node, new LiteComment(document, data));
      },
      ontext(text) {
        appendParsed(node, inCdata ? new LiteCdataSection(document, text) : new LiteText(document, text));
      },
      oncdatastart() {
        inCdata = true;
      },
      oncdataend() {
        inCdata = false;
      },
      onclosetag() {
        node = node.parentNode ?? parent;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  parser.write(html);
  parser.end();
}

/** Appends a node the parser just made (in no tree yet) as the last child of `parent`. */
function appendParsed<T extends LiteNode>(parent: LiteNode, node: T): T {
  const last = parent.lastChild;
  node.parentNode = parent;
  node.previousSibling = last;
  if (last === null) parent.firstChild = node;
  else last.nextSibling = node;
  parent.lastChild = node;
  return node;
}

/** Parses a whole page into a document (what `DOMParser.parseFromString(html, 'text/html')` gives in linkedom). */
export function parseLiteDocument(html: string): LiteDocument {
  const document = new LiteDocument();
  buildTree(document, document, html);
  return document;
}

// ---- Snapshots ----

/**
 * Records every node of the document (its links, its attributes and their values, its text) and answers a
 * function that puts them all back: nodes removed or moved since are back in place, nodes created since are
 * no longer in the document. Readability's later attempts start from one (readability.ts): taking it walks
 * the tree once, far less work than serializing the document, and restoring walks the record once, far less
 * than parsing it again (see the extraction profile in docs/benchmarks.md).
 */
export function snapshotLiteDocument(document: LiteDocument): () => void {
  const nodes: LiteNode[] = [];
  const links: (LiteNode | null)[] = [];
  const values: unknown[] = [];
  for (let node: LiteNode | null = document; node !== null; node = nextInTree(node, document)) {
    nodes.push(node);
    links.push(node.parentNode, node.previousSibling, node.nextSibling, node.firstChild, node.lastChild);
    if (node.nodeType === ELEMENT_NODE) {
      const attrs = (node as LiteElement).attrs;
      values.push(
        attrs.slice(),
        attrs.map((attr) => attr.value),
      );
    } else if (node instanceof LiteCharacterData) {
      values.push(node.data, undefined);
    } else {
      values.push(undefined, undefined);
    }
  }
  return () => {
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const at = i * 5;
      node.parentNode = links[at]!;
      node.previousSibling = links[at + 1]!;
      node.nextSibling = links[at + 2]!;
      node.firstChild = links[at + 3]!;
      node.lastChild = links[at + 4]!;
      if (node.nodeType === ELEMENT_NODE) {
        const element = node as LiteElement;
        const attrs = values[i * 2] as LiteAttr[];
        const attrValues = values[i * 2 + 1] as string[];
        element.attrs.length = 0;
        for (let a = 0; a < attrs.length; a++) {
          const attr = attrs[a]!;
          attr.value = attrValues[a]!;
          attr.ownerElement = element;
          element.attrs.push(attr);
        }
      } else if (node instanceof LiteCharacterData) {
        node.data = values[i * 2] as string;
      }
    }
  };
}
