/**
 * How often each of a query's terms stands in a section, without tokenizing the whole section: what
 * re-scoring a search's candidate sections needs (their lengths are kept in the index). In ASCII text the
 * words that could give a term are found with one regular expression and only they go through the
 * tokenizer's rules; stretches holding other characters are tokenized. The counts are those of
 * `sectionTokens` (analyze.ts).
 */
import { ENGLISH_STOP_WORDS, stem, tokenize } from '../text/tokenize.ts';
import type { DocumentSection } from './analyze.ts';
import { engineTerm } from './common.ts';

/** A character outside ASCII. */
const NON_ASCII = /[\u0080-\uffff]/g;

/** ASCII white space: `[\t-\r ]`. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** Counts the given engine terms in sections: build once per search, call per section. */
export type TermCounter = (title: string, section: DocumentSection) => Map<string, number>;

/** `[a-z0-9]` */
function isAlphanumeric(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/** `[a-z]` */
function isLetter(code: number): boolean {
  return code >= 97 && code <= 122;
}

/**
 * Whether `at` starts a word of the tokenizer's ASCII scan (`[a-z0-9]+(?:'[a-z]+)*`, read left to right):
 * an alphanumeric character after a non-alphanumeric one, unless it is a letter continuing a word after an
 * apostrophe; or a digit right after such a continuation ("e's1" is "e's" and "1").
 */
function startsWord(lower: string, at: number): boolean {
  if (at === 0) return true;
  const before = lower.charCodeAt(at - 1);
  if (before === 39)
    return !(isLetter(lower.charCodeAt(at)) && at >= 2 && isAlphanumeric(lower.charCodeAt(at - 2)));
  if (!isAlphanumeric(before)) return true;
  if (isLetter(lower.charCodeAt(at))) return false;
  let i = at - 1;
  while (i >= 0 && isLetter(lower.charCodeAt(i))) i--;
  return i < at - 1 && i >= 1 && lower.charCodeAt(i) === 39 && isAlphanumeric(lower.charCodeAt(i - 1));
}

/** The word of the tokenizer's ASCII scan that starts at `start`. */
function wordAt(lower: string, start: number): string {
  let i = start;
  while (i < lower.length && isAlphanumeric(lower.charCodeAt(i))) i++;
  while (i + 1 < lower.length && lower.charCodeAt(i) === 39 && isLetter(lower.charCodeAt(i + 1))) {
    i += 2;
    while (i < lower.length && isLetter(lower.charCodeAt(i))) i++;
  }
  return lower.slice(start, i);
}

/** A word's term as {@link tokenize} and {@link engineTerm} give it; `undefined` for a dropped word. */
function termOf(word: string): string | undefined {
  const token = word.includes("'") ? word.replace(/'s$/u, '').replace(/'/gu, '') : word;
  if (token.length === 0 || ENGLISH_STOP_WORDS.has(token)) return undefined;
  return engineTerm(stem(token));
}

/**
 * A counter of `terms` (engine terms, as the query gave them) in a section indexed with its document's
 * title: the number of tokens of `sectionTokens` whose {@link engineTerm} is each term (absent: 0).
 *
 * The stemmer only cuts suffixes (and may turn a last `i` into `y`), so a word giving a term starts with
 * the term less its last character, apostrophes aside: those words are the only ones looked at.
 */
export function termCounter(terms: readonly string[]): TermCounter {
  const wanted = new Set(terms);
  const count = (counts: Map<string, number>, term: string | undefined): void => {
    if (term !== undefined && wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  };
  // A one-character term is only ever the whole word; a longer one, the word less its last character.
  const prefixes = [
    ...new Set(
      terms
        .filter((term) => /^[a-z0-9]+$/.test(term))
        .map((term) => (term.length === 1 ? term : term.slice(0, -1))),
    ),
  ];
  // Each prefix with an optional apostrophe between its characters ("o'neil" gives "oneil").
  const pattern = new RegExp(prefixes.map((prefix) => [...prefix].join("'?")).join('|') || '(?!)', 'g');
  /** Counts the terms of the words of ASCII text (starting and ending at white space or the text's ends). */
  const countAscii = (counts: Map<string, number>, ascii: string): void => {
    const lower = ascii.toLowerCase();
    pattern.lastIndex = 0;
    for (let match = pattern.exec(lower); match !== null; match = pattern.exec(lower)) {
      const at = match.index;
      // Every position is tried: a rejected match must not hide a word starting inside it.
      pattern.lastIndex = at + 1;
      if (startsWord(lower, at)) count(counts, termOf(wordAt(lower, at)));
    }
  };
  return (title, section) => {
    const text = `${title}\n${section.heading ?? ''}\n${section.text}`;
    const counts = new Map<string, number>();
    // Stretches between ASCII white space that hold other characters are tokenized as the tokenizer does
    // (no word, normalization or casing rule reaches across ASCII white space); the rest is ASCII.
    let from = 0;
    NON_ASCII.lastIndex = 0;
    for (let found = NON_ASCII.exec(text); found !== null; found = NON_ASCII.exec(text)) {
      let start = found.index;
      while (start > from && !isSpace(text.charCodeAt(start - 1))) start--;
      let end = found.index + 1;
      while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
      countAscii(counts, text.slice(from, start));
      for (const token of tokenize(text.slice(start, end))) count(counts, engineTerm(token));
      from = end;
      NON_ASCII.lastIndex = end;
    }
    countAscii(counts, from === 0 ? text : text.slice(from));
    return counts;
  };
}
