/**
 * How well a passage covers a query: the share of the query's distinct words (stop words dropped,
 * stemmed, as the ranker scores them) that occur in the passage, its heading or its page title. The
 * pipeline reads more search results when the best passage covers too little of the question.
 */
import type { FetchedPage, Passage } from '../types.ts';
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

const TEXT_TYPES = /^(?:text\/|application\/(?:xhtml\+xml|xml|json))/;

/**
 * A cheap test, before extraction, of how much of the query a fetched page can be about: the returned
 * function gives the share (0–1) of the query's distinct words (stop words dropped, stemmed) found anywhere
 * in the page's bytes read as UTF-8 and lower-cased. Stems match as substrings (`creat` in "created") and
 * markup counts too, so it errs towards more. Pages that are not text (PDF and other binaries) get 1.
 *
 * @example
 * const mentions = pageMentions('When was the Eiffel Tower built?');
 * mentions(page); // 1 when the page's HTML has "eiffel", "tower" and "built"
 */
export function pageMentions(
  query: string,
  options: { readonly locale?: string } = {},
): (page: Pick<FetchedPage, 'contentType' | 'body'>) => number {
  const wanted = [...new Set(tokenizeQuery(query, options))];
  const decoder = new TextDecoder('utf-8', { fatal: false });
  return (page) => {
    if (wanted.length === 0 || !TEXT_TYPES.test(page.contentType)) return 1;
    const text = decoder.decode(page.body).toLowerCase();
    return wanted.filter((word) => text.includes(word)).length / wanted.length;
  };
}
