/**
 * The sentences a comparison's answer opens with: for each side, in the question's order, the sentence (or
 * table row) that holds what is compared, then the bridge sentences that led to it. "Which film has the
 * director who died later, Payment on Demand or My Cousin from Warsaw?" opens with each director's death
 * (on the director's page), each followed by "… directed by …" (on the film's page): the reader compares
 * the two ends. A side read only on its own page ("Which film came out first, X or Y?") gives that page's
 * sentence holding the compared thing ("X is a 1935 British musical film").
 */
import type { ChainSentence } from '../types.ts';
import { answerTypeOf, holdsAnswerType } from './answer-type.ts';
import { unitsAbout } from './chain.ts';
import { stemsHeld } from './coverage.ts';
import { nameKey } from './leads.ts';
import { meaningStems, type QuestionAnalysis } from './question.ts';
import type { SearchedQuery } from './types.ts';
import { unitWords } from './units.ts';

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
}

/** The best chain of one side: its end and bridges, scored by how much of the question they hold. */
function sideChain(
  stems: readonly string[],
  wantsTime: boolean,
  queries: readonly SearchedQuery[],
): SideChain | undefined {
  let best: SideChain | undefined;
  for (const searched of queries) {
    const name = searched.planned.lead?.name ?? searched.planned.focus[0];
    if (name === undefined) continue;
    const bridges = searched.planned.bridges ?? [];
    const along = new Set(stemsHeld(stems, bridges.map((b) => `${b.title} ${b.text}`).join(' ')));
    // A lead's page is a side's end only through a bridge that holds part of the question (the side's
    // director): a name that merely stands on the side's page is another thing.
    if (bridges.length > 0 && along.size === 0) continue;
    const missing = stems.filter((stem) => !along.has(stem));
    const key = nameKey(name);
    for (const unit of unitsAbout(searched, name)) {
      const words = unitWords(unit.words);
      const held = stemsHeld(missing, words).length;
      if (held === 0 && missing.length > 0) continue;
      // An end that names its subject reads on its own ("Harlem Nights is a 1989 film", not "The film
      // was released in 1989").
      const names = ` ${nameKey(unit.words)} `.includes(` ${key} `) ? NAMES_SUBJECT : 0;
      const fit =
        along.size + held + names + (wantsTime && holdsAnswerType(unit.words, 'time') ? TIME_FIT : 0);
      // Of two ends that hold as much, the one at the end of the longer chain (the director's death, not
      // the film's year).
      if (!best || fit > best.fit)
        best = {
          fit,
          sentences: [unit, ...bridges].slice(0, PER_SIDE).map(({ text, url }) => ({ text, url })),
        };
    }
  }
  return best;
}

/**
 * For a comparison, each side's end and bridges, side after side; empty for a question about one thing, or
 * when a side has no sentence holding any of what is compared.
 */
export function sideSentences(
  analysis: QuestionAnalysis,
  rounds: readonly (readonly SearchedQuery[])[],
): ChainSentence[] {
  if (analysis.sides.length < 2) return [];
  const sideStems = new Set(analysis.sides.flatMap((side) => meaningStems(side)));
  const stems = meaningStems(analysis.question).filter((stem) => !sideStems.has(stem));
  const wantsTime = answerTypeOf(analysis.question) === 'time' || COMPARES_TIME.test(analysis.question);
  const queries = rounds.flat().filter((q) => q.planned.kind === 'side' || q.planned.kind === 'lead');
  const chains = analysis.sides.map((_, thread) =>
    sideChain(
      stems,
      wantsTime,
      queries.filter((q) => q.planned.thread === thread),
    ),
  );
  if (chains.some((chain) => chain === undefined)) return [];
  const seen = new Set<string>();
  return chains
    .flatMap((chain) => chain!.sentences)
    .filter((sentence) => {
      const key = sentence.text.trim().toLowerCase();
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
