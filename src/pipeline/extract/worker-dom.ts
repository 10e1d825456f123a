/**
 * linkedom tuned for extraction workers, in ways that change linkedom's classes (or our module state) for the
 * whole isolate, so they are applied only in extraction worker threads, which run nothing else ({@link tuneLinkedomForWorkers}).
 * A library user's own linkedom, in their thread, is never touched.
 *
 * - linkedom's `EventTarget` constructor gives every node an entry in one module-wide `WeakMap`, holding a
 *   `Map` for its event listeners: on a large page that is hundreds of thousands of maps, and creating and
 *   garbage-collecting them is a quarter of extraction's time (see the extraction profile in
 *   docs/benchmarks.md). Extraction never listens to DOM events ({@link dropNodeEventListenerMaps}).
 * - linkedom answers `className` and `getAttribute('class')` by joining the element's class token set anew on
 *   every call, and creates that set for an element without a class just to answer `''`. Extraction reads
 *   class names of most elements several times (page type, chrome hints, Readability's weights);
 *   {@link readClassFromAttribute} answers from the `class` attribute, which linkedom keeps equal to the
 *   joined set. Its parser also sets `className` on every element with a class, building the set and writing
 *   it back to the attribute; when the attribute is already in joined form, that is skipped until the set is
 *   first asked for.
 * - linkedom gives every element an end marker (its last node in the document's list), written as an object
 *   literal with symbol keys, which V8 builds slowly (5% of extraction's time on slow pages, the parse's
 *   largest single cost); {@link buildEndMarkersFromClass} builds the same marker from a class.
 * - linkedom answers `tagName` by upper-casing the element's name on every call, and
 *   `getElementsByTagName('p')` by upper-casing the name of every element it passes; Readability asks both
 *   all the time. {@link cacheUpperCaseTagNames} keeps each name's upper case once, and skips the comparison
 *   with an upper-cased name when the name asked for is not upper case (no upper-cased name can equal it).
 * - The clean-up passes list a subtree's elements with a tree walker, which in linkedom runs along its node
 *   list into an array and then answers them one by one; {@link listDescendantsFromNodeList} runs along the
 *   list itself.
 */
import { EventTarget as LinkedomEventTarget } from 'linkedom';
import { isJoinedTokenList } from './lite-dom.ts';
import { isShown, useDescendantLister } from './dom.ts';
import { linkedomElementPrototype, privateKey, sampleDocument, type Fields } from './linkedom-internals.ts';

/** Thrown by the event methods of nodes built after {@link dropNodeEventListenerMaps}. */
export const NO_DOM_EVENTS_MESSAGE = 'DOM events are not available in citewise extraction workers';

/** Stands in for linkedom's `EventTarget` as the parent class of `Node`: constructs nothing. */
class ListenerlessTarget {}

function refuseEvents(): never {
  throw new Error(NO_DOM_EVENTS_MESSAGE);
}

/**
 * linkedom's `Node` class: the class of the document's prototype chain whose parent class is linkedom's
 * `EventTarget` (linkedom does not export `Node`).
 */
function linkedomNodeClass(): (abstract new (...args: never[]) => object) | undefined {
  for (
    let proto: object | null = sampleDocument();
    proto;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const constructor = (proto as { constructor?: unknown }).constructor;
    if (typeof constructor === 'function' && Object.getPrototypeOf(constructor) === LinkedomEventTarget) {
      return constructor as abstract new (...args: never[]) => object;
    }
  }
  return undefined;
}

/**
 * Makes linkedom build nodes without their event-listener map: `Node`'s parent constructor becomes an empty
 * one, and `addEventListener`, `removeEventListener` and `dispatchEvent` on nodes throw
 * {@link NO_DOM_EVENTS_MESSAGE} instead of failing obscurely. Returns false, changing nothing, when
 * linkedom's classes are not shaped as expected (a test fails then, so an upgrade is noticed).
 */
export function dropNodeEventListenerMaps(): boolean {
  const NodeClass = linkedomNodeClass();
  if (!NodeClass) return false;
  // `super()` in a class constructor calls the constructor's current [[Prototype]].
  Object.setPrototypeOf(NodeClass, ListenerlessTarget);
  for (const method of ['addEventListener', 'removeEventListener', 'dispatchEvent']) {
    Object.defineProperty(NodeClass.prototype, method, {
      value: refuseEvents,
      configurable: true,
      writable: true,
    });
  }
  return true;
}

/** The private key under which a linkedom element keeps its class token set, found on a sample element. */
function classListKey(): symbol | undefined {
  const { body } = sampleDocument();
  const tokens = body.classList;
  return Object.getOwnPropertySymbols(body).find(
    (key) => (body as unknown as Record<symbol, unknown>)[key] === tokens,
  );
}

