/**
 * A nested question read as ordered hops, innermost first, without a model. "What is the main
 * international airport in the birth place of the director of The Girl Who Kicked the Hornets' Nest?" chains
 * three relations around its name: "director" (next to the name), then "birth place", then "main
 * international airport". Each relation is a segment: a run of the question's relation words that no
 * clause word ("of", "in", "where", "that", …) or name breaks. The hop after a chain's link is the segment
 * nearest (in words) to what the chain has resolved so far (the question's name and the segments its
 * bridge sentences hold); its words, not the whole question's, are what the next query adds to the name
 * found ("Daniel Alfredson birth place", not "Daniel Alfredson main international airport birth place").
 */
import { ARTICLES, nameKey } from './leads.ts';
import { meaningStems, type QuestionAnalysis } from './question.ts';
import { stemsHeld } from './coverage.ts';

/** Words that open a new clause or relation of a nested question: they end a segment. */
const CLAUSE_WORDS = new Set(
  (
    'of in on at to for from by with where which that who whom whose when what how and or but than as ' +
    'into onto about near under over after before during while since'
  ).split(' '),
);

/**
 * Words that place a thing without naming a relation of their own ("the state where X is *located*"): the
 * relation is the place word before them, so they make no hop.
 */
const PLACING_WORDS = new Set(['located', 'situated', 'considered']);

/** Most words of a segment added to a query. */
const MAX_SEGMENT_WORDS = 3;

/** One relation of a question: its words as written, their stems, and where it stands (word index). */
export interface RelationSegment {
  readonly words: readonly string[];
  readonly stems: readonly string[];
  /** Index of its first word among the question's words. */
  readonly first: number;
  /** Index of its last word. */
  readonly last: number;
}

interface Word {
  readonly text: string;
  readonly at: number;
  /** Punctuation stands before it. */
  readonly breakBefore: boolean;
}

