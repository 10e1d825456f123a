/**
 * What leads are read from, and what a lead may be. A document read by research is Markdown (a page's
 * extracted Markdown, a corpus file): its prose sentences and list items are read with code spans taken out
 * (a code span is a break, never part of a name) and links, emphasis and HTML reduced to their words; a
 * table gives one unit per row, each cell with its column; headings and code blocks give none. A lead is a
 * thing ({@link isThing}): a name, a title, a term or a table cell's value, never markup, a code token, an
 * environment variable or a flag.
 */
import {
  mapOutsideCode,
  parseMarkdownBlocks,
  stripInlineMarkdown,
  tableRowCells,
} from '../../text/markdown.ts';
import { splitSentences } from '../../text/sentences.ts';

/** A table cell of a row: its value and its column's header. */
export interface TableCell {
  readonly column: string;
  readonly value: string;
}

/** A sentence of prose, or a table row (its cells with their columns, and the row as a readable sentence). */
export interface LeadUnit {
  /** The words of the sentence (code spans replaced by a dash), or the row as "column: value; …". */
  readonly sentence: string;
  /** Every word of the unit, code included: what the unit says, for how much of a question it covers. */
  readonly words: string;
  /** Set for a table row. */
  readonly cells?: readonly TableCell[];
  /** A table row as an answer quotes it: "column: value; …", code kept. */
  readonly quote?: string;
  /** The heading the unit stands under (Markdown only): what its section is about. */
  readonly heading?: string;
}

/** The unit as an answer quotes it: a table row with its columns, a sentence with its code. */
export function quoteOf(unit: LeadUnit): string {
  return unit.quote ?? unit.words;
}

/** Stands for a code span in a sentence: a break that no name runs across. */
const CODE_BREAK = ' — ';

/** A sentence's words: code spans out, links, emphasis, HTML and escapes reduced to their text. */
function proseOf(markdown: string): string {
  const withoutCode = mapOutsideCode(
    markdown,
    (prose) => prose,
    () => CODE_BREAK,
  );
  return stripInlineMarkdown(withoutCode).replace(/\s+/gu, ' ').trim();
}

/** A sentence of prose as a unit. */
function proseUnit(markdown: string): LeadUnit {
  return { sentence: proseOf(markdown), words: stripInlineMarkdown(markdown).replace(/\s+/gu, ' ').trim() };
}

/** A sentence that goes on about the subject of the one before ("It weighs 2.1 kg and flies for 42 minutes."). */
const PRONOUN_START = /^(?:it|its|they|their|he|his|she|her|this|these)\b/iu;

/**
 * A paragraph's sentences, each one's words followed by those of the sentences after it that open with a
 * pronoun: they say more of the same subject ("The Kestrel 500 is our survey drone. It flies for 42
 * minutes."). Each sentence stays a unit of its own, and its names are its own.
 */
function withPronounSentences(units: readonly LeadUnit[], followers: number): LeadUnit[] {
  return units.map((unit, i) => {
    let words = unit.words;
    const end = Math.min(units.length, i + 1 + followers);
    for (let next = i + 1; next < end && PRONOUN_START.test(units[next]!.words); next++)
      words = `${words} ${units[next]!.words}`;
    return words === unit.words ? unit : { ...unit, words };
  });
}

/** The names a document's headings give ("## Aftercare", "## Kestrel 500"): headings written as names. */
export function headingNames(markdown: string | undefined): string[] {
  if (!markdown) return [];
  return parseMarkdownBlocks(markdown).flatMap((block) =>
    block.kind === 'heading' ? [stripInlineMarkdown(block.text).trim()] : [],
  );
}

/** A cell written all in code (`--port N`, `CITEWISE_PORT`) holds a code token, not a thing. */
const ALL_CODE = /^\s*(`+)[^`]+\1\s*$/u;

/** The rows of a Markdown table as units; the header row names the columns and gives no unit itself. */
function tableUnits(table: string): LeadUnit[] {
  const rows = table.split('\n');
  const header = tableRowCells(rows[0] ?? '')?.map((cell) => cell.trim()) ?? [];
  const units: LeadUnit[] = [];
  for (const row of rows.slice(1)) {
    const raw = row
      .trim()
      .replace(/^\|/u, '')
      .replace(/\|$/u, '')
      .split(/(?<!\\)\|/u);
    const all = tableRowCells(row);
    if (all === null) continue;
    const cells = raw.flatMap((source, i): TableCell[] => {
      if (ALL_CODE.test(source)) return [];
      const value = proseOf(source);
      return value ? [{ column: header[i] ?? '', value }] : [];
    });
    if (cells.length === 0) continue;
    const sentence = cells.map((c) => (c.column ? `${c.column}: ${c.value}` : c.value)).join('; ');
    const words = all.map((cell, i) => `${header[i] ?? ''} ${cell}`.trim()).join(' ');
    const quote = all
      .flatMap((cell, i) => (cell ? [header[i] ? `${header[i]}: ${cell}` : cell] : []))
      .join('; ');
    units.push({ sentence, words, cells, quote });
  }
  return units;
}

