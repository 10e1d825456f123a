/**
 * Grounding: checks an answer's citations against the text the answerer was given, instead of trusting it.
 *
 * The answer is cut into claims (its sentences, list items and table rows; headings and code are not
 * claims). For every `[n]` of a claim, the passages given for source `n` are searched for the sentence (or
 * two adjacent sentences) sharing the most key terms with the claim; that is the quote. The quote is then
 * found in the source's extracted text (comparing letters and digits only, case-folded, so whitespace and
 * Markdown do not matter) and reported with its offsets there. A citation is `verified` when its quote was
 * found in the text, shares the claim's key terms, and the claim's numbers all occur in its quotes.
 *
 * Deterministic and model-free: the same answer and sources give the same report.
 */
import type { ExtractedContent, Passage } from '../types.ts';
import { parseMarkdownBlocks, stripInlineMarkdown, tableRowCells } from '../../text/markdown.ts';
import { sentenceSpans, splitSentences } from '../../text/sentences.ts';
import { tokenize } from '../../text/tokenize.ts';
import { citationNumbers } from './citations.ts';

/** How well an answer is supported by its sources. */
export type GroundingLevel = 'full' | 'partial' | 'none';

/** A piece of the answer with its offsets: `answer.slice(start, end) === text`. */
export interface AnswerSpan {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** One `[n]` of one claim, checked against source `n`. */
export interface CheckedCitation {
  /** The `[n]` of the answer: source `sources[index - 1]`. */
  readonly index: number;
  readonly url: string;
  readonly title: string;
  /** The answer sentence that carries the citation (markers included). */
  readonly claim: AnswerSpan;
  /** The best-matching text of the source, exactly as in its extracted text; `''` when none shares a term. */
  readonly quote: string;
  /**
   * Offsets of `quote` in the source's extracted text (`text.slice(start, end) === quote`); `null` when the
   * quote could not be found there.
   */
  readonly quoteStart: number | null;
  readonly quoteEnd: number | null;
  /** The quote occurs in the source's text, shares the claim's key terms and holds the claim's numbers. */
  readonly verified: boolean;
}

/** Counts of a grounding check, and the sentences no source backs. */
export interface GroundingReport {
  /** `full`: every claim has a verified citation; `none`: no claim has one (or there is no claim). */
  readonly level: GroundingLevel;
  /** Sentences that state something (headings, code and short lead-ins such as "In short:" are not). */
  readonly claims: number;
  /** Claims with at least one verified citation. */
  readonly supportedClaims: number;
  readonly citations: number;
  readonly verifiedCitations: number;
  /** Claims without any citation. */
  readonly unsupported: readonly AnswerSpan[];
}

/** Result of {@link checkGrounding}. */
export interface GroundingCheck {
  /** One entry per `[n]` per claim, in answer order. */
  readonly citations: readonly CheckedCitation[];
  readonly report: GroundingReport;
}

/** A source as the answerer saw it: its extracted text and the passages of it that were given. */
export interface GroundingSource {
  readonly url: string;
  readonly title: string;
  /** The source's extracted plain text (what quote offsets refer to). */
  readonly text: string;
  /** The passages of this source handed to the answerer (Markdown). */
  readonly passages: readonly string[];
}

/** Options of {@link checkGrounding}. */
export interface GroundingOptions {
  /**
   * Share (0–1) of a claim's key terms that its quotes must contain together for its citations to count
   * as verified.
   * @default DEFAULT_MIN_TERM_SHARE (0.5)
   */
  readonly minTermShare?: number;
  /** Locale for sentence splitting and lower-casing. */
  readonly locale?: string;
  /**
   * `cited`: the answer is text with `[n]` markers. `json`: the answer is a JSON object without markers;
   * each string value with words is a claim, cited to the source whose passages match it best.
   * @default 'cited'
   */
  readonly answerFormat?: 'cited' | 'json';
}

/** {@link GroundingOptions.minTermShare} when not set. */
export const DEFAULT_MIN_TERM_SHARE = 0.5;

/** A sentence without a citation is a claim only if it has at least this many key terms. */
const MIN_UNCITED_CLAIM_TERMS = 3;

const CITATION_MARKER = /\[([^\]\n]{1,40})\]/g;
const LINE_MARKER = /^\s{0,3}(?:>\s?)*(?:(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)?/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const NUMBER = /^\d+$/;
/** Citation markers at the start of a sentence: `[2]`, `[1, 3]`, `[2][4]`. */
const LEADING_CITATIONS = /^(?:\s*\[\d{1,4}(?:\s*[,;–—-]\s*\d{1,4})*\])+/;

/**
 * Checks every citation of `answer` against its source. `sources[n - 1]` is the source of `[n]`.
 *
 * @example
 * const { report } = checkGrounding('Paris is the capital of France [1].', [
 *   { url, title: 'France', text: 'Its capital is Paris.', passages: ['Its capital is Paris.'] },
 * ]);
 * report.level; // 'full': the quote holds "capital" and "Paris", 2 of the claim's 3 key terms
 */
export function checkGrounding(
  answer: string,
  sources: readonly GroundingSource[],
  options: GroundingOptions = {},
): GroundingCheck {
  const minTermShare = options.minTermShare ?? DEFAULT_MIN_TERM_SHARE;
  if (!(minTermShare >= 0 && minTermShare <= 1)) throw new RangeError('minTermShare must be between 0 and 1');
  const terms = (text: string): string[] => tokenize(text, { locale: options.locale });
  const located = new Map<string, LocatedText>();
  const candidates = new Map<number, QuoteCandidate[]>();

  const citations: CheckedCitation[] = [];
  const unsupported: AnswerSpan[] = [];
  let claimCount = 0;
  let supportedClaims = 0;
  const quoteCandidatesOf = (n: number): QuoteCandidate[] => {
    let list = candidates.get(n);
    if (list === undefined) {
      list = quoteCandidates(sources[n - 1]!, options.locale, terms);
      candidates.set(n, list);
    }
    return list;
  };
  const json = options.answerFormat === 'json';
  for (const sentence of json ? jsonStrings(answer) : answerSentences(answer, options.locale)) {
    const claimTerms = new Set(terms(claimText(sentence.text)));
    const numbers = json
      ? bestSource(claimTerms, sources.length, quoteCandidatesOf)
      : citedNumbers(sentence.text).filter((n) => n >= 1 && n <= sources.length);
    if (numbers.length === 0) {
      if (claimTerms.size >= MIN_UNCITED_CLAIM_TERMS) {
        claimCount++;
        unsupported.push(sentence);
      }
      continue;
    }
    claimCount++;
    const quotes = numbers.map((n) => bestQuote(claimTerms, quoteCandidatesOf(n)));
    const quoted = new Set(quotes.flatMap((quote) => [...(quote?.terms ?? [])]));
    const covered = [...claimTerms].filter((term) => quoted.has(term)).length;
    const claimSupported =
      claimTerms.size > 0 &&
      covered / claimTerms.size >= minTermShare &&
      [...claimTerms].every((term) => !NUMBER.test(term) || quoted.has(term));
    let anyVerified = false;
    numbers.forEach((n, i) => {
      const source = sources[n - 1]!;
      const quote = quotes[i];
      let text = located.get(source.url);
      if (text === undefined) {
        text = locateIn(source.text);
        located.set(source.url, text);
      }
      const span = quote ? text.find(quote.text) : null;
      const shared = sharedTerms(claimTerms, quote ?? null);
      const verified = span !== null && claimSupported && shared >= Math.min(2, claimTerms.size);
      anyVerified ||= verified;
      citations.push({
        index: n,
        url: source.url,
        title: source.title,
        claim: sentence,
        quote: span ? source.text.slice(span.start, span.end) : (quote?.text ?? ''),
        quoteStart: span?.start ?? null,
        quoteEnd: span?.end ?? null,
        verified,
      });
    });
    if (anyVerified) supportedClaims++;
  }
  const verifiedCitations = citations.filter((c) => c.verified).length;
  const level: GroundingLevel =
    supportedClaims === 0 ? 'none' : supportedClaims === claimCount ? 'full' : 'partial';
  return {
    citations,
    report: {
      level,
      claims: claimCount,
      supportedClaims,
      citations: citations.length,
      verifiedCitations,
      unsupported,
    },
  };
}

/**
 * The sources of a pipeline result as {@link checkGrounding} needs them: `cited[n - 1]` is the URL of
 * `[n]`; its text is the extracted document's plain text, and its passages those given to the answerer.
 */
export function groundingSources(
  cited: readonly string[],
  passages: readonly Passage[],
  documents: readonly Pick<ExtractedContent, 'url' | 'title' | 'text'>[],
): GroundingSource[] {
  return cited.map((url) => {
    const given = passages.filter((p) => p.url === url);
    const document = documents.find((d) => d.url === url);
    return {
      url,
      title: document?.title ?? given[0]?.title ?? '',
      // Without its document (a custom pipeline), the passages are the text the answerer had.
      text: document?.text ?? given.map((p) => p.text).join('\n\n'),
      passages: given.map((p) => p.text),
    };
  });
}

/** The number of the source whose passages share the most terms with the claim (none if no source does). */
function bestSource(
  claimTerms: ReadonlySet<string>,
  count: number,
  candidatesOf: (n: number) => readonly QuoteCandidate[],
): number[] {
  let best = 0;
  let bestShared = 0;
  for (let n = 1; n <= count; n++) {
    const shared = sharedTerms(claimTerms, bestQuote(claimTerms, candidatesOf(n)));
    if (shared > bestShared) [best, bestShared] = [n, shared];
  }
  return best > 0 ? [best] : [];
}

/** The string values of a JSON answer (at any depth) with their offsets in the JSON text. */
function jsonStrings(answer: string): AnswerSpan[] {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    return [];
  }
  const spans: AnswerSpan[] = [];
  let cursor = 0;
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      // Values appear in the text in the order JSON.parse visits them; keys are skipped by the cursor.
      const encoded = JSON.stringify(node);
      const at = answer.indexOf(encoded, cursor);
      if (at === -1) return;
      cursor = at + encoded.length;
      spans.push({ text: answer.slice(at + 1, cursor - 1), start: at + 1, end: cursor - 1 });
    } else if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        cursor = answer.indexOf(JSON.stringify(key), cursor) + JSON.stringify(key).length;
        visit(child);
      }
    }
  };
  visit(value);
  return spans;
}

