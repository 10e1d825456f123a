/**
 * The extractive answer after research: the chain's sentences that open it, the next hop through prose,
 * and what the answer keeps of its own choice beside them (the best-scored, the hop before a weak page's
 * sentence, room filled with the best of the rest). Answers without research never reach the hop or the
 * fill.
 */
import type { AnswerInput } from '../types.ts';
import { escapeRegExp } from '../../text/regexp.ts';
import { tokenize } from '../../text/tokenize.ts';
import { matchesVocabulary, relationVocabulary } from '../research/question.ts';
import { holdsAnswerType, type AnswerType } from '../research/answer-type.ts';
import { namesEveryWord } from '../research/verdict.ts';
import { namedIn, repeats, sortInReadingOrder, within, type Candidate } from './candidate.ts';

/** Whether `text` names the person or thing `name` whole, a middle initial allowed ("Nathan H. Juran" for "Nathan Juran"). */
function namedWithInitials(text: string, name: string): boolean {
  if (namedIn(text, name)) return true;
  const words = name.split(/\s+/u).map(escapeRegExp);
  if (words.length < 2 || !/^\p{Lu}/u.test(name)) return false;
  const pattern = words.join(String.raw`\s+(?:\p{Lu}\.\s+)?`);
  return new RegExp(`(?<![\\p{L}\\p{N}])${pattern}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/** The query's terms that none of `said` holds, nor a synonym of them. */
export function queryTermsLacking(
  weights: ReadonlyMap<string, number>,
  said: readonly { readonly tokens: ReadonlySet<string> }[],
  hasSynonym: (tokens: ReadonlySet<string>, term: string) => boolean,
): string[] {
  return [...weights.keys()].filter((term) =>
    said.every((s) => !s.tokens.has(term) && !hasSynonym(s.tokens, term)),
  );
}

/** The page title without its qualifier ("Iron Maiden (band)" → "Iron Maiden"). */
function titleName(title: string): string {
  return title.replace(/\s*\([^()]*\)\s*$/u, '').trim();
}

/**
 * The next hop after research: the sentence of a page that a chosen sentence or a chain sentence of another
 * page names by its title, holding the kind of thing asked (a place for "where", a year for "when") and then
 * the most of the query's words that no chosen or chain sentence holds (the best-scored of those holding as
 * many); undefined when none holds one.
 */
export function nextHop(
  chosen: readonly Candidate[],
  candidates: readonly Candidate[],
  opening: readonly { text: string; url: string }[],
  lacking: readonly string[],
  synonymShare: (tokens: ReadonlySet<string>, term: string) => number,
  asked: AnswerType | undefined,
): Candidate | undefined {
  if (lacking.length === 0) return undefined;
  const naming = [...chosen.map((c) => ({ text: c.plain, url: c.url })), ...opening];
  // A relation is held by the words its evidence uses too ("born in Liverpool" for "place of birth").
  const related = lacking.map((term) => relationVocabulary([term]));
  // Holding the kind of thing asked outweighs every lacking word together (each counts at most one), so a
  // sentence holding it comes first.
  const typeFirst = lacking.length + 1;
  let hop: Candidate | undefined;
  let hopHeld = 0;
  for (const c of candidates) {
    if (chosen.includes(c) || c.intro) continue;
    const name = titleName(c.title);
    if (name.split(/\s+/u).length > 6) continue;
    // The hop's page is about another name than the question's: a sentence naming another thing is its
    // page's own only when it names the page's subject ("Wolfgang Heinz Porsche (born …)" on Wolfgang
    // Porsche's page, for "Susanne Porsche's husband").
    if (c.namesOther && !namesEveryWord(c.plain, name)) continue;
    if (!naming.some((said) => said.url !== c.url && namedWithInitials(said.text, name))) continue;
    // A word or the words its evidence uses count whole, a synonym its share ("rank" is not "place").
    const held = lacking.reduce(
      (sum, term, i) =>
        sum +
        (c.tokens.has(term) || [...c.tokens].some((token) => matchesVocabulary(token, related[i]!))
          ? 1
          : synonymShare(c.tokens, term)),
      0,
    );
    if (held === 0) continue;
    // The kind of thing asked first: "(born John Winston Lennon; 9 October 1940 …) was an English
    // singer" holds more of "place of birth of the performer" than "Born in Liverpool, Lennon …", and no place.
    const fit = (asked !== undefined && holdsAnswerType(c.plain, asked) ? typeFirst : 0) + held;
    if (fit > hopHeld || (fit === hopHeld && c.score > hop!.score)) [hop, hopHeld] = [c, fit];
  }
  return hop;
}

/**
 * The research chain's sentences that open the answer (its end, then its bridges: {@link AnswerInput.chain}),
 * at most `max`, leaving room for one sentence of the answerer's own choice when the chain is shorter.
 */
export function chainOpening(
  input: AnswerInput,
  max: number,
): { text: string; url: string; tokens: ReadonlySet<string> }[] {
  const links: { text: string; url: string; tokens: ReadonlySet<string> }[] = [];
  for (const link of input.chain ?? []) {
    const text = link.text.replace(/\s+/gu, ' ').trim();
    const tokens = new Set(tokenize(text));
    // A link an earlier one already quotes (a bridge that is the end's own sentence) is said once.
    if (text.length > 0 && links.every((said) => !within(tokens, said.tokens)))
      links.push({ ...link, text, tokens });
  }
  return links.slice(0, max);
}

/**
 * The chosen sentences the opening does not already say, as many as `maxSentences` leaves room for, in
 * reading order, then the next hop when there is room for it and nothing said holds it. `chosen` is in the
 * order the sentences were chosen (the best first): when the chain's sentences leave room for only some of
 * them, the answer keeps the best-scored, not the first in reading order (a weaker sentence of the best
 * sentence's page had taken the place of a stronger one of another page). When the answer is full, the hop
 * takes the place of the last-ranked sentence that `yieldsToHop` (a sentence of a weak passage of another
 * page): the hop is the sentence the chain names, that one only scored against the whole question.
 */
export function restOfAnswer(
  chosen: readonly Candidate[],
  opening: readonly { readonly tokens: ReadonlySet<string> }[],
  hop: Candidate | undefined,
  limits: {
    readonly maxSentences: number;
    readonly duplicateThreshold: number;
    readonly yieldsToHop: (c: Candidate) => boolean;
  },
): Candidate[] {
  const { maxSentences, duplicateThreshold } = limits;
  const rest = chosen
    .filter((candidate) => opening.every((link) => !repeats(link, candidate, duplicateThreshold)))
    .slice(0, Math.max(0, maxSentences - opening.length));
  const adds = (c: Candidate): boolean =>
    [...opening, ...rest].every((said) => said === c || !repeats(said, c, duplicateThreshold));
  if (hop !== undefined && opening.length + rest.length >= maxSentences && adds(hop)) {
    const weakest = rest.findLastIndex(limits.yieldsToHop);
    if (weakest >= 0) rest.splice(weakest, 1);
  }
  sortInReadingOrder(rest);
  if (hop !== undefined && opening.length + rest.length < maxSentences && adds(hop)) rest.push(hop);
  return rest;
}

/**
 * Appends to `rest` the best-ranked candidates scoring at least `minScore` until the answer holds
 * `maxSentences`, skipping intros, units overlapping or nearly repeating a sentence already said, and those
 * `allowed` refuses.
 */
export function fillRoom(
  rest: Candidate[],
  opening: readonly { readonly tokens: ReadonlySet<string> }[],
  ranked: readonly Candidate[],
  limits: {
    readonly maxSentences: number;
    readonly minScore: number;
    readonly duplicateThreshold: number;
    readonly allowed: (c: Candidate) => boolean;
  },
): void {
  for (const candidate of ranked) {
    if (opening.length + rest.length >= limits.maxSentences) return;
    if (candidate.score < limits.minScore || candidate.intro || !limits.allowed(candidate)) continue;
    if (rest.some((s) => s === candidate || s.sentences.some((n) => candidate.sentences.includes(n))))
      continue;
    if ([...opening, ...rest].every((said) => !repeats(said, candidate, limits.duplicateThreshold)))
      rest.push(candidate);
  }
}
