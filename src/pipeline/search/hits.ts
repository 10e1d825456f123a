/**
 * Copies of search hits that keep their getters: a provider may compute a field such as `snippet` only when
 * it is read (the document index does), and a spread (`{ ...hit }`) would read it at once.
 */

/** `hit` with `changes` applied; the other fields are copied as they are defined (getters stay getters). */
export function withHitFields<T extends object>(hit: T, changes: Partial<T>): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(hit)) as T;
  return Object.assign(copy, changes);
}
