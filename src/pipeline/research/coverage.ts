/**
 * How much of a question what was read resolves. A question has parts ("Which queue runs research jobs on
 * PostgreSQL, and how do I back it up?" has two), each with the stems its evidence must hold: its own
 * meaning words (no light verbs: "runs", "sets", "get") and, for a part that names nothing ("how do I back
 * it up"), the names of the question it refers back to. A part is covered by one sentence (or table row)
 * holding all of them (for a question that does not chain relations: see {@link NESTED}), or by a chain: the sentences that led from the question's names to a page, and that
 * page's best sentence, together. Research stops when every part is covered; research that finds nothing
 * of the question in its first round stops there.
 */
import type { ChainSentence, ExtractedContent } from '../types.ts';
import { nameKey } from './leads.ts';
import { matchesVocabulary, meaningStems, relationVocabulary, type QuestionAnalysis } from './question.ts';
import { leadUnits, quoteOf, unitWords } from './units.ts';

/** Verbs that shape a question without saying what its evidence holds ("which variable sets the port"). */
const LIGHT_VERBS = new Set(
  'set get make use take give put run go come happen keep let need want work mean'
    .split(' ')
    .map((word) => meaningStems(word)[0]!),
);

/** Where a question joins two questions: ", and how …", "; and what …", " and where …". */
const PART_BREAK =
  /\s*(?:[,;]\s*(?:and\s+)?|\s+and\s+)(?=(?:how|what|which|who|whom|whose|where|when|why|is|are|does|do|can|should)\b)/iu;

/** Units read per document for the sentence that answers a part. */
const MAX_PART_UNITS = 400;
/** A sentence about the page rather than its subject. */
const PAGE_INTRO =
  /^(?:this|the following|on this|in this)\s+(?:[\p{L}-]+\s+)?(?:page|guide|document|section|chapter)\b/iu;
/** Units read per document when judging coverage. */
const MAX_UNITS = 60;
/**
 * Sentences opening with a pronoun read with the one before when judging coverage: one ("The Kestrel 500 is
 * our survey drone. It flies for 42 minutes."). A biography's run of "She …" sentences read as one names
 * everything in a life ("… moved to New York City … She served as the Director of The Frost Place Advanced
 * Seminar from 2007–2010" is no answer to where that seminar is located).
 */
const COVERING_FOLLOWERS = 1;
/** Stems of a part that one unit must hold (all of them for a shorter part) for research to have found something. */
const FOUND_STEMS = 2;

/**
 * A question that chains relations ("the father of Prince Boris", "Humehume's father", "the business X was
 * chairman of"): one sentence holding all its words is usually the first hop's (Boris's own birth), not
 * the answer, so only a chain covers it.
 */
