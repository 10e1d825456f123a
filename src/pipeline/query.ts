/**
 * Query planning without a model: turns the prompt and the earlier user messages into one standalone
 * search query. A short follow-up that leans on the conversation ("and how tall is it?") gets the salient
 * entity of the most recent earlier user message that names one; any other prompt is searched as-is.
 */
import type { ChatMessage } from './types.ts';
import { endsShort } from '../text/sentences.ts';
import { ENGLISH_STOP_WORDS } from '../text/tokenize.ts';

/** Words that refer back to something said before. */
const ANAPHOR =
  /(?:^|[^\p{L}])(?:it|its|it's|itself|they|them|their|theirs|he|him|his|she|her|hers|this|that|these|those|there|then|the same|one|ones)(?=$|[^\p{L}])/iu;
/** Openers of an elliptical follow-up ("and in 2010?", "what about Berlin?"). */
const CONTINUATION =
  /^(?:and|but|or|so|also|then|what about|how about|what if|same for|why not)(?=$|[^\p{L}])/iu;
/** Sentence-initial capitalised words that are not names. */
const NOT_A_NAME: ReadonlySet<string> = new Set(
  (
    'tell give show explain find list describe compare please can could would should is are was were do does did ' +
    "what which who whom whose when where why how i im i'm hi hello thanks thank ok okay yes no also and but or so " +
    'the a an in on at for from with about my our your'
  ).split(' '),
);
/** Lower-case words allowed inside a capitalised name ("Tower of London", "Leonardo da Vinci"). */
export const NAME_CONNECTORS: ReadonlySet<string> = new Set([
  'of',
  'the',
  'de',
  'da',
  'del',
  'der',
  'di',
  'du',
  'la',
  'le',
  'van',
  'von',
  'y',
  '&',
]);
/** Words too generic to stand for a topic. */
const GENERIC: ReadonlySet<string> = new Set(
  'tell know please explain thing things something anything stuff question answer mean means more information info like want need'.split(
    ' ',
  ),
);

/** Words after which the next word is a verb. */
const SUBJECT: ReadonlySet<string> = new Set([
  'i',
  'we',
  'you',
  'they',
  'to',
  'can',
  'should',
  'could',
  'would',
]);

/** Longest prompt (in words) that can be a follow-up. */
const MAX_FOLLOW_UP_WORDS = 10;
/** Most words added from the context. */
const MAX_ADDED_WORDS = 6;

const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’\-.]*[\p{L}\p{M}\p{N}]|[\p{L}\p{N}]|&/gu;

function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

function isCapitalised(word: string): boolean {
  return /^\p{Lu}/u.test(word) || /^\p{N}+\p{Lu}/u.test(word);
}

/**
 * A message's sentences: they end at ".", "!", "?", ";", ":" or a line break, but not at the period of an
 * abbreviation or a middle initial ({@link endsShort}: "Hyman B. Samuels", "Mr. Smith", "St. Louis").
 */
function messageSentences(message: string): string[] {
  const sentences: string[] = [];
  let sentence = '';
  for (const [piece, end] of message.matchAll(/[^.!?;:\n]*([.!?;:\n]+|$)/gu)) {
    sentence += piece;
    if (end === '.' && endsShort(sentence)) continue;
    if (sentence) sentences.push(sentence);
    sentence = '';
  }
  return sentences;
}