/**
 * Makes linkedom's `className` (and so `getAttribute('class')`) read the `class` attribute's value, `''`
 * without one, instead of joining the class token set (the same string: linkedom writes the joined set to
 * the attribute on every change). Setting `className` to the attribute's own value, already in joined form,
 * on an element whose token set is not built yet (what the parser does) changes nothing and is skipped;
 * other settings and `classList` are unchanged. Returns false, changing nothing, when linkedom's classes are
 * not shaped as expected (a test fails then).
 */
export function readClassFromAttribute(): boolean {
  const proto = linkedomElementPrototype();
  const tokenListKey = classListKey();
  const original = proto && Object.getOwnPropertyDescriptor(proto, 'className');
  if (!proto || !original?.set || tokenListKey === undefined) return false;
  Object.defineProperty(proto, 'className', {
    configurable: true,
    enumerable: original.enumerable ?? false,
    get(this: Element) {
      return this.getAttributeNode('class')?.value ?? '';
    },
    set(this: Element, value: unknown) {
      const text = String(value);
      // The parser sets each element's class attribute and then className to the same value: linkedom
      // would build the token set and write the joined tokens back, the same string when it is already in
      // joined form. The set is built from the attribute when first asked for.
      if (
        (this as unknown as Record<symbol, unknown>)[tokenListKey] == null &&
        this.getAttributeNode('class')?.value === text &&
        isJoinedTokenList(text)
      ) {
        return;
      }
      original.set?.call(this, value);
    },
  });
  return true;
}

/**
 * The private keys of linkedom's list of nodes, found on a sample element: `next` (the following node of the
 * document's list) and `end` (an element's end marker, the node that closes it in that list).
 */
function nodeListKeys(): { readonly end: symbol; readonly next: symbol } | undefined {
  const { body } = sampleDocument();
  const end = privateKey(body, 'end');
  const next = privateKey(body, 'next');
  return end && next ? { end, next } : undefined;
}

/**
 * Makes linkedom's elements build their end marker from a class rather than an object literal: the same
 * properties, keys and values. Element's parent constructor becomes one that does what linkedom's
 * `ParentNode` constructor does; prototypes, and so every method, are unchanged. Returns false, changing
 * nothing, when linkedom's classes are not shaped as expected (a test fails then).
 */
export function buildEndMarkersFromClass(): boolean {
  const { body } = sampleDocument();
  const elementPrototype = linkedomElementPrototype();
  const ElementClass = (elementPrototype as { constructor?: unknown } | undefined)?.constructor;
  if (typeof ElementClass !== 'function') return false;
  const ParentNodeClass = Object.getPrototypeOf(ElementClass) as unknown;
  const NodeClass =
    typeof ParentNodeClass === 'function' ? (Object.getPrototypeOf(ParentNodeClass) as unknown) : null;
  const listKeys = nodeListKeys();
  const end = listKeys && (body as unknown as Record<symbol, object>)[listKeys.end];
  const previousKey = end && privateKey(end, 'prev');
  const startKey = end && privateKey(end, 'start');
  const privateDataKey = privateKey(body, 'private');
  const endNodeType = (end as { nodeType?: unknown } | undefined)?.nodeType;
  if (
    typeof NodeClass !== 'function' ||
    !listKeys ||
    !end ||
    !Object.hasOwn(end, listKeys.next) ||
    !previousKey ||
    !startKey ||
    !privateDataKey ||
    typeof endNodeType !== 'number' ||
    // The marker this replaces has exactly these keys.
    Reflect.ownKeys(end).length !== 6
  ) {
    return false;
  }
  const keys = { ...listKeys, previous: previousKey, start: startKey, data: privateDataKey };
  class EndMarker {
    constructor(owner: Fields) {
      const marker = this as unknown as Fields;
      marker[keys.next] = null;
      marker[keys.previous] = owner;
      marker[keys.start] = owner;
      marker['nodeType'] = endNodeType;
      marker['ownerDocument'] = owner['ownerDocument'];
      marker['parentNode'] = null;
    }
  }
  const Base = NodeClass as new (ownerDocument: unknown, localName: unknown, nodeType: unknown) => object;
  class ParentNodeWithEndMarkerClass extends Base {
    constructor(ownerDocument: unknown, localName: unknown, nodeType: unknown) {
      super(ownerDocument, localName, nodeType);
      const node = this as unknown as Fields;
      node[keys.data] = null;
      node[keys.next] = node[keys.end] = new EndMarker(node);
    }
  }
  // `super()` in Element's constructor calls the constructor's current [[Prototype]].
  Object.setPrototypeOf(ElementClass, ParentNodeWithEndMarkerClass);
  return true;
}

