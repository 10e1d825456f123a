/**
 * When research knows every part of the question is covered, and stops. A question is covered by one
 * sentence or table row per part (for a question that does not chain relations), or by a chain that
 * resolves each of its relations: the sentences that led from the question's name to a lead, and a sentence
 * where the chain ends that answers the outermost relation with the kind of thing asked (a person for
 * "Who…", a year for "When…"). "Who is the spouse of Big Eyes' director?" is covered by "Big Eyes is a 2014
 * film directed by Tim Burton" and, on Tim Burton's page, "Burton married Lena Gieseke in 1989": the
 * director and the spouse are each resolved, and the end names a person.
 */
import { answerTypeOf, holdsAnswerType } from './answer-type.ts';
import { bridgeText, chainEnds, documentsOf, unitsAbout, wordsOfQuestion } from './chain.ts';
import { coveredByChain, coveredByOne, questionParts, stemsHeld } from './coverage.ts';
import { hopOrder } from './hops.ts';
import { meaningStems, type QuestionAnalysis } from './question.ts';
import { nameKey } from './leads.ts';
import type { PlannedQuery, ResearchState, SearchedQuery } from './types.ts';
import { unitWords } from './units.ts';

/**
 * Every part of the question is covered by what was read: by one sentence or table row, or by a chain the
 * latest round followed (its bridge sentences and a unit where it ends), holding every word of each part or
 * resolving each relation ({@link coveredByRelations}).
 */
export function covered(state: ResearchState): boolean {
  const { analysis } = state;
  const parts = questionParts(analysis);
  const documents = state.rounds.flat().flatMap((q) => q.documents);
  if (coveredByOne(analysis.question, parts, documents)) return true;
  // A comparison needs every side's chain: one side's chain covering the question's words is not enough.
  if (analysis.sides.length > 0) return false;
  return (state.rounds.at(-1) ?? []).some((searched) => {
    const bridges = (searched.planned.bridges ?? []).map(bridgeText);
    const ends = chainEnds(searched).map((end) => end.words);
    return (
      coveredByChain(parts, bridges, ends) ||
      coveredByRelations(analysis, bridges, ends, searched.planned.origin)
    );
  });
}

/**
 * True when a chain resolves each relation of the question: one of its end units holds every word of the
 * outermost relation (the last hop, {@link hopOrder}: "leads" and "team" of "who leads the team that …") and, when the question says what kind of thing it
 * asks for, a thing of that kind; and every other relation has a word in the bridges or that end. A
 * question that names nothing (its relations have no order), or with fewer than two relations (a chain of
 * one hop is the first round's business), is not covered this way.
 */
export function coveredByRelations(
  analysis: QuestionAnalysis,
  bridges: readonly string[],
  ends: readonly string[],
  origin?: string,
): boolean {
  // Without a name to start from, the relations have no order and none is known to be the last.
  if (analysis.entities.length === 0 || bridges.length === 0) return false;
  const hops = hopOrder(analysis, origin);
  const last = hops.at(-1);
  if (hops.length < 2 || last === undefined) return false;
  const answerType = answerTypeOf(analysis.question);
  const along = bridges.join(' ');
  return ends.some((end) => {
    const words = unitWords(end);
    if (stemsHeld(last.stems, words).length < last.stems.length) return false;
    if (answerType !== undefined && !holdsAnswerType(end, answerType)) return false;
    return hops.every((hop) => stemsHeld(hop.stems, `${along} ${words}`).length > 0);
  });
}

/**
 * The chain of a lead the next round would follow, on a line of research from one of the question's names,
 * whose own page (titled by its very name) is already among what was read, when that chain resolves each relation ({@link coveredByRelations}): searching it would
 * only read again what is there, so it is kept as if searched (its query, no hits, the pages about it) and
 * research stops. "Big Stone Gap is a film directed by Adriana Trigiani", and the question's own search read
 * Adriana Trigiani's page: a question about where the director is based stops after its first round.
 * Undefined when no such chain covers the question.
 */
export function chainAlreadyRead(
  state: ResearchState,
  planned: readonly PlannedQuery[],
): SearchedQuery | undefined {
  const { analysis } = state;
  if (analysis.sides.length > 0) return undefined;
  const documents = documentsOf(state.rounds.flat());
  const stems = meaningStems(analysis.question);
  for (const query of planned) {
    const lead = query.lead;
    // A lead made of the question's own words ("Place of birth") is a page about the relation.
    if (!lead?.related || query.origin === undefined || wordsOfQuestion(lead.name, stems)) continue;
    // Its own page only, titled by its very name ("Kansas", not "Kansas's 4th congressional district"): a
    // sentence of another page that names it may be about anything.
    const key = nameKey(lead.name);
    const own = documents.filter((d) => nameKey(d.title) === key);
    const ends = unitsAbout({ planned: query, hits: [], documents: own }, lead.name);
    const bridges = (query.bridges ?? []).map(bridgeText);
    if (
      !coveredByRelations(
        analysis,
        bridges,
        ends.map((end) => end.words),
        query.origin,
      )
    )
      continue;
    const about = new Set(ends.map((end) => end.url));
    return { planned: query, hits: [], documents: documents.filter((d) => about.has(d.url)) };
  }
  return undefined;
}
