/**
 * Splits extracted content into passages for ranking: heading-aware (a passage never spans a heading and
 * remembers the nearest one), one to three blocks long, at most `maxWords` words, cut at sentence
 * boundaries when a block is too long.
 */
import { positiveInteger } from '../../options.ts';
import type { ExtractedContent } from '../types.ts';
import {
  blockToMarkdown,
  parseMarkdownBlocks,
  stripInlineMarkdown,
  tableRowCells,
} from '../../text/markdown.ts';
import { splitSentences } from '../../text/sentences.ts';

/** Options of {@link splitPassages}. */
export interface PassageSplitOptions {
  /**
   * Upper bound of words per passage (a single longer sentence is cut at word boundaries).
   * @default 120
   */
  readonly maxWords?: number;
  /**
   * Maximum number of blocks (paragraphs, lists, tables, code blocks) merged into one passage.
   * @default 3
   */
  readonly maxBlocks?: number;
  /** Locale for sentence splitting; defaults to the content's `lang`. */
  readonly locale?: string;
}

/** A passage before scoring. */
export interface PassageChunk {
  readonly url: string;
  readonly title: string;
  /** Markdown of the passage (plain text when the content had no Markdown). */
  readonly text: string;
  readonly heading?: string;
  /** Position of the passage in its document, from 0. */
  readonly position: number;
}

function countWords(text: string): number {
  const words = text.match(/\S+/g);
  return words === null ? 0 : words.length;
}

/** Cuts text into pieces of at most `maxWords` words, at sentence boundaries where possible. */
function cutText(text: string, maxWords: number, locale: string | undefined): string[] {
  const pieces: string[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = (): void => {
    if (current.length > 0) pieces.push(current.join(' '));
    current = [];
    words = 0;
  };
  for (const sentence of splitSentences(text, locale)) {
    const sentenceWords = sentence.split(/\s+/);
    if (sentenceWords.length > maxWords) {
      flush();
      for (let i = 0; i < sentenceWords.length; i += maxWords) {
        pieces.push(sentenceWords.slice(i, i + maxWords).join(' '));
      }
      continue;
    }
    if (words + sentenceWords.length > maxWords) flush();
    current.push(sentence);
    words += sentenceWords.length;
  }
  flush();
  return pieces;
}

/** Cuts line-structured blocks (lists, tables, code) at line boundaries. */
function cutLines(lines: readonly string[], maxWords: number, locale: string | undefined): string[] {
  const pieces: string[] = [];
  let current: string[] = [];
  let words = 0;
  for (const line of lines) {
    const lineWords = countWords(line);
    if (lineWords > maxWords) {
      if (current.length > 0) pieces.push(current.join('\n'));
      current = [];
      words = 0;
      pieces.push(...cutText(line, maxWords, locale));
      continue;
    }
    if (words + lineWords > maxWords && current.length > 0) {
      pieces.push(current.join('\n'));
      current = [];
      words = 0;
    }
    current.push(line);
    words += lineWords;
  }
  if (current.length > 0) pieces.push(current.join('\n'));
  return pieces;
}

/**
 * Cuts a long table at row boundaries, each piece under the table's header row (and delimiter row), so that
 * a row in any piece still says what its cells are.
 */
function cutTable(table: string, maxWords: number, locale: string | undefined): string[] {
  const lines = table.split('\n');
  const header = lines.length > 1 && tableRowCells(lines[1] ?? '') === null ? lines.slice(0, 2) : [];
  const budget = Math.max(1, maxWords - countWords(header.join(' ')));
  return cutLines(lines.slice(header.length), budget, locale).map((piece) => [...header, piece].join('\n'));
}

/** Defaults of {@link PassageSplitOptions}. */
export const PASSAGE_DEFAULTS = {
  maxWords: 120,
  maxBlocks: 3,
} as const;

/**
 * Splits a document's Markdown (or its text when there is no Markdown) into passages.
 * @throws RangeError when `maxWords` or `maxBlocks` is not a positive integer.
 */
export function splitPassages(content: ExtractedContent, options: PassageSplitOptions = {}): PassageChunk[] {
  const maxWords = positiveInteger('maxWords', options.maxWords, PASSAGE_DEFAULTS.maxWords);
  const maxBlocks = positiveInteger('maxBlocks', options.maxBlocks, PASSAGE_DEFAULTS.maxBlocks);
  const locale = options.locale ?? content.lang;
  const source = content.markdown.trim().length > 0 ? content.markdown : content.text;

  const passages: PassageChunk[] = [];
  let heading: string | undefined;
  let units: string[] = [];
  let words = 0;
  const flush = (): void => {
    if (units.length > 0) {
      const passage = {
        url: content.url,
        title: content.title,
        text: units.join('\n\n'),
        position: passages.length,
      };
      passages.push(heading === undefined ? passage : { ...passage, heading });
    }
    units = [];
    words = 0;
  };

  for (const block of parseMarkdownBlocks(source)) {
    if (block.kind === 'heading') {
      flush();
      const text = stripInlineMarkdown(block.text);
      heading = text.length > 0 ? text : undefined;
      continue;
    }
    const markdown = blockToMarkdown(block);
    const blockWords = countWords(markdown);
    if (blockWords === 0) continue;
    let pieces: string[];
    if (blockWords <= maxWords) pieces = [markdown];
    else if (block.kind === 'paragraph') pieces = cutText(block.text, maxWords, locale);
    else if (block.kind === 'code')
      pieces = cutLines(block.text.split('\n'), maxWords, locale).map((c) => `\`\`\`\n${c}\n\`\`\``);
    else if (block.kind === 'table') pieces = cutTable(markdown, maxWords, locale);
    else pieces = cutLines(markdown.split('\n'), maxWords, locale);
    for (const piece of pieces) {
      const pieceWords = countWords(piece);
      if (units.length > 0 && (words + pieceWords > maxWords || units.length >= maxBlocks)) {
        // A paragraph leading into this block ("Then check that it runs:") goes with it.
        const lead = block.kind !== 'paragraph' && units.length > 1 && /:\s*$/.test(units.at(-1) ?? '');
        const carried = lead ? units.pop()! : undefined;
        flush();
        if (carried !== undefined) {
          units.push(carried);
          words = countWords(carried);
        }
      }
      units.push(piece);
      words += pieceWords;
    }
  }
  flush();
  return passages;
}