function sharedTerms(claimTerms: ReadonlySet<string>, quote: QuoteCandidate | null): number {
  if (quote === null) return 0;
  let shared = 0;
  for (const term of claimTerms) if (quote.terms.has(term)) shared++;
  return shared;
}

/** The claim's words: citation markers and inline Markdown removed. */
function claimText(sentence: string): string {
  return stripInlineMarkdown(sentence.replace(CITATION_MARKER, ' '));
}

function citedNumbers(sentence: string): number[] {
  const numbers = new Set<number>();
  for (const match of sentence.matchAll(CITATION_MARKER)) {
    for (const n of citationNumbers(match[1] ?? '') ?? []) numbers.add(n);
  }
  return [...numbers];
}

/**
 * The answer's sentences with their offsets: each line (list item, table row, paragraph line) is cut into
 * sentences; headings, fenced code and table delimiter rows are skipped. Citation markers that open a
 * sentence ("… in 1889. [2] It …") belong to the sentence before.
 */
function answerSentences(answer: string, locale: string | undefined): AnswerSpan[] {
  const spans: AnswerSpan[] = [];
  let inFence = false;
  let lineStart = 0;
  for (const line of answer.split('\n')) {
    const start = lineStart;
    lineStart += line.length + 1;
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || /^\s{0,3}#{1,6}\s/.test(line) || line.trim().length === 0) continue;
    if (/^\s*\|/.test(line) && tableRowCells(line) === null) continue;
    // A claim starts after its list or quote marker.
    const marker = LINE_MARKER.exec(line)?.[0].length ?? 0;
    const lineSpans = sentenceSpans(line.slice(marker), locale).map((span) => ({
      start: start + marker + span.start,
      end: start + marker + span.end,
    }));
    for (const span of lineSpans) {
      const text = answer.slice(span.start, span.end);
      const leading = LEADING_CITATIONS.exec(text);
      const previous = spans.at(-1);
      if (leading && previous && previous.end >= start) {
        const end = span.start + leading[0].length;
        spans[spans.length - 1] = { text: answer.slice(previous.start, end), start: previous.start, end };
        span.start = end + (/^\s*/.exec(answer.slice(end, span.end))?.[0].length ?? 0);
      }
      if (span.end > span.start) spans.push({ text: answer.slice(span.start, span.end), ...span });
    }
  }
  return spans.filter((span) => /[\p{L}\p{N}]/u.test(span.text));
}

