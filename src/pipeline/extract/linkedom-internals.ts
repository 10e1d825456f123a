/**
 * Where linkedom keeps what it does not expose: its private keys are symbols it does not export, found here by
 * their descriptions on the nodes of a small sample page. Used by the worker settings ({@link ./worker-dom.ts})
 * and the document snapshots ({@link ./snapshot.ts}); each checks that what it needs was found, and a test
 * fails when a linkedom upgrade changes it.
 */
import { parseHTML } from 'linkedom';

let sample: Document | undefined;

/** A small linkedom page, parsed once: an element with a class attribute (the body), a text node. */
export function sampleDocument(): Document {
  sample ??= (
    parseHTML('<!doctype html><html><body class="a">text</body></html>') as unknown as { document: Document }
  ).document;
  return sample;
}

/** linkedom's private symbol of this description on `target`. */
export function privateKey(target: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(target).find((key) => key.description === description);
}

/** A linkedom node's fields, public and private (symbol-keyed). */
export type Fields = Record<symbol | string, unknown>;

/**
 * linkedom's `Element.prototype` (its class is not exported): the prototype on the sample body's chain that
 * defines the `className` getter (and `style`, and the element's other accessors).
 */
export function linkedomElementPrototype(): object | undefined {
  for (
    let proto: object | null = sampleDocument().body;
    proto;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    if (Object.getOwnPropertyDescriptor(proto, 'className')?.get) return proto;
  }
  return undefined;
}
