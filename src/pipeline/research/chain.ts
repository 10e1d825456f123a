/**
 * The chain an answer names: of the chains research followed (a lead, the sentences that led to it, and its
 * own page), the one that resolves most of the question; its last page's sentence (or table row) that
 * holds most of what the bridges do not, with the kind and class of thing asked (chain-end.ts), is the
 * chain's end. Chains are ranked by the words they hold with that fit of their end. "Who is the child of the director of Love
 * Affair?": the end is "their only child, Mary McCarey, was born in 1923" (Leo McCarey's page), the bridge
 * "Love Affair is a 1939 film directed by Leo McCarey".
 */
import type { ChainSentence, ExtractedContent } from '../types.ts';
import { stemsHeld } from './coverage.ts';
import { nameKey, titledBy } from './leads.ts';
import { meaningStems, type QuestionAnalysis } from './question.ts';
import type { SearchedQuery } from './types.ts';
import { leadUnits, quoteOf, unitWords } from './units.ts';
import { askedFor, endFit } from './chain-end.ts';

/**
 * What an end on the lead's own page adds to its fit: it is about the thing the bridges led to, where a
 * page that names the lead in passing is about something else ("Kansas's 4th congressional district" for
 * the lead "Kansas").
 */
const TITLED_FIT = 0.5;
/** Share of the question's words a chain must hold to be named by the answer. */
const MIN_CHAIN_SHARE = 0.5;
/** Units of a lead's page read for its end. */
const MAX_UNITS = 40;

interface Candidate {
  readonly sentences: ChainSentence[];
  readonly held: number;
  readonly fit: number;
  readonly depth: number;
  readonly score: number;
}

/** A unit where a followed lead's chain may end: on the lead's own page, or naming the lead. */
export interface ChainEnd {
  /** The unit's words, for what it covers. */
  readonly words: string;
  /** As an answer quotes it (a table row as "column: value; …"). */
  readonly text: string;
  readonly url: string;
  /** It stands on the page titled by the name (the page about it), not on a page that names it in passing. */
  readonly titled: boolean;
}

/**
 * The units of a lead query's documents where its chain may end: every unit of the page titled by the lead,
 * and the units of other pages that name it (a page that does not name the next one is found by its words:
 * the org chart's row "Field Service | Marisol Achebe" for the lead "Field Service").
 */
export function chainEnds(searched: SearchedQuery): ChainEnd[] {
  const lead = searched.planned.lead;
  return lead ? unitsAbout(searched, lead.name) : [];
}

/** The units of the searched documents about `name`: every unit of its own page (titled by it), and the units naming it. */
export function unitsAbout(searched: SearchedQuery, name: string): ChainEnd[] {
  const key = nameKey(name);
  return searched.documents.flatMap((doc) => {
    const titled = titledBy(doc.title, key);
    return leadUnits(doc.text, doc.markdown, MAX_UNITS)
      .filter((unit) => titled || ` ${nameKey(unit.words)} `.includes(` ${key} `))
      .map((unit) => ({ words: unit.words, text: quoteOf(unit), url: doc.url, titled }));
  });
}

/**
 * The chain's end first, then its bridges first hop first; empty when no chain was followed to a page, or
 * for a comparison (whose answer is about its sides, not the end of one chain), or when the best chain
 * holds less than {@link MIN_CHAIN_SHARE} of the question's words.
 */
