/**
 * The units an extractive answer quotes from a passage: sentences of prose (a sentence that opens with a
 * pronoun carries the sentences before it that name its subject), list items, table rows as statements
 * that keep their header ("Name: Tomasz Wren; Office: Gdańsk"), and short code blocks with the sentence
 * that introduces them ("To follow the log, run: `journalctl -u ingest -f`").
 */
import type { Passage } from '../types.ts';
import {
  mapOutsideCode,
  parseMarkdownBlocks,
  stripInlineMarkdown,
  tableRows,
  tableRowStatement,
} from '../../text/markdown.ts';
import { splitSentences } from '../../text/sentences.ts';

/** What a unit is made of. */
export type UnitKind = 'sentence' | 'item' | 'row' | 'code';

/** One quotable unit of a passage. */
export interface AnswerUnit {
  readonly kind: UnitKind;
  /** Markdown of the unit (inline syntax kept; a code block as code spans). */
  readonly markdown: string;
  /** Numbers of the passage's sentences it quotes: two units sharing one are not both quoted. */
  readonly sentences: readonly number[];
  /** A table row's cells. */
  readonly cells?: readonly string[];
  /**
   * Each quoted sentence without inline syntax (`stripInlineMarkdown`), when the unit is prose: their join
   * with spaces is often the unit's plain text, so its words can be read from theirs.
   */
  readonly plains?: readonly string[];
}

/**
 * A sentence that leans on the one before it for its subject ("It weighs 2.1 kg.", "They block the card
 * within the hour."): quoted alone, or after a sentence about something else, it says the wrong thing.
 * "This page…" is about the page, not about the sentence before.
 */
export const OPENS_WITH_PRONOUN =
  /^(?:it|its|they|their|them|this|these|those|he|she|his|her)\b(?!['’]s\b)(?!\s+(?:[\p{L}-]+\s+)?(?:page|guide|document|section|chapter|article|tutorial|manual)\b)/iu;

/** How many sentences back a pronoun sentence looks for the sentence naming its subject. */
const MAX_CARRIED = 2;
/** Code blocks up to this many lines answer as code spans; longer ones are not quoted. */
const MAX_CODE_LINES = 3;
const MAX_CODE_LINE_CHARS = 160;

/** List items shorter than this (in words) are quoted with the sentence leading into the list. */
const SHORT_ITEM = 6;

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** An image: its alt text describes a picture, it is not a sentence of the page. */
const IMAGE = /!\[[^\]]*\]\((?:[^()]|\([^)]*\))*\)/g;

/** Links only, as a list ("[A](a.md), [B](b.md) and [C](c.md)"). */
const LINKS = String.raw`(?:\[[^\]]*\]\((?:[^()]|\([^)]*\))*\)[\s,;]*(?:and\s+|or\s+)?)+`;
/** A pointer to other pages rather than a statement: "How, and the settings: [Research jobs](…).", "See [X](x)." */
const NAVIGATION = new RegExp(String.raw`(?::\s*${LINKS}|^(?:see|see also|read)\s+${LINKS})[.!]?$`, 'i');
/** A parenthesis holding only a link ("([Upgrades](upgrades.md))"): its text alone would be a leftover. */
const LINK_ASIDE = new RegExp(String.raw`\s*\((?:see(?: also)?\s+)?${LINKS}\)`, 'gi');

/** The sentence without images and link-only asides; empty when it only points to other pages. */
function clean(sentence: string): string {
  const text = mapOutsideCode(sentence, (prose) => prose.replace(IMAGE, '').replace(LINK_ASIDE, '')).trim();
  return NAVIGATION.test(text) ? '' : text;
}

/** The code block as code spans, or null when it is too long to quote in a sentence. */
function codeSpans(code: string): string | null {
  const lines = code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0 || lines.length > MAX_CODE_LINES) return null;
  if (lines.some((line) => line.length > MAX_CODE_LINE_CHARS || line.includes('`'))) return null;
  return lines.map((line) => `\`${line}\``).join(', then ');
}

/**
 * The quotable units of a passage, in document order. Headings and images are never quoted; list items
 * that are navigation ("[API keys](api-keys.md): …") or parts of a sentence spread over a list are left
 * out.
 */
