/**
 * Running Mozilla's Readability on a parsed page, with one fix for its cost on large pages.
 *
 * Readability 0.6 tests every node it visits for being the byline, and measures the node's whole text
 * (`textContent`) before the cheap tests (`rel`, `itemprop`, class and id) that nearly every node fails:
 * on a page without a byline that is one pass over the text below each node, the page's text times its
 * depth. {@link isValidByline} is the same test with the text measured last; the instance uses it.
 */
import { Readability } from '@mozilla/readability';

/** What Readability's private byline test and its pattern look like (version 0.6). */
interface BylineInternals {
  _isValidByline?: (node: Element, matchString: string) => boolean;
  readonly REGEXPS?: { readonly byline?: RegExp };
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

/** Readability's article element, or null when it finds nothing (or throws on odd markup). */
export function runReadability(document: Document): ReturnType<Readability<Element>['parse']> {
  try {
    const reader = new Readability<Element>(document, {
      serializer: (node) => node as Element,
      keepClasses: true,
    });
    const internals = reader as unknown as BylineInternals;
    const bylinePattern = internals.REGEXPS?.byline;
    // Only where the private test exists as expected (a test fails if an upgrade renames it).
    if (typeof internals._isValidByline === 'function' && bylinePattern) {
      internals._isValidByline = (node, matchString) => isValidByline(node, matchString, bylinePattern);
    }
    return reader.parse();
  } catch {
    return null;
  }
}
