/**
 * The sentences a comparison's answer opens with: for each side, in the question's order, the sentence (or
 * table row) that holds what is compared, then the bridge sentences that led to it. "Which film has the
 * director who died later, Payment on Demand or My Cousin from Warsaw?" opens with each director's death
 * (on the director's page), each followed by "… directed by …" (on the film's page): the reader compares
 * the two ends. A side read only on its own page ("Which film came out first, X or Y?") gives that page's
 * sentence holding the compared thing ("X is a 1935 British musical film").
 */
import type { AnswerVerdict, ChainSentence } from '../types.ts';
import { answerTypeOf, holdsAnswerType } from './answer-type.ts';
import { bridgeText, unitsAbout } from './chain.ts';
import { countriesIn } from './countries.ts';
import { stemsHeld } from './coverage.ts';
import { nameKey } from './leads.ts';
import { meaningStems, type QuestionAnalysis } from './question.ts';
import type { SearchedQuery } from './types.ts';
import { unitWords } from './units.ts';
import { namesEveryWord, RELATED_THING, verdictOf } from './verdict.ts';

/**
 * Sentences per side: its end and the bridge that names the side ("X is a film directed by D"), so that
 * every side's end fits in an answer of four sentences.
 */
const PER_SIDE = 2;
/** What an end naming its subject adds to its fit, as much as a word of the question. */
const NAMES_SUBJECT = 1;
/** What an end holding a date adds when the comparison is of time. */
const TIME_FIT = 0.5;

/**
 * A comparison of when things happened or how old they are ("came out first", "died later", "older",
 * "lived longer", "more recently"): the end of each side holds a date.
 */
const COMPARES_TIME =
  /\b(?:first|earlier|earliest|later|latest|last|older|oldest|younger|youngest|longer|recently|before|after|born|died|released|founded|established|formed|opened)\b/iu;

interface SideChain {
  readonly sentences: ChainSentence[];
  readonly fit: number;
  /** Holds part of the question (2), names its subject in every word (1), or both (3). */
  readonly rank: number;
  /** Its end names the chain's subject (the side, or the lead the bridges led to), every word of it. */
  readonly anchored: boolean;
  /** Its end was reached through a bridge (the side's director's page), not read on the side's own page. */
  readonly bridged: boolean;
  /** Its first bridge (page title or sentence) names the side. */
  readonly bridgeNamesSide: boolean;
}

/** Stems asking for a country ("from the same country", "nationality"): a country's name or people's word holds them. */
const COUNTRY_STEMS = new Set(meaningStems('country nationality citizenship'));

/** How many of `missing` the unit holds; a country it names holds "country" and "nationality". */
function heldOf(missing: readonly string[], text: string, words: string): number {
  const held = new Set(stemsHeld(missing, words));
  if (missing.some((stem) => COUNTRY_STEMS.has(stem) && !held.has(stem)) && countriesIn(text).length > 0)
    for (const stem of missing) if (COUNTRY_STEMS.has(stem)) held.add(stem);
  return held.size;
}

/** The best chain of one side: its end and bridges, scored by how much of the question they hold. */
function sideChain(
  side: string,
  stems: readonly string[],
  wantsTime: boolean,
  related: boolean,
  queries: readonly SearchedQuery[],
): SideChain | undefined {
  let best: SideChain | undefined;
  for (const searched of queries) {
    const name = searched.planned.lead?.name ?? searched.planned.focus[0];
    if (name === undefined) continue;
    const bridges = searched.planned.bridges ?? [];
    const along = new Set(stemsHeld(stems, bridges.map(bridgeText).join(' ')));
    // A lead's page is a side's end only through a bridge that holds part of the question (the side's
    // director): a name that merely stands on the side's page is another thing.
    if (bridges.length > 0 && along.size === 0) continue;
    const missing = stems.filter((stem) => !along.has(stem));
    const key = nameKey(name);
    for (const unit of unitsAbout(searched, name)) {
      const words = unitWords(unit.words);
      const held = heldOf(missing, unit.words, words);
      const anchored = namesEveryWord(unit.words, name);
      // A unit that holds none of what is compared is an end only when it names its subject (the side's
      // defining sentence), and only for want of one that does: it lets a yes/no answer quote both sides.
      if (held === 0 && missing.length > 0 && !anchored) continue;
      // An end that names its subject reads on its own ("Harlem Nights is a 1989 film", not "The film
      // was released in 1989").
      const names = ` ${nameKey(unit.words)} `.includes(` ${key} `) ? NAMES_SUBJECT : 0;
      const fit =
        along.size + held + names + (wantsTime && holdsAnswerType(unit.words, 'time') ? TIME_FIT : 0);
      // An end that holds part of the question comes next, then one that names its subject in every word
      // (a sentence of another thing on the page says nothing of the side); of two ends that hold as
      // much, the one at the end of the longer chain (the director's death, not the film's year).
      // A question about a thing related to each side (its director) is answered at the end of a bridge.
      const rank =
        (related && bridges.length > 0 ? 4 : 0) +
        (held > 0 || missing.length === 0 ? 2 : 0) +
        (anchored ? 1 : 0);
      if (!best || rank > best.rank || (rank === best.rank && fit > best.fit))
        best = {
          fit,
          rank,
          sentences: [unit, ...bridges].slice(0, PER_SIDE).map(({ text, url }) => ({ text, url })),
          anchored,
          bridged: bridges.length > 0,
          bridgeNamesSide:
            bridges.length > 0 && namesEveryWord(`${bridges[0]!.title} ${bridges[0]!.text}`, side),
        };
    }
  }
  return best;
}

/** What a comparison's answer opens with: a verdict when the sides' ends decide it, then each side's chain. */
export interface SideAnswer {
  readonly sentences: ChainSentence[];
  readonly verdict?: AnswerVerdict;
}

/**
 * For a comparison, each side's end and bridges, side after side, and the verdict their ends decide
 * (verdict.ts); no sentences for a question about one thing, or when a side has no sentence holding any
 * of what is compared.
 */
export function sideSentences(
  analysis: QuestionAnalysis,
  rounds: readonly (readonly SearchedQuery[])[],
): SideAnswer {
  if (analysis.sides.length < 2) return { sentences: [] };
  const sideStems = new Set(analysis.sides.flatMap((side) => meaningStems(side)));
  const stems = meaningStems(analysis.question).filter((stem) => !sideStems.has(stem));
  const wantsTime = answerTypeOf(analysis.question) === 'time' || COMPARES_TIME.test(analysis.question);
  const queries = rounds.flat().filter((q) => q.planned.kind === 'side' || q.planned.kind === 'lead');
  const chains = analysis.sides.map((side, thread) =>
    sideChain(
      side,
      stems,
      wantsTime,
      RELATED_THING.test(analysis.question),
      queries.filter((q) => q.planned.thread === thread),
    ),
  );
  if (chains.some((chain) => chain === undefined)) return { sentences: [] };
  const seen = new Set<string>();
  const sentences = chains
    .flatMap((chain) => chain!.sentences)
    .filter((sentence) => {
      const key = sentence.text.trim().toLowerCase();
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const verdict = verdictOf(
    analysis.question,
    chains.map((chain, i) => ({
      side: analysis.sides[i]!,
      end: chain!.sentences[0]!,
      anchored: chain!.anchored,
      bridged: chain!.bridged,
      bridgeNamesSide: chain!.bridgeNamesSide,
    })),
  );
  return { sentences, ...(verdict ? { verdict } : {}) };
}