function wordsOf(question: string): Word[] {
  const words: Word[] = [];
  let end = 0;
  for (const match of question.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)) {
    const at = match.index ?? 0;
    words.push({ text: match[0], at, breakBefore: /[,;:()?!"“”]/u.test(question.slice(end, at)) });
    end = at + match[0].length;
  }
  return words;
}

/** The word ranges of the question's names (compared as {@link nameKey}s: "Hornets' Nest" is "Hornets Nest"). */
function nameRanges(words: readonly Word[], names: readonly string[]): [number, number][] {
  const keys = words.map((w) => nameKey(w.text));
  const ranges: [number, number][] = [];
  for (const name of names) {
    const parts = nameKey(name).split(' ').filter(Boolean);
    if (parts.length === 0) continue;
    for (let i = 0; i + parts.length <= keys.length; i++) {
      if (parts.every((part, j) => keys[i + j] === part)) {
        ranges.push([i, i + parts.length - 1]);
        break;
      }
    }
  }
  return ranges;
}

/** The relation segments of a question, in the order they are written. */
export function relationSegments(analysis: QuestionAnalysis): RelationSegment[] {
  const words = wordsOf(analysis.question);
  const names = nameRanges(words, [...analysis.entities, ...analysis.sides]);
  const inName = (i: number) => names.some(([a, b]) => i >= a && i <= b);
  const relations = new Set(analysis.relations);
  const segments: RelationSegment[] = [];
  let run: { word: string; stem: string; index: number }[] = [];
  const flush = () => {
    if (run.length > 0)
      segments.push({
        words: run.map((r) => r.word),
        stems: [...new Set(run.map((r) => r.stem))],
        first: run[0]!.index,
        last: run.at(-1)!.index,
      });
    run = [];
  };
  words.forEach((word, index) => {
    const lower = word.text.toLowerCase();
    if (word.breakBefore || inName(index) || CLAUSE_WORDS.has(lower)) flush();
    if (inName(index) || CLAUSE_WORDS.has(lower) || PLACING_WORDS.has(lower)) return;
    const stem = meaningStems(lower)[0];
    if (stem !== undefined && relations.has(stem) && !/^\p{Lu}/u.test(word.text))
      run.push({ word: lower, stem, index });
  });
  flush();
  return segments;
}

/**
 * The words of the next hop of a chain: the question's segments are taken innermost first
 * ({@link hopOrder}), and the first one the chain has neither asked (`asked`: the hops its queries added,
 * each resolved by the lead it found) nor holds in its bridge sentences is next. Empty when none is left or
 * the question has none.
 */
export function nextHopWords(
  analysis: QuestionAnalysis,
  bridges: readonly string[],
  origin?: string,
  asked: readonly (readonly string[])[] = [],
): string[] {
  const along = bridges.join(' ');
  const askedKeys = new Set(asked.map((words) => words.join(' ')));
  const next = hopOrder(analysis, origin).find(
    (segment) =>
      !askedKeys.has(segment.words.slice(-MAX_SEGMENT_WORDS).join(' ')) &&
      stemsHeld(segment.stems, along).length === 0,
  );
  return next ? next.words.slice(-MAX_SEGMENT_WORDS) : [];
}

/**
 * Words between a segment and an anchor, articles not counted; a segment joined to it by "of" alone ("the
 * performers of Brother") is nearer than one as far the other way ("Brother were formed").
 */
function distance(words: readonly Word[], segment: RelationSegment, [a, b]: [number, number]): number {
  if (segment.last >= a && segment.first <= b) return 0;
  const between = (segment.last < a ? words.slice(segment.last + 1, a) : words.slice(b + 1, segment.first))
    .map((w) => w.text.toLowerCase())
    .filter((w) => !ARTICLES.has(w));
  return between.length === 1 && between[0] === 'of' ? 0.5 : between.length;
}

/** The question's relation segments, innermost first, from `origin` (else every name of the question). */
export function hopOrder(analysis: QuestionAnalysis, origin?: string): RelationSegment[] {
  const open = relationSegments(analysis);
  const words = wordsOf(analysis.question);
  const entities = [...analysis.entities, ...analysis.sides];
  const from = origin === undefined ? [] : entities.filter((name) => nameKey(name) === nameKey(origin));
  const anchors = nameRanges(words, from.length > 0 ? from : entities);
  const gap = (segment: RelationSegment) =>
    Math.min(Infinity, ...anchors.map((anchor) => distance(words, segment, anchor)));
  const ordered: RelationSegment[] = [];
  while (open.length > 0) {
    let best = 0;
    for (let i = 1; i < open.length; i++) if (gap(open[i]!) <= gap(open[best]!)) best = i;
    const [segment] = open.splice(best, 1);
    ordered.push(segment!);
    anchors.push([segment!.first, segment!.last]);
  }
  return ordered;
}

/** Words that join a name to the thing it is of or in ("the Botanical Garden *of* the school where …"). */
const COMPOSITE_CONNECTORS = new Set(['of', 'in']);

/** A question's name that another hop completes, and the relation that hop resolves. */
export interface CompositeName {
  /** The name with its joining word ("Margraviate of"). */
  readonly prefix: string;
  /** Stems of the relation written after it ("country" in "of the country where …"). */
  readonly stems: readonly string[];
}

/**
 * The question's names that another hop completes: a name followed by "of the" or "in the" and a relation
 * ("the Margraviate of the country where …"): the page asked for is titled by the name and what that
 * relation resolves to ("Margraviate of Austria").
 */
export function compositeNames(analysis: QuestionAnalysis): CompositeName[] {
  const words = wordsOf(analysis.question);
  const segments = relationSegments(analysis);
  const composites: CompositeName[] = [];
  for (const name of [...analysis.entities, ...analysis.sides]) {
    const [, last] = nameRanges(words, [name])[0] ?? [];
    if (last === undefined) continue;
    const connector = words[last + 1]?.text.toLowerCase();
    if (!connector || !COMPOSITE_CONNECTORS.has(connector) || words[last + 2]?.text.toLowerCase() !== 'the')
      continue;
    const segment = segments.find((s) => s.first === last + 3);
    if (segment) composites.push({ prefix: `${name} ${connector}`, stems: segment.stems });
  }
  return composites;
}
