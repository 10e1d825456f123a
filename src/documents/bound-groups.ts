/**
 * The sections a search must score, by their terms' upper bounds: a section scores at most the sum of the
 * bounds of the query's terms it holds, so only those holding one of the groups {@link coveringGroups}
 * gives can reach a threshold. The PostgreSQL and SQLite indexes find them with one full-text query of the
 * groups, written shared-prefix first by {@link factoredGroups}.
 */

/**
 * The smallest AND-groups of words (each a set whose bounds sum to at least `threshold`, none with a word
 * to spare) that every section whose bound reaches `threshold` holds one of. With more than `maxGroups`,
 * groups are cut to fewer words (a group cut short matches more sections: still every one that can reach
 * the threshold), down to single words.
 */
export function coveringGroups(
  bounds: ReadonlyMap<string, number>,
  threshold: number,
  maxGroups: number,
  maxWords: number,
): string[][] {
  const words = [...bounds].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  // What the words from i on add up to, to drop a branch that cannot reach the threshold.
  const rest = words.map((_, i) => words.slice(i).reduce((sum, [, bound]) => sum + bound, 0));
  // Sums taken in another order can differ in the last bits: a set that just reaches the threshold counts.
  const reach = threshold * (1 - 1e-12);
  for (let depth = Math.min(maxWords, words.length); depth >= 1; depth--) {
    const groups: string[][] = [];
    const walk = (from: number, chosen: string[], sum: number): boolean => {
      for (let i = from; i < words.length; i++) {
        if (sum + rest[i]! < reach) return true;
        const [word, bound] = words[i]!;
        const group = [...chosen, word];
        if (sum + bound >= reach || group.length === depth) groups.push(group);
        else if (!walk(i + 1, group, sum + bound)) return false;
        if (groups.length > maxGroups) return false;
      }
      return true;
    };
    if (walk(0, [], 0)) return groups;
  }
  return words.map(([word]) => [word]);
}

/** How a full-text query is written: a term, and its AND and OR operators (with their spaces). */
export interface QuerySyntax {
  readonly literal: (term: string) => string;
  readonly and: string;
  readonly or: string;
}

/**
 * Query texts, one for each first term of `groups`, that together match a section holding every term of
 * one of the groups: the groups that share their first terms share them in the query (`a & (b | c)`), and
 * each query starts with an AND, so the index reads only its first term's sections for it.
 */
export function factoredGroups(groups: readonly (readonly string[])[], syntax: QuerySyntax): string[] {
  interface Node {
    readonly next: Map<string, Node>;
  }
  const root: Node = { next: new Map() };
  for (const group of groups) {
    let node = root;
    for (const word of group) {
      let next = node.next.get(word);
      if (next === undefined) node.next.set(word, (next = { next: new Map() }));
      node = next;
    }
  }
  const render = (word: string, node: Node): string =>
    node.next.size === 0
      ? syntax.literal(word)
      : `${syntax.literal(word)}${syntax.and}(${[...node.next].map(([w, n]) => render(w, n)).join(syntax.or)})`;
  return [...root.next].map(([word, node]) => render(word, node));
}