const NESTED = /\bof\b|\p{L}['’]s?\s/iu;

/** One part of a question and the stems its evidence must hold. */
export interface QuestionPart {
  readonly text: string;
  readonly stems: readonly string[];
}

/** The parts of a question (one for a simple question). */
export function questionParts(analysis: QuestionAnalysis): QuestionPart[] {
  const body = analysis.question.replace(/[?.!]+\s*$/u, '');
  const texts = body.split(PART_BREAK).filter((part) => meaningStems(part).length > 0);
  const nameStems = analysis.entities.flatMap((name) => meaningStems(name));
  return texts.map((text) => {
    const own = meaningStems(text).filter((stem) => !LIGHT_VERBS.has(stem));
    const namesNothing = !analysis.entities.some((name) => text.includes(name));
    return { text, stems: [...new Set(namesNothing ? [...own, ...nameStems] : own)] };
  });
}

/** The stems of `stems` that `words` holds (a relation's usual wording counts: "directed" for "director"). */
export function stemsHeld(stems: readonly string[], words: string | readonly string[]): string[] {
  const present = typeof words === 'string' ? meaningStems(words) : words;
  return stems.filter((stem) => {
    const vocabulary = relationVocabulary([stem]);
    return present.some((word) => matchesVocabulary(word, vocabulary));
  });
}

/**
 * True when `held` of a part's stems is enough to cover it: all of them (a unit that misses one word of
 * "Where did James Stanley's father die?" is James Stanley's own page, the first hop, not the answer).
 */
function enough(part: QuestionPart, held: number): boolean {
  return part.stems.length > 0 && held >= part.stems.length;
}

/** The stems of every unit of the documents. */
function unitStemsOf(documents: readonly ExtractedContent[]): string[][] {
  return documents.flatMap((doc) =>
    leadUnits(doc.text, doc.markdown, MAX_UNITS, COVERING_FOLLOWERS).map((unit) =>
      meaningStems(`${doc.title} ${unit.words}`),
    ),
  );
}

/** True when each part of the question is covered by one unit (sentence or table row) of the documents. */
export function coveredByOne(
  question: string,
  parts: readonly QuestionPart[],
  documents: readonly ExtractedContent[],
): boolean {
  if (parts.length === 0 || documents.length === 0 || NESTED.test(question)) return false;
  const units = unitStemsOf(documents);
  return parts.every((part) => units.some((stems) => enough(part, stemsHeld(part.stems, stems).length)));
}

/** True when a chain's bridge sentences and one of the units where it ends together cover every part. */
export function coveredByChain(
  parts: readonly QuestionPart[],
  bridges: readonly string[],
  ends: readonly string[],
): boolean {
  const along = meaningStems(bridges.join(' '));
  return (
    parts.length > 0 &&
    ends.some((end) => {
      const stems = [...along, ...meaningStems(unitWords(end))];
      return parts.every((part) => enough(part, stemsHeld(part.stems, stems).length));
    })
  );
}

/**
 * True when the first round found nothing of the question: none of its names stands in a document read,
 * and no sentence holds two of any part's words together.
 */
export function foundNothing(
  analysis: QuestionAnalysis,
  parts: readonly QuestionPart[],
  documents: readonly ExtractedContent[],
): boolean {
  if (documents.length === 0) return true;
  const texts = documents.map((doc) => nameKey(`${doc.title} ${doc.text}`));
  const names = [...analysis.entities, ...analysis.sides].map(nameKey).filter((key) => key.length > 1);
  if (names.some((name) => texts.some((text) => ` ${text} `.includes(` ${name} `)))) return false;
  const units = unitStemsOf(documents);
  return !parts.some((part) =>
    units.some((stems) => stemsHeld(part.stems, stems).length >= Math.min(FOUND_STEMS, part.stems.length)),
  );
}

/**
 * For a question that one sentence per part covers ({@link coveredByOne}), the sentence (or table row) that
 * covers each part, in the order of the parts: "jobs run on the queue …: pg-boss on PostgreSQL" for "Which
 * queue runs research jobs on PostgreSQL", then "back it up with PostgreSQL's tools" for "and how do I back
 * it up?". Empty when a part is not covered that way.
 */
export function partSentences(
  question: string,
  parts: readonly QuestionPart[],
  documents: readonly ExtractedContent[],
): ChainSentence[] {
  if (!coveredByOne(question, parts, documents)) return [];
  const units = documents.flatMap((doc) =>
    leadUnits(doc.text, doc.markdown, MAX_PART_UNITS)
      // A sentence that leads into a list ("… runs:") or speaks of the page ("This page covers …") does not
      // answer by itself.
      .filter((unit) => !/:\s*$/u.test(unit.words) && !PAGE_INTRO.test(unit.words))
      .map((unit) => ({
        text: quoteOf(unit),
        url: doc.url,
        stems: meaningStems(`${doc.title} ${unit.words}`),
        own: meaningStems(unit.words),
        heading: meaningStems(unit.heading ?? ''),
      })),
  );
  const chosen: ChainSentence[] = [];
  for (const part of parts) {
    // All of the part's words, most of them in the sentence itself (not only in its page's title), then
    // most of them in the heading it stands under ("back it up with PostgreSQL's tools" under "PostgreSQL
    // and Redis" rather than a table row that names PostgreSQL in passing), then the shortest.
    let best: (typeof units)[number] | undefined;
    let bestRank: readonly number[] = [];
    for (const unit of units) {
      if (!enough(part, stemsHeld(part.stems, unit.stems).length)) continue;
      const rank = [
        stemsHeld(part.stems, unit.own).length,
        stemsHeld(part.stems, unit.heading).length,
        -unit.text.length,
      ];
      if (best === undefined || isAhead(rank, bestRank)) [best, bestRank] = [unit, rank];
    }
    if (!best) return [];
    if (!chosen.some((c) => c.text === best.text)) chosen.push({ text: best.text, url: best.url });
  }
  return chosen;
}

/** True when `a` comes before `b`, compared entry by entry. */
function isAhead(a: readonly number[], b: readonly number[]): boolean {
  const at = a.findIndex((value, i) => value !== b[i]);
  return at >= 0 && a[at]! > b[at]!;
}
