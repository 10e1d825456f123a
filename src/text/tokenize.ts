/**
 * Word tokenizer for full-text scoring: NFKC-normalized, lower-cased runs of Unicode letters and digits,
 * with an optional small English stop-word list and an optional light English stemmer.
 */

/** Options of {@link tokenize}. */
export interface TokenizeOptions {
  /**
   * Drop very common English words ("the", "how", "is", ...).
   * @default true
   */
  readonly removeStopWords?: boolean;
  /**
   * Apply {@link stem} to every token (English only; tokens with non-ASCII letters are left unchanged).
   * @default true
   */
  readonly stem?: boolean;
  /**
   * Locale used for lower-casing (e.g. `tr` lower-cases `I` to dotless `ı`).
   * @default undefined (locale-independent lower-casing)
   */
  readonly locale?: string;
}

/**
 * Small English stop-word list: function words that carry no topic. Question words are included because
 * the pipeline scores prompts such as "How do I create an API key?" against documentation text.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her ' +
    'here hers herself him himself his how i if in into is it its itself just me more most my myself no nor ' +
    'not of off on once only or other our ours ourselves out over own same she should so some such than that ' +
    'the their theirs them themselves then there these they this those through to too under until up very was ' +
    'we were what when where which while who whom why will with would you your yours yourself yourselves ' +
    's t don doesn didn isn aren wasn weren cannot dont doesnt didnt isnt arent wasnt werent cant wont'
  ).split(' '),
);

// Runs of letters (with combining marks) and digits; an apostrophe inside a word is kept so that "don't"
// stays one token and possessive "'s" can be dropped below.
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+)*/gu;
const ASCII_WORD = /^[a-z]+$/;
// Text that is all ASCII (most pages) is scanned by hand: NFKC and Unicode classes change nothing there.
// (A plain code-unit range: `[^\p{ASCII}]` with the u flag takes twice as long on long ASCII text.)
const NON_ASCII = /[\u0080-\uffff]/;
// Scripts written without spaces between words: runs of them are split with Intl.Segmenter's dictionaries.
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
let wordSegmenter: Intl.Segmenter | undefined;
// A word of Latin letters loses its diacritics ("Aschenbrödel" → "aschenbrodel", "Tekezé" → "tekeze"), as
// search engines fold them (SQLite FTS5's remove_diacritics, Lucene's ASCII folding): a name typed without
// its accents still matches. Other scripts keep their marks (in Devanagari or Arabic they are the vowels).
const LATIN_RUN = /^[\p{Script=Latin}\p{M}\p{N}'’]+$/u;
const COMBINING_MARKS = /\p{M}+/gu;

function segmentWords(run: string): string[] {
  wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const words: string[] = [];
  for (const { segment, isWordLike } of wordSegmenter.segment(run)) if (isWordLike) words.push(segment);
  return words;
}
const VOWEL = /[aeiouy]/;

/**
 * Light English suffix stripping (plural, `-ing`, `-ed`, final `-e`), in the spirit of Porter's step 1
 * without its measure rules. It only needs to map inflections of one word to the same key
 * ("create", "creates", "created", "creating" → "creat"), not to produce real words.
 * Tokens containing anything other than ASCII letters are returned unchanged.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !ASCII_WORD.test(word)) return word;
  let w = word;
  // Plurals and third-person -s.
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // -ing / -ed, only when a syllable remains ("sing", "need", "bed" stay).
  let stripped = false;
  if (w.endsWith('ing') && w.length > 5 && VOWEL.test(w.slice(0, -3))) {
    w = w.slice(0, -3);
    stripped = true;
  } else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 4 && VOWEL.test(w.slice(0, -2))) {
    w = w.slice(0, -2);
    stripped = true;
  }
  if (stripped) {
    // "stopped" → "stopp" → "stop", but "called" keeps its "ll".
    const last = w.at(-1);
    if (last !== undefined && last === w.at(-2) && !'lsz'.includes(last) && !VOWEL.test(last))
      w = w.slice(0, -1);
    // "studied" → "studi" → "study", matching "study"/"studies".
    else if (w.endsWith('i') && w.length > 3) w = `${w.slice(0, -1)}y`;
  }
  // Final silent e, so that "create" and "creating" meet at "creat".
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/**
 * Splits text into normalized word tokens.
 *
 * Text is NFKC-normalized (full-width letters, ligatures and compatibility forms fold to their plain
 * forms), lower-cased, split into runs of Unicode letters and digits (so `--rate-limit` gives `rate`,
 * `limit` and `as_1f2e` gives `as`, `1f2e`); words of Latin letters lose their diacritics (`Tekezé` gives
 * `tekeze`; other scripts keep their marks), possessive `'s` is dropped, then stop words are removed and
 * tokens stemmed unless disabled. Runs of Chinese, Japanese, Thai, Lao, Khmer or Burmese text, which
 * have no spaces between words, are split into words with `Intl.Segmenter` (word granularity).
 *
 * @example tokenize('How do I create API keys?') // ['creat', 'api', 'key']
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const removeStopWords = options.removeStopWords ?? true;
  const applyStem = options.stem ?? true;
  const tokens: string[] = [];
  for (const word of lowerCaseWords(text, options.locale)) {
    const token =
      word.includes("'") || word.includes('’') ? word.replace(/['’]s$/u, '').replace(/['’]/gu, '') : word;
    if (token.length === 0) continue;
    if (removeStopWords && ENGLISH_STOP_WORDS.has(token)) continue;
    tokens.push(applyStem ? stem(token) : token);
  }
  return tokens;
}

/** The text's {@link WORD} runs, NFKC-normalized and lower-cased; unspaced scripts split into words. */
function lowerCaseWords(text: string, locale: string | undefined): string[] {
  const lowerCase = (value: string) =>
    locale === undefined ? value.toLowerCase() : value.toLocaleLowerCase(locale);
  if (!NON_ASCII.test(text)) {
    // NFKC leaves ASCII as it is; a locale may not (Turkish lower-cases I to ı), hence the second test.
    const lower = lowerCase(text);
    if (!NON_ASCII.test(lower)) return asciiWords(lower);
  }
  return mixedWords(lowerCase(text.normalize('NFKC')));
}

/** A {@link WORD} run holding non-ASCII characters, as words (see {@link lowerCaseWords}). */
function pushRun(words: string[], run: string): void {
  if (!NON_ASCII.test(run)) words.push(run);
  else if (UNSPACED_SCRIPT.test(run)) words.push(...segmentWords(run));
  else words.push(LATIN_RUN.test(run) ? run.normalize('NFD').replace(COMBINING_MARKS, '') : run);
}

/** {@link WORD} matched at one position only (`lastIndex`). */
const WORD_AT = new RegExp(WORD.source, 'uy');

/**
 * The {@link WORD} runs of normalized, lower-cased text holding non-ASCII characters: ASCII words are
 * scanned by hand as in {@link asciiWords}; where a non-ASCII character starts a word or may continue one,
 * the pattern decides from the word's start (most pages have a few accented words among plain ones, and
 * matching every word with the Unicode pattern took most of the time).
 */
function mixedWords(lower: string): string[] {
  const words: string[] = [];
  const length = lower.length;
  let i = 0;
  while (i < length) {
    const code = lower.charCodeAt(i);
    if (code < 128 && !isAsciiAlphanumeric(code)) {
      i++;
      continue;
    }
    const start = i;
    if (code < 128) {
      while (i < length && isAsciiAlphanumeric(lower.charCodeAt(i))) i++;
      while (i + 1 < length && lower.charCodeAt(i) === 39 && isAsciiLetter(lower.charCodeAt(i + 1))) {
        i += 2;
        while (i < length && isAsciiLetter(lower.charCodeAt(i))) i++;
      }
      // The word ends at an ASCII character the pattern cannot take ("'" then a non-letter counts).
      const next = i < length ? lower.charCodeAt(i) : 0;
      const after = i + 1 < length ? lower.charCodeAt(i + 1) : 0;
      if (next < 128 && !(next === 39 && after >= 128)) {
        words.push(lower.slice(start, i));
        continue;
      }
    }
    WORD_AT.lastIndex = start;
    const match = WORD_AT.exec(lower);
    if (match === null) {
      // Not a word character; a surrogate pair is stepped over whole.
      const low = lower.charCodeAt(start + 1);
      i = start + (code >= 0xd800 && code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff ? 2 : 1);
      continue;
    }
    pushRun(words, match[0]);
    i = start + match[0].length;
  }
  return words;
}

/** `[a-z0-9]` */
function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/** `[a-z]` */
function isAsciiLetter(code: number): boolean {
  return code >= 97 && code <= 122;
}

/**
 * The {@link WORD} runs of lower-cased ASCII text, read as `[a-z0-9]+(?:'[a-z]+)*` and scanned by hand
 * (tokenizing the SQuAD pages takes half the time it took with the Unicode pattern).
 */
function asciiWords(lower: string): string[] {
  const words: string[] = [];
  const length = lower.length;
  let i = 0;
  while (i < length) {
    if (!isAsciiAlphanumeric(lower.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < length && isAsciiAlphanumeric(lower.charCodeAt(i))) i++;
    while (i + 1 < length && lower.charCodeAt(i) === 39 && isAsciiLetter(lower.charCodeAt(i + 1))) {
      i += 2;
      while (i < length && isAsciiLetter(lower.charCodeAt(i))) i++;
    }
    words.push(lower.slice(start, i));
  }
  return words;
}

/**
 * Tokenizes a query: like {@link tokenize}, but if removing stop words leaves nothing (e.g. "Who is
 * The Who?"), the stop words are kept so that the query still matches something.
 */
export function tokenizeQuery(text: string, options: TokenizeOptions = {}): string[] {
  const tokens = tokenize(text, options);
  if (tokens.length > 0 || options.removeStopWords === false) return tokens;
  return tokenize(text, { ...options, removeStopWords: false });
}