export function chainSentences(
  analysis: QuestionAnalysis,
  rounds: readonly (readonly SearchedQuery[])[],
): ChainSentence[] {
  if (analysis.sides.length > 0) return [];
  const stems = meaningStems(analysis.question);
  const asked = askedFor(analysis.question);
  let best: Candidate | undefined;
  for (const searched of rounds.flat()) {
    const lead = searched.planned.lead;
    if (!lead || wordsOfQuestion(lead.name, stems)) continue;
    const bridges = searched.planned.bridges ?? [
      { text: lead.quote ?? lead.sentence, url: lead.url, title: lead.title },
    ];
    if (!coherent(bridges)) continue;
    const along = new Set(stemsHeld(stems, bridges.map(bridgeText).join(' ')));
    const missing = stems.filter((stem) => !along.has(stem));
    // The end holds most of what the bridges do not, and the kind of thing asked for (a year for "when", a
    // number for "how many", a name for "who" and "where"), above all a name of the class asked ("North
    // Canadian River" for "What river…": chain-end.ts).
    let end: (ChainEnd & { held: number; fit: number }) | undefined;
    for (const unit of chainEnds(searched)) {
      // A life's span says when someone was born and died, and where only when it names the places
      // ("(6 June 1906, Graz – 2 November 1994, Le Plessis-Bouchard)").
      const words =
        asked.type === 'place' && !spanNamesPlaces(unit.words) ? unit.words : unitWords(unit.words);
      const held = stemsHeld(missing, words).length;
      if (held === 0) continue;
      const fit = endFit(held, unit.words, asked) + (unit.titled ? TITLED_FIT : 0);
      if (fit > (end?.fit ?? 0)) end = { ...unit, held, fit };
    }
    if (!end) continue;
    const candidate: Candidate = {
      sentences: [{ text: end.text, url: end.url }, ...bridges.map(({ text, url }) => ({ text, url }))],
      held: along.size + end.held,
      fit: along.size + end.fit,
      depth: bridges.length,
      score: lead.score,
    };
    if (
      !best ||
      candidate.fit > best.fit ||
      (candidate.fit === best.fit && (candidate.depth > best.depth || candidate.score > best.score))
    )
      best = candidate;
  }
  return best && best.held >= stems.length * MIN_CHAIN_SHARE ? dedupe(best.sentences) : [];
}

const MONTHS =
  /\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b/gu;

/** A life's span in brackets that names a place beside its dates ("(Fomboni, 1 November 1874 – Pesmes, …)"). */
function spanNamesPlaces(words: string): boolean {
  const span = /\(([^()]*\d{3,4}[^()]*[–—-][^()]*)\)/u.exec(words)?.[1];
  return span !== undefined && /\p{Lu}/u.test(span.replace(MONTHS, ''));
}

/**
 * A lead made only of the question's own words ("Place" or "Place of birth" for "the place of birth of …")
 * is a page about the relation, not a thing the chain found.
 */
export function wordsOfQuestion(name: string, stems: readonly string[]): boolean {
  const own = meaningStems(name);
  return own.length > 0 && own.every((stem) => stems.includes(stem));
}

/**
 * Each bridge after the first stands on the page of the lead the one before it named, or names that lead:
 * a chain whose second link was found on a page about something else has left its subject ("The Dagger
 * and the Coin → Daniel Abraham", then a sentence of another author's page).
 */
function coherent(bridges: readonly { text: string; title: string; lead?: string }[]): boolean {
  return bridges.every((bridge, i) => {
    const previous = i === 0 ? undefined : bridges[i - 1]!.lead;
    if (previous === undefined) return true;
    const key = nameKey(previous);
    return titledBy(bridge.title, key) || ` ${nameKey(bridge.text)} `.includes(` ${key} `);
  });
}

function dedupe(sentences: readonly ChainSentence[]): ChainSentence[] {
  const seen = new Set<string>();
  return sentences.filter((s) => {
    const key = s.text.trim().toLowerCase();
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** True when `searched` followed a lead and read that lead's own page (titled by its name). */
export function readLeadPage(searched: SearchedQuery): boolean {
  const lead = searched.planned.lead;
  if (!lead) return false;
  const key = nameKey(lead.name);
  return searched.documents.some((doc) => titledBy(doc.title, key));
}

/** The documents of searched queries (a round, or every round), each once. */
export function documentsOf(searched: readonly SearchedQuery[]): ExtractedContent[] {
  return [...new Map(searched.flatMap((q) => q.documents.map((d) => [d.url, d] as const))).values()];
}

/** A bridge sentence as its words are counted: its page's title, then the sentence. */
export function bridgeText(bridge: { readonly title: string; readonly text: string }): string {
  return `${bridge.title} ${bridge.text}`;
}
