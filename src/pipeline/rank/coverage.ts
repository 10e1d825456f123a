/**
 * How well a passage covers a query: the share of the query's distinct words (stop words dropped,
 * stemmed, as the ranker scores them) that occur in the passage, its heading or its page title. The
 * pipeline reads more search results when the best passage covers too little of the question.
 */
import type { Passage } from '../types.ts';
import { tokenize, tokenizeQuery } from '../../text/tokenize.ts';

/**
 * Share (0–1) of the distinct query words found in `passage` (text, heading and title). A query without
 * words is fully covered (1); a missing passage covers nothing (0).
 *
 * @example
 * queryCoverage('When was the Eiffel Tower built?', { url, title: 'Eiffel Tower', text: 'Built in 1889.', score: 1 })
 * // → 1 ("eiffel", "tower", "built" are all there)
 */
export function queryCoverage(
  query: string,
  passage: Pick<Passage, 'text' | 'title' | 'heading'> | undefined,
  options: { readonly locale?: string } = {},
): number {
  const wanted = new Set(tokenizeQuery(query, options));
  if (wanted.size === 0) return 1;
  if (passage === undefined) return 0;
  const present = new Set(tokenize(`${passage.title}\n${passage.heading ?? ''}\n${passage.text}`, options));
  let found = 0;
  for (const word of wanted) if (present.has(word)) found++;
  return found / wanted.size;
}
