/**
 * The kind of thing a question asks for, read from its question word: a time ("When…", "…entered when?",
 * "In what year…"), a number ("How many…", "How much…"), a person ("Who…", "Whom…") or a place ("Where…",
 * "In which country…"). The sentence that ends a research chain is preferred when it holds that kind.
 */
import { mentionsOf } from './leads.ts';

/** What a question asks for. */
export type AnswerType = 'time' | 'number' | 'person' | 'place';

const TIME_QUESTION =
  /^(?:when\b|(?:in|during|by)?\s*(?:what|which)\s+(?:year|date|month|decade|century)\b)|\bwhen\s*\?\s*$/iu;
const NUMBER_QUESTION =
  /\bhow\s+(?:many|much|long|old|tall|far|big|large)\b|^what\s+(?:is|was)\s+the\s+(?:number|population|percentage)\b/iu;
const PERSON_QUESTION = /^(?:who|whom)\b/iu;
const PLACE_QUESTION =
  /^(?:where\b|(?:in|at|from|to)?\s*(?:what|which)\s+(?:country|city|state|town|county|continent|region|province|place|nation)\b)|\bplace\s+of\s+(?:birth|death|burial)\b|\bwhere\s*\?\s*$/iu;
/** A place named after "in", "at", "near" or "on" ("born in Spokane", "died at his home on Fårö"). */
const PLACE_MENTION = /\b(?:in|at|near|on)\s+(?:the\s+)?\p{Lu}[\p{L}\p{M}'’.-]+/u;

const MONTH =
  /\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b/iu;
const YEAR = /\b(?:1\d{3}|20\d{2})s?\b/u;

/** The kind of thing `question` asks for; undefined when its question word does not say. */
export function answerTypeOf(question: string): AnswerType | undefined {
  const text = question.trim();
  if (TIME_QUESTION.test(text)) return 'time';
  if (NUMBER_QUESTION.test(text)) return 'number';
  if (PERSON_QUESTION.test(text)) return 'person';
  if (PLACE_QUESTION.test(text)) return 'place';
  return undefined;
}

/** True when `text` holds a thing of kind `type`: a year or month, a number, a place after "in" or "at", or a name. */
export function holdsAnswerType(text: string, type: AnswerType): boolean {
  if (type === 'time') return YEAR.test(text) || MONTH.test(text);
  if (type === 'number') return /\d/u.test(text.replace(YEAR, ' ')) || /\d/u.test(text);
  if (type === 'place') return PLACE_MENTION.test(text);
  return mentionsOf(text).some((mention) => !mention.initial || mention.name.includes(' '));
}
