/**
 * Strings kept by tables that outlive a page. A name or value cut from a page's HTML can be a slice of that
 * whole string (V8 makes substrings of 13 characters or more as slices of their parent), and a slice kept
 * in a process-wide table keeps the page's HTML in memory with it.
 */

/**
 * Entries a process-wide table of tag names or selectors keeps: real pages use a few hundred names, a hostile
 * one could invent more.
 */
export const MAX_CACHED_NAMES = 4096;

/** A copy of `text` that shares no memory with the string it was cut from. */
export function detachedCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * `convert` of a tag name, remembered per name for the process ({@link MAX_CACHED_NAMES} names at most), with
 * both the name and its conversion kept as {@link detachedCopy copies}.
 */
export function nameTable(convert: (name: string) => string): (name: string) => string {
  const table = new Map<string, string>();
  return (name) => {
    let converted = table.get(name);
    if (converted === undefined) {
      converted = convert(name);
      if (table.size < MAX_CACHED_NAMES) table.set(detachedCopy(name), detachedCopy(converted));
    }
    return converted;
  };
}
