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
 * linkedom's `Element` class (not exported): the class on the sample body's prototype chain whose prototype
 * defines `style`. Undefined when linkedom is not shaped so.
 */
export function linkedomElementClass(): (abstract new (...args: never[]) => object) | undefined {
  for (
    let proto = Object.getPrototypeOf(sampleDocument().body) as object | null;
    proto;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    if (Object.prototype.hasOwnProperty.call(proto, 'style')) {
      const constructor = (proto as { constructor?: unknown }).constructor;
      return typeof constructor === 'function'
        ? (constructor as abstract new (...args: never[]) => object)
        : undefined;
    }
  }
  return undefined;
}