/** Upper-case tag names already seen (tag names are few; a page inventing thousands stops the cache). */
const upperCaseNames = new Map<string, string>();
const MAX_CACHED_NAMES = 2000;

function upperCase(name: string): string {
  let upper = upperCaseNames.get(name);
  if (upper === undefined) {
    upper = name.toUpperCase();
    if (upperCaseNames.size < MAX_CACHED_NAMES) upperCaseNames.set(name, upper);
  }
  return upper;
}

/**
 * Makes linkedom's `tagName` and `nodeName` of elements, and `getElementsByTagName`, answer as before (the
 * name upper-cased in an HTML document, as is in an XML one) from a cache of upper-cased names. Returns
 * false, changing nothing, when linkedom's classes are not shaped as expected (a test fails then).
 */
export function cacheUpperCaseTagNames(): boolean {
  const document = sampleDocument();
  const elementPrototype = linkedomElementPrototype() as Record<string, unknown> | undefined;
  const mimeKey = privateKey(document, 'mime');
  const listKeys = nodeListKeys();
  let parentNodePrototype: object | null = elementPrototype ?? null;
  while (parentNodePrototype && !Object.hasOwn(parentNodePrototype, 'getElementsByTagName')) {
    parentNodePrototype = Object.getPrototypeOf(parentNodePrototype) as object | null;
  }
  const tagName = elementPrototype && Object.getOwnPropertyDescriptor(elementPrototype, 'tagName');
  const nodeName = elementPrototype && Object.getOwnPropertyDescriptor(elementPrototype, 'nodeName');
  if (!elementPrototype || !mimeKey || !listKeys || !parentNodePrototype || !tagName?.get || !nodeName?.get) {
    return false;
  }
  const keys = { ...listKeys, mime: mimeKey };
  /** linkedom's `localCase`: the element's name as its document spells tag names. */
  function documentCase(element: Fields): string {
    const name = element['localName'] as string;
    const mime = (element['ownerDocument'] as Fields)[keys.mime] as { ignoreCase?: boolean };
    return mime.ignoreCase ? upperCase(name) : name;
  }
  const getter = {
    get(this: Fields) {
      return documentCase(this);
    },
  };
  Object.defineProperty(elementPrototype, 'tagName', { ...tagName, ...getter });
  Object.defineProperty(elementPrototype, 'nodeName', { ...nodeName, ...getter });
  const NodeListClass = (document.body.childNodes as unknown as { constructor: new () => unknown[] })
    .constructor;
  Object.defineProperty(parentNodePrototype, 'getElementsByTagName', {
    configurable: true,
    writable: true,
    value(this: Fields, name: string) {
      const elements = new NodeListClass();
      // A name with a letter in lower case never equals an upper-cased name.
      const mayBeUpperCase = name === name.toUpperCase();
      const end = this[keys.end];
      for (let next = this[keys.next] as Fields; next !== end; next = next[keys.next] as Fields) {
        if (
          next['nodeType'] === 1 &&
          (next['localName'] === name || (mayBeUpperCase && documentCase(next) === name))
        ) {
          elements.push(next);
        }
      }
      return elements;
    },
  });
  return true;
}

/**
 * Makes `descendantElements` (dom.ts) list a linkedom root's elements by running along linkedom's node list
 * from the root to its end marker, as linkedom's tree walker does before it answers them one by one (for a
 * document: from its root element on). Other DOMs' roots are left to the tree walker. Returns false,
 * changing nothing, when linkedom's nodes are not shaped as expected (a test fails then).
 */
export function listDescendantsFromNodeList(): boolean {
  const keys = nodeListKeys();
  if (!keys) return false;
  useDescendantLister((root, show, accept) => {
    const from = root.nodeType === 9 ? (root as Document).documentElement : root;
    if (!from) return [];
    const end = (from as unknown as Fields)[keys.end];
    if (end === undefined) return undefined; // not a linkedom node
    const nodes: Node[] = [];
    // A document's list starts at its root element, an element's after itself.
    let next = (root.nodeType === 9 ? from : (from as unknown as Fields)[keys.next]) as Fields | null;
    while (next && next !== end) {
      if (isShown(next['nodeType'] as number, show) && (!accept || accept(next as unknown as Node))) {
        nodes.push(next as unknown as Node);
      }
      next = next[keys.next] as Fields | null;
    }
    return nodes;
  });
  return true;
}

/** The settings of this module: for extraction worker threads only. Returns whether all applied. */
export function tuneLinkedomForWorkers(): boolean {
  const droppedMaps = dropNodeEventListenerMaps();
  const endMarkers = buildEndMarkersFromClass();
  const tagNames = cacheUpperCaseTagNames();
  const descendants = listDescendantsFromNodeList();
  return readClassFromAttribute() && droppedMaps && endMarkers && tagNames && descendants;
}
