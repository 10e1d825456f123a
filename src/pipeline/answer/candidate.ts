/**
 * A unit of the passages the extractive answerer may quote (a sentence, a list item, a table row, a
 * command), and what its choice of units shares with the answer after research (research-answer.ts).
 */
import type { UnitKind } from './units.ts';
import { escapeRegExp } from '../../text/regexp.ts';

/** A unit the extractive answerer may quote, with its words and its score against the query. */
export interface Candidate {
  readonly id: string;
  readonly url: string;
  /** Its passage's page title. */
  readonly title: string;
  readonly kind: UnitKind;
  /** Sentences of the passage it quotes (`passageRank:number`). */
  readonly sentences: readonly string[];
  /** A table row whose cell the query names whole ("Kestrel 500", not "Kestrel 500 Pro"). */
  readonly namesCell: boolean;
  /** A table row's cells (none for other units). */
  readonly cells: readonly string[];
  /** Names another thing than one the question asks about ("Kestrel 50" for the "Kestrel 500"). */
  readonly namesOther: boolean;
  /** Sentence source Markdown. */
  readonly markdown: string;
  readonly plain: string;
  readonly tokens: ReadonlySet<string>;
  /** Tokens of the passage's title and heading: they say what the sentence is about. */
  readonly contextTokens: ReadonlySet<string>;
  readonly passageRank: number;
  readonly position: number;
  readonly passageWeight: number;
  /** A sentence about the page itself ("This page covers…"). */
  readonly intro: boolean;
  coverage: number;
  score: number;
}

/** Most of `part`'s words stand in `whole` (a sentence the chain already quotes, with its neighbours). */
export function within(part: ReadonlySet<string>, whole: ReadonlySet<string>): boolean {
  let shared = 0;
  for (const token of part) if (whole.has(token)) shared++;
  return part.size > 0 && shared / part.size >= 0.8;
}

/**
 * Whether `candidate` would say again what `said` says: nearly the same words (Jaccard at least `threshold`)
 * or most of its words among them ({@link within}).
 */
export function repeats(
  said: { readonly tokens: ReadonlySet<string> },
  candidate: { readonly tokens: ReadonlySet<string> },
  threshold: number,
): boolean {
  return jaccard(said.tokens, candidate.tokens) >= threshold || within(candidate.tokens, said.tokens);
}

/** Share of words two units have in common (Jaccard similarity of their word sets). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/** Whether `text` names `cell` (a name: capitalised or a number) as a whole phrase ("Kestrel 50" is not in "Kestrel 500"). */
export function namedIn(text: string, cell: string): boolean {
  if (!/^[\p{Lu}\p{N}]/u.test(cell) || cell.length < 2) return false;
  const escaped = escapeRegExp(cell);
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/**
 * Sources in order of their best sentence; within a source, passages in order of their best sentence;
 * within a passage, document order, so that sentences read as they were written.
 */
export function sortInReadingOrder(chosen: Candidate[]): void {
  const sourceOrder = new Map<string, number>();
  const passageOrder = new Map<number, number>();
  for (const candidate of chosen) {
    if (!sourceOrder.has(candidate.url)) sourceOrder.set(candidate.url, sourceOrder.size);
    if (!passageOrder.has(candidate.passageRank)) passageOrder.set(candidate.passageRank, passageOrder.size);
  }
  chosen.sort(
    (a, b) =>
      (sourceOrder.get(a.url) ?? 0) - (sourceOrder.get(b.url) ?? 0) ||
      (passageOrder.get(a.passageRank) ?? 0) - (passageOrder.get(b.passageRank) ?? 0) ||
      a.position - b.position,
  );
}