interface QuoteCandidate {
  /** Plain text as the passage has it (inline Markdown removed). */
  readonly text: string;
  readonly terms: ReadonlySet<string>;
}

/** Sentences (and pairs of adjacent sentences) of the passages given for a source, and its table rows. */
function quoteCandidates(
  source: GroundingSource,
  locale: string | undefined,
  terms: (text: string) => string[],
): QuoteCandidate[] {
  const out: QuoteCandidate[] = [];
  const add = (text: string): void => {
    const plain = stripInlineMarkdown(text);
    if (/[\p{L}\p{N}]/u.test(plain)) out.push({ text: plain, terms: new Set(terms(plain)) });
  };
  const passages = source.passages.length > 0 ? source.passages : [source.text];
  for (const passage of passages) {
    for (const block of parseMarkdownBlocks(passage)) {
      if (block.kind === 'code' || block.kind === 'heading') continue;
      if (block.kind === 'table') {
        for (const row of block.text.split('\n')) {
          const cells = tableRowCells(row);
          if (cells) add(cells.join(' '));
        }
        continue;
      }
      const pieces = block.kind === 'list' ? (block.items ?? []) : [block.text];
      for (const piece of pieces) {
        const sentences = splitSentences(piece, locale);
        sentences.forEach((sentence, i) => {
          add(sentence);
          const next = sentences[i + 1];
          if (next !== undefined) add(`${sentence} ${next}`);
        });
      }
    }
  }
  return out;
}

