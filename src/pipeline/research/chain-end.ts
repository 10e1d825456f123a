/**
 * How well a unit ends a chain: the outermost relation's words it holds that the bridges do not, the kind
 * of thing asked (a year for "when", a place for "where"), and, for "what river", "which county", "the name
 * of the airport", a name of that class ("North Canadian River", "DuPage County", "Wilmington International
 * Airport"): the question asks for a thing of that class, and the sentence naming one answers it.
 */
import { answerTypeOf, holdsAnswerType, type AnswerType } from './answer-type.ts';
import { stem } from '../../text/tokenize.ts';

/** What an end holding the kind of thing asked (a year for "when") adds to the words it holds. */
const TYPE_FIT = 0.5;
/** What an end naming a thing of the class asked ("North Canadian River" for "What river…") adds. */
export const CLASS_FIT = 1.5;

/**
 * Words after "what"/"which" that are not the class of thing asked ("what is", "which of", "what kind of"
 * goes on to the class).
 */
const NOT_A_CLASS = new Set(
  (
    'is are was were do does did has have had can could will would should of the a an kind type sort name ' +
    'year date month day time one ones other another two both'
  ).split(' '),
);

/** "what river", "which mountain range", "in what county", "what kind of university", "the name of the airport". */
const CLASS_AFTER =
  /\b(?:what|which)\s+(?:(?:kind|type|sort)\s+of\s+(?:an?\s+|the\s+)?)?([\p{Ll}-]+)(?:\s+([\p{Ll}-]+))?/u;
const NAME_OF = /\bname\s+of\s+(?:the|a|an|this|that)\s+([\p{Ll}-]+)/u;
/** "What is the current home arena of …": the last word before "of", "for", "in" or a verb. */
const WHAT_IS_THE =
  /^\s*(?:what|which)\s+(?:is|was|are|were)\s+the\s+((?:[\p{Ll}-]+\s+){0,3}?)([\p{Ll}-]+)\s+(?:of|for|in|on|at|that|which|where|did|does|do|was|is|whose)\b/u;

/** The class of thing a question asks for, as stems of one or two words ("river", "mountain range"); empty when it asks none. */
export function askedClass(question: string): string[] {
  const text = question.toLowerCase();
  const words: string[] = [];
  const named = NAME_OF.exec(text);
  if (named?.[1]) words.push(named[1]);
  const whatIs = WHAT_IS_THE.exec(text);
  if (whatIs?.[2] && !NOT_A_CLASS.has(whatIs[2])) words.push(whatIs[2]);
  const after = CLASS_AFTER.exec(text);
  if (after?.[1] && !NOT_A_CLASS.has(after[1])) {
    words.push(after[1]);
    if (after[2] && !NOT_A_CLASS.has(after[2])) words.push(after[2]);
  }
  return [...new Set(words.filter((word) => word.length > 2).map((word) => stem(word)))];
}

/** A capitalised name's words: each capitalised, lower-case connectors between them ("Sangre de Cristo Range"). */
const NAME =
  /\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+(?:(?:de|del|la|le|of|the|du|von|van|y)\s+)?\p{Lu}[\p{L}\p{M}'’.-]*)*/gu;

/** True when `text` names a thing of the class ("North Canadian River" for "river"): a name of two words or more whose last word is the class, not a name of the question. */
export function namesClass(text: string, classStems: readonly string[], question: string): boolean {
  if (classStems.length === 0) return false;
  for (const match of text.matchAll(NAME)) {
    const name = match[0].replace(/[.'’-]+$/u, '');
    const words = name.split(/\s+/u);
    if (words.length < 2) continue;
    const last = stem(
      words
        .at(-1)!
        .toLowerCase()
        .replace(/[^\p{L}]+/gu, ''),
    );
    if (classStems.includes(last) && !question.includes(name)) return true;
  }
  return false;
}

/** What a question asks for: its answer type and the class of thing it names. */
export interface AskedFor {
  readonly type: AnswerType | undefined;
  readonly classStems: readonly string[];
  readonly question: string;
}

/** What `question` asks for. */
export function askedFor(question: string): AskedFor {
  return { type: answerTypeOf(question), classStems: askedClass(question), question };
}

/** What a unit holding `held` of the missing words adds for holding the kind and class of thing asked. */
export function endFit(held: number, words: string, asked: AskedFor): number {
  const typeFit = asked.type !== undefined && holdsAnswerType(words, asked.type) ? TYPE_FIT : 0;
  const classFit = namesClass(words, asked.classStems, asked.question) ? CLASS_FIT : 0;
  return held + typeFit + classFit;
}
