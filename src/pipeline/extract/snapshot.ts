/**
 * Snapshots of a linkedom document, to put it back as it was without parsing it again.
 *
 * linkedom keeps a document as one doubly linked list of its nodes (each element, then its attributes, its
 * children and its end marker), each node knowing its parent. A snapshot records those links and the values of
 * attributes and texts; restoring it puts every recorded node back in its place, so nodes removed or moved
 * since are back, and nodes created since are no longer in the document. Taking one walks the list once,
 * far less work than serializing the document, and restoring walks the record once, far less than parsing it
 * again (see the extraction profile in docs/benchmarks.md).
 */
import { privateKey, sampleDocument, type Fields } from './linkedom-internals.ts';
import { LiteDocument, snapshotLiteDocument } from './lite-dom.ts';

/** A document's state, which {@link DocumentSnapshot.restore} puts back. */
export interface DocumentSnapshot {
  /** Puts the document back as it was when the snapshot was taken (as often as needed). */
  restore(): void;
}

/** linkedom's private keys that a snapshot reads and writes. */
interface ListKeys {
  /** The following and preceding node in the document's list. */
  readonly next: symbol;
  readonly prev: symbol;
  /** The value of an attribute or a text, and an attribute's "changed since the style was read" flag. */
  readonly value: symbol;
  readonly changed: symbol;
  /** An element's class token set, data map and style object, built on demand from its attributes. */
  readonly classList: symbol;
  readonly dataset: symbol;
  readonly style: symbol;
}

let keys: ListKeys | null | undefined;

function listKeys(): ListKeys | null {
  if (keys !== undefined) return keys;
  const { body } = sampleDocument();
  const attribute = body.getAttributeNode('class');
  const text = body.firstChild;
  const found = {
    next: privateKey(body, 'next'),
    prev: privateKey(body, 'prev'),
    value: text && privateKey(text, 'value'),
    changed: attribute && privateKey(attribute, 'changed'),
    classList: privateKey(body, 'classList'),
    dataset: privateKey(body, 'dataset'),
    style: privateKey(body, 'style'),
  };
  const complete = Object.values(found).every((key) => typeof key === 'symbol');
  keys = complete ? (found as ListKeys) : null;
  return keys;
}

const ELEMENT = 1;
const ATTRIBUTE = 2;
/** linkedom's type of the end marker that closes an element in the list. */
const END_MARKER = -1;
/** Fields recorded per node: the node, its next and previous nodes, its parent (or owner), its value. */
const STRIDE = 5;

/**
 * A snapshot of `document`, or undefined when it is not a linkedom document (jsdom's) or linkedom no longer
 * keeps its nodes as expected.
 */
export function snapshotDocument(document: Document): DocumentSnapshot | undefined {
  if (document instanceof LiteDocument) return { restore: snapshotLiteDocument(document) };
  const list = listKeys();
  const root = document as unknown as Fields;
  if (!list || !(list.next in root)) return undefined;
  const { next, prev, value } = list;
  // Sized first: growing the array as it fills costs more than a second walk.
  let count = 0;
  for (let node: Fields | null = root; node; node = node[next] as Fields | null) count++;
  const record = new Array<unknown>(count * STRIDE);
  let i = 0;
  for (let node: Fields | null = root; node; node = node[next] as Fields | null) {
    const type = node.nodeType;
    record[i] = node;
    record[i + 1] = node[next];
    record[i + 2] = node[prev];
    record[i + 3] = type === ATTRIBUTE ? node.ownerElement : node.parentNode;
    record[i + 4] = type === ELEMENT || type === END_MARKER ? undefined : node[value];
    i += STRIDE;
  }
  return { restore: () => restoreRecord(record, list) };
}

function restoreRecord(record: readonly unknown[], list: ListKeys): void {
  for (let i = 0; i < record.length; i += STRIDE) {
    const node = record[i] as Fields;
    node[list.next] = record[i + 1];
    node[list.prev] = record[i + 2];
    const type = node.nodeType;
    if (type === ATTRIBUTE) {
      node.ownerElement = record[i + 3];
      node[list.value] = record[i + 4];
      node[list.changed] = true;
    } else if (type !== END_MARKER) {
      node.parentNode = record[i + 3];
      if (type === ELEMENT) {
        // Built again from the restored attributes when asked for.
        node[list.classList] = null;
        node[list.dataset] = null;
        node[list.style] = null;
      } else if (record[i + 4] !== undefined) {
        node[list.value] = record[i + 4];
      }
    }
  }
}