/** The candidate sharing the most of the claim's terms; the shorter one on a tie. */
function bestQuote(
  claimTerms: ReadonlySet<string>,
  candidates: readonly QuoteCandidate[],
): QuoteCandidate | null {
  let best: QuoteCandidate | null = null;
  let bestShared = 0;
  for (const candidate of candidates) {
    const shared = sharedTerms(claimTerms, candidate);
    if (
      shared > bestShared ||
      (shared === bestShared && best !== null && candidate.text.length < best.text.length)
    ) {
      if (shared === 0) continue;
      best = candidate;
      bestShared = shared;
    }
  }
  return best;
}

/** A source text prepared for finding quotes in it regardless of case, whitespace and punctuation. */
interface LocatedText {
  /** Offsets of `quote` in the original text, or `null` when it does not occur. */
  find(quote: string): { start: number; end: number } | null;
}

const LETTERS_AND_DIGITS = /[\p{L}\p{N}]+/gu;

/**
 * Letters and digits only, case-folded: the form in which quotes and texts are compared. `offsets[i]` is the
 * index in `text` of the character that gave `folded[i]` (built per run of letters, not per character:
 * pages are long).
 */
function fold(text: string): { folded: string; offsets: number[] } {
  const pieces: string[] = [];
  const offsets: number[] = [];
  for (const match of text.matchAll(LETTERS_AND_DIGITS)) {
    const run = match[0];
    const lower = run.toLowerCase();
    if (lower.length === run.length) {
      for (let k = 0; k < run.length; k++) offsets.push(match.index + k);
    } else {
      // Rare letters whose lower case is longer (İ → i̇): the extra characters map to the same letter.
      let at = match.index;
      for (const char of run) {
        for (let n = 0; n < char.toLowerCase().length; n++) offsets.push(at);
        at += char.length;
      }
    }
    pieces.push(lower);
  }
  return { folded: pieces.join(''), offsets };
}

function locateIn(text: string): LocatedText {
  const { folded, offsets } = fold(text);
  return {
    find(quote) {
      const exact = text.indexOf(quote);
      if (exact !== -1 && quote.length > 0) return { start: exact, end: exact + quote.length };
      const needle = fold(quote).folded;
      if (needle.length === 0) return null;
      const at = folded.indexOf(needle);
      if (at === -1) return null;
      const start = offsets[at]!;
      const last = offsets[at + needle.length - 1]!;
      // End after the last letter or digit, and after a closing punctuation mark that ends the quote.
      let end = last + (text.codePointAt(last)! > 0xffff ? 2 : 1);
      const trailing = /^[.!?…%)"'”’\]]+/.exec(text.slice(end, end + 4));
      if (trailing && quote.trimEnd().endsWith(trailing[0].slice(-1))) end += trailing[0].length;
      return { start, end };
    },
  };
}