/** Quoted phrases and capitalised names in a message, in order of appearance. */
export function salientEntities(message: string): string[] {
  const entities: string[] = [];
  for (const match of message.matchAll(/["“”«»]([^"“”«»]{2,80})["“”«»]/gu))
    entities.push((match[1] ?? '').trim());
  const unquoted = message.replace(/["“”«»][^"“”«»]{2,80}["“”«»]/gu, ' ');
  for (const sentence of messageSentences(unquoted)) {
    const tokens = words(sentence);
    let phrase: string[] = [];
    const flush = (): void => {
      while (phrase.length > 0 && NAME_CONNECTORS.has((phrase.at(-1) ?? '').toLowerCase())) phrase.pop();
      if (phrase.length > 0) entities.push(phrase.join(' '));
      phrase = [];
    };
    tokens.forEach((token, i) => {
      const lower = token.toLowerCase();
      if (isCapitalised(token) && !(i === 0 && NOT_A_NAME.has(lower)) && lower !== 'i') phrase.push(token);
      else if (phrase.length > 0 && NAME_CONNECTORS.has(lower)) phrase.push(token);
      else flush();
    });
    flush();
  }
  return [...new Set(entities)];
}

/** Content words of a message (no stop words, no generic words), in order, without duplicates. */
function contentWords(message: string): string[] {
  const seen = new Set<string>();
  const all = words(message);
  for (const [i, word] of all.entries()) {
    const lower = word.toLowerCase();
    // The verb of the earlier question ("How do I *create* an API key?") is not its topic.
    if (i > 0 && SUBJECT.has((all[i - 1] ?? '').toLowerCase())) continue;
    if (lower.length < 2 || ENGLISH_STOP_WORDS.has(lower) || NOT_A_NAME.has(lower) || GENERIC.has(lower))
      continue;
    // A bare number ("in 2000") is a detail of the earlier question, not its topic.
    if (/^[\p{N}.,]+$/u.test(lower)) continue;
    seen.add(word);
  }
  return [...seen];
}

/**
 * True when the prompt is a short follow-up that cannot be searched on its own: it refers back with a
 * pronoun ("is it open on Sundays?"), or continues elliptically ("and in 2010?") without naming a topic.
 */
export function isFollowUp(prompt: string): boolean {
  const promptWords = words(prompt);
  if (promptWords.length === 0 || promptWords.length > MAX_FOLLOW_UP_WORDS) return false;
  if (ANAPHOR.test(prompt)) return true;
  const namesItsOwnTopic = salientEntities(prompt).length > 0;
  return !namesItsOwnTopic && (CONTINUATION.test(prompt.trim()) || contentWords(prompt).length <= 1);
}

/**
 * Plans the search query for a prompt and its conversation context.
 *
 * Only `role: "user"` messages are read (the service contract considers no other role). If the prompt is a
 * follow-up ({@link isFollowUp}), the quoted phrases and capitalised names of the most recent earlier user
 * message that has any are put in front of it, topped up with that message's content words when they are
 * fewer than two words; words already in the prompt are not repeated. Otherwise the prompt is returned as
 * it is (trimmed). Deterministic.
 *
 * @example
 * planQuery('and how tall is it?', [{ role: 'user', content: 'Tell me about the Eiffel Tower' }])
 * // → 'Eiffel Tower how tall is it?'
 */
export function planQuery(prompt: string, context: readonly ChatMessage[] = []): string {
  const trimmed = prompt.trim();
  const earlier = context
    .filter((message) => message.role === 'user' && typeof message.content === 'string')
    .map((message) => message.content)
    .filter((content) => content.trim().length > 0 && content.trim() !== trimmed);
  if (earlier.length === 0 || !isFollowUp(trimmed)) return trimmed;

  const present = new Set(words(trimmed).map((w) => w.toLowerCase()));
  const fresh = (phrase: string): boolean => words(phrase).some((w) => !present.has(w.toLowerCase()));
  let added: string[] = [];
  for (let i = earlier.length - 1; i >= 0 && added.length === 0; i--) {
    added = salientEntities(earlier[i] ?? '').filter(fresh);
  }
  const source = earlier.at(-1) ?? '';
  let addedWords = added.flatMap(words);
  if (addedWords.length < 2) {
    const known = new Set([...present, ...addedWords.map((w) => w.toLowerCase())]);
    for (const word of contentWords(source)) {
      if (addedWords.length >= MAX_ADDED_WORDS) break;
      if (known.has(word.toLowerCase())) continue;
      known.add(word.toLowerCase());
      added.push(word);
      addedWords = [...addedWords, word];
    }
  }
  if (added.length === 0) return trimmed;
  const prefix = added.join(' ').split(/\s+/).slice(0, MAX_ADDED_WORDS).join(' ');
  const rest = trimmed.replace(CONTINUATION, '').replace(/^[\s,]+/, '');
  return `${prefix} ${rest}`.trim();
}
