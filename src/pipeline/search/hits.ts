/**
 * Copies of search hits that keep their getters: a provider may compute a field such as `snippet` only when
 * it is read (the document index does), and a spread (`{ ...hit }`) would read it at once.
 */
import type { DocumentHit } from '../../documents/types.ts';
import type { SearchHit } from '../types.ts';

/** `hit` with `changes` applied; the other fields are copied as they are defined (getters stay getters). */
export function withHitFields<T extends object>(hit: T, changes: Partial<T>): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(hit)) as T;
  return Object.assign(copy, changes);
}

/** A document index's hit as a search hit of `provider`; its snippet is read only when used. */
export function documentSearchHit(hit: Omit<DocumentHit, 'id' | 'owner'>, provider: string): SearchHit {
  return {
    url: hit.url,
    title: hit.title,
    // Read when used: the pipeline reads a hit with content whole, never its snippet.
    get snippet() {
      return hit.snippet;
    },
    content: hit.content,
    score: hit.score,
    provider,
    ...(hit.publishedAt === undefined ? {} : { publishedAt: hit.publishedAt }),
  };
}