/**
 * The units of a document, in document order, at most `max`: prose sentences and list items of its
 * Markdown (or of its plain text when it has none), and table rows. A sentence's words take those of at most
 * `followers` sentences after it that open with a pronoun (@default all of them).
 */
export function leadUnits(
  text: string,
  markdown: string | undefined,
  max: number,
  followers = Infinity,
): LeadUnit[] {
  if (markdown === undefined || !markdown.trim()) {
    return withPronounSentences(
      splitSentences(text).map((sentence) => ({ sentence, words: sentence })),
      followers,
    ).slice(0, max);
  }
  const units: LeadUnit[] = [];
  let heading: string | undefined;
  for (const block of parseMarkdownBlocks(markdown)) {
    if (units.length >= max) break;
    const under = (unit: LeadUnit): LeadUnit => (heading === undefined ? unit : { ...unit, heading });
    if (block.kind === 'heading') heading = block.text;
    else if (block.kind === 'table') units.push(...tableUnits(block.text).map(under));
    else if (block.kind === 'paragraph' || block.kind === 'quote') {
      units.push(...withPronounSentences(splitSentences(block.text).map(proseUnit), followers).map(under));
    } else if (block.kind === 'list') {
      for (const item of block.items ?? [])
        for (const sentence of splitSentences(item)) units.push(under(proseUnit(sentence)));
    }
  }
  return units.filter((unit) => /\p{L}/u.test(unit.sentence)).slice(0, max);
}

/** Characters of markup and code that no name holds. */
const MARKUP = /[`*_|#$<>{}[\]=\\~^@]/u;
/** An environment variable or a constant: capitals, digits and underscores. */
const CONSTANT = /^[\p{Lu}\p{N}]+(?:_[\p{Lu}\p{N}]+)+$/u;
/**
 * Code: words joined by a slash or a colon (`docs/api`, `node:sqlite`), a file name (`README.md`), a call
 * (`open()`), a lower-case dotted name (`engine.search`). "Node.js" and "U.S." are names.
 */
const CODE_JOIN =
  /[\p{L}\p{N}][/:]\p{L}|\.(?:md|markdown|json|ts|txt|html?|ya?ml|toml|db|sh|py|csv|log|conf|env|lock|sql|xml|ini)\b|[\p{L}\p{N}]\(|^\p{Ll}+\.\p{Ll}/u;

/**
 * True when `name` may be a lead: a name, a title, a term or a cell value. Markup characters, code tokens
 * (`engine.search`, `index.json`, `open()`), environment variables (`CITEWISE_PORT`), flags (`--port`) and
 * strings without a letter are not things.
 */
export function isThing(name: string): boolean {
  const trimmed = name.trim();
  if (!/\p{L}/u.test(trimmed)) return false;
  if (/^[-–—]/u.test(trimmed)) return false;
  if (MARKUP.test(trimmed) || CONSTANT.test(trimmed) || CODE_JOIN.test(trimmed)) return false;
  return true;
}

/**
 * A life's span as biographies open, "(6 December 1893 – 21 April 1935)" or "(6 June 1906, Graz – 2
 * November 1994, Le Plessis-Bouchard)": when (and where) born and died.
 */
const LIFESPAN = /\([^()]*\b\d{3,4}\b[^()]*?\s[–—-]\s[^()]*\b\d{3,4}\b[^()]*\)/u;

/** The words of a unit, with the birth and death a life's span states in figures. */
export function unitWords(words: string): string {
  return LIFESPAN.test(words) ? `${words} born died` : words;
}

/**
 * Where the life's span of `text` stands (its brackets, `text.slice(start, end)`), and the offset of the dash
 * between birth and death; undefined when `text` opens no life's span.
 */
export function lifespanIn(text: string): { start: number; end: number; dash: number } | undefined {
  const match = LIFESPAN.exec(text);
  if (!match) return undefined;
  const start = match.index;
  return { start, end: start + match[0].length, dash: start + match[0].search(/\s[–—-]\s/u) };
}