export function passageUnits(passage: Passage, locale: string | undefined): AnswerUnit[] {
  const units: AnswerUnit[] = [];
  let counter = 0;
  // The sentence that leads into the next block ("Run:"), when the last block ended with one.
  let lead: { markdown: string; number: number } | undefined;
  for (const block of parseMarkdownBlocks(passage.text)) {
    const previousLead = lead;
    lead = undefined;
    if (block.kind === 'paragraph' || block.kind === 'quote') {
      const sentences = splitSentences(block.text, locale)
        .map(clean)
        .filter((sentence) => sentence.length > 0);
      const first = counter;
      const plains = sentences.map((sentence) => stripInlineMarkdown(sentence));
      sentences.forEach((_, i) => {
        let start = i;
        while (start > 0 && i - start < MAX_CARRIED && OPENS_WITH_PRONOUN.test(plains[start] ?? '')) start--;
        const numbers = Array.from({ length: i - start + 1 }, (_, k) => first + start + k);
        units.push({
          kind: 'sentence',
          markdown: sentences.slice(start, i + 1).join(' '),
          sentences: numbers,
          plains: plains.slice(start, i + 1),
        });
      });
      counter += sentences.length;
      const last = sentences.at(-1);
      if (last !== undefined && /:\s*$/.test(last)) lead = { markdown: last, number: counter - 1 };
    } else if (block.kind === 'list') {
      let continues = false;
      for (const item of block.items ?? []) {
        // "[API keys](api-keys.md): create, list and revoke keys" is navigation, not a statement; items
        // ending in ";" or ",", and the item after one, are parts of a sentence spread over the list.
        const fragment = continues || /[;,]\s*$/.test(item);
        continues = /[;,]\s*$/.test(item);
        if (/^\[[^\]]+\]\(/.test(item) || fragment) continue;
        const sentences = splitSentences(item, locale)
          .map(clean)
          .filter((sentence) => sentence.length > 0);
        // A short item under a lead-in ("The daily allowance covers meals:" / "Lisbon: EUR 60") says
        // nothing without it: it is quoted with it.
        if (previousLead !== undefined && sentences.length === 1 && countWords(sentences[0]!) < SHORT_ITEM)
          units.push({
            kind: 'item',
            markdown: `${previousLead.markdown} ${sentences[0]!}`,
            sentences: [previousLead.number, counter++],
          });
        else
          for (const sentence of sentences)
            units.push({ kind: 'item', markdown: sentence, sentences: [counter++] });
      }
    } else if (block.kind === 'table') {
      for (const row of tableRows(block.text)) {
        const statement = tableRowStatement(row, 'markdown');
        if (statement.length > 0)
          units.push({ kind: 'row', markdown: statement, sentences: [counter++], cells: row.cells });
      }
    } else if (block.kind === 'code' && previousLead !== undefined) {
      const spans = codeSpans(block.text);
      if (spans !== null)
        units.push({
          kind: 'code',
          markdown: `${previousLead.markdown} ${spans}`,
          sentences: [previousLead.number, counter++],
        });
    }
  }
  return units;
}

/** A run of capitalised words and numbers ("Kestrel 500", "Tomasz Wren", "Ember Mini"). */
const NAME_RUN =
  /(?:\p{Lu}[\p{L}\p{N}-]*|\p{N}[\p{N}.,-]*)(?:[ \t]+(?:\p{Lu}[\p{L}\p{N}-]*|\p{N}[\p{N}.,-]*))*/gu;

/**
 * The names a question asks about: runs of two or more capitalised words or numbers ("Kestrel 500",
 * "Ember Mini"), not counting the question's first word.
 */
export function askedNames(question: string): string[][] {
  const names: string[][] = [];
  for (const match of question.matchAll(NAME_RUN)) {
    let words = match[0].split(/[ \t]+/).map((word) => word.replace(/[.,-]+$/, ''));
    if (match.index === question.search(/\S/)) words = words.slice(1);
    if (words.length >= 2) names.push(words);
  }
  return names;
}

/**
 * Whether `text` names something else than `name` under its first word and never `name` itself: "Kestrel
 * 50" or "Kestrel 500 Pro" when the question asks about the "Kestrel 500", "the Ember" when it asks about
 * the "Ember Mini". A bare shorter form ("Walt" for "Walt Disney") is not another name.
 */
export function namesAnother(text: string, name: readonly string[]): boolean {
  const head = name[0]!;
  let other = false;
  for (const match of text.matchAll(NAME_RUN)) {
    const words = match[0].split(/[ \t]+/).map((word) => word.replace(/[.,-]+$/, ''));
    const at = words.indexOf(head);
    if (at < 0) continue;
    const run = words.slice(at);
    const common = Math.min(run.length, name.length);
    if (run.slice(0, common).every((word, i) => word === name[i]) && run.length <= name.length) {
      // The name itself, or a shorter form of it ("Walt" for "Walt Disney"); but "the Ember" is a thing of
      // its own when the question asks about the "Ember Mini".
      if (run.length === name.length) return false;
      const determined =
        words[at - 1] === 'The' || (at === 0 && /\bthe\s+$/.test(text.slice(0, match.index)));
      if (determined) other = true;
      continue;
    }
    other = true;
  }
  return other;
}
