/**
 * Small Markdown helpers shared by the local index, the passage ranker and the extractive answerer:
 * a block splitter that knows headings, lists, tables, quotes and fenced code, and inline-syntax
 * stripping for plain-text output. It handles the CommonMark constructs that page extraction and
 * documentation produce; it is not a full CommonMark parser.
 */

/** Kind of a Markdown block. */
export type MarkdownBlockKind = 'heading' | 'paragraph' | 'list' | 'quote' | 'table' | 'code';

/** One block of a Markdown document. */
export interface MarkdownBlock {
  readonly kind: MarkdownBlockKind;
  /** Source text of the block (for lists, all items; for code, without the fences). */
  readonly text: string;
  /** Heading level 1–6, for headings only. */
  readonly level?: number;
  /** List items without their markers, for lists only. */
  readonly items?: readonly string[];
}

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+/;
const TABLE_ROW = /^ {0,3}\|.*\|[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * Splits Markdown into blocks. Blank lines separate paragraphs; fenced code is kept whole. YAML front
 * matter and HTML comments (outside code) are not text: they are left out.
 */
export function parseMarkdownBlocks(markdown: string): MarkdownBlock[] {
  const lines = withoutComments(withoutFrontMatter(markdown.replace(/\r\n?/g, '\n')).split('\n'));
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  let list: string[] = [];
  let quote: string[] = [];
  let table: string[] = [];

  const flush = (): void => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join('\n') });
    if (list.length > 0) {
      const items = list.map((item) => item.trim()).filter((item) => item.length > 0);
      blocks.push({ kind: 'list', text: items.join('\n'), items });
    }
    if (quote.length > 0) blocks.push({ kind: 'quote', text: quote.join('\n') });
    if (table.length > 0) blocks.push({ kind: 'table', text: table.join('\n') });
    paragraph = [];
    list = [];
    quote = [];
    table = [];
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence !== null) {
      flush();
      const marker = fence[1] ?? '```';
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trimStart().startsWith(marker))
        code.push(lines[i++] ?? '');
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (line.trim().length === 0) {
      // A blank line ends a paragraph; a list continues across blank lines between its items.
      if (paragraph.length > 0 || quote.length > 0 || table.length > 0) flush();
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading !== null) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1]?.length ?? 1, text: (heading[2] ?? '').trim() });
      continue;
    }
    if (paragraph.length > 0 && SETEXT_UNDERLINE.test(line) && list.length === 0) {
      const text = paragraph.join(' ').trim();
      paragraph = [];
      flush();
      blocks.push({ kind: 'heading', level: line.includes('=') ? 1 : 2, text });
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      flush();
      continue;
    }
    if (LIST_ITEM.test(line)) {
      if (paragraph.length > 0 || quote.length > 0 || table.length > 0) flush();
      list.push(line.replace(LIST_ITEM, ''));
      continue;
    }
    if (list.length > 0 && /^\s{2,}\S/.test(line)) {
      // Continuation of the previous list item (indented), including nested lists.
      list[list.length - 1] = `${list[list.length - 1] ?? ''} ${line.trim().replace(LIST_ITEM, '')}`;
      continue;
    }
    if (TABLE_ROW.test(line)) {
      if (table.length === 0) flush();
      table.push(line.trim());
      continue;
    }
    if (QUOTE.test(line)) {
      if (quote.length === 0) flush();
      quote.push(line.replace(QUOTE, ''));
      continue;
    }
    if (list.length > 0 || table.length > 0 || quote.length > 0) flush();
    paragraph.push(line.trim());
  }
  flush();
  return blocks;
}

/** YAML front matter: `---` on the first line, `key: value` lines, and `---` (or `...`) closing it. */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\n(?=[\w-]+[ \t]*:)(?:.*\n){0,100}?(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/** The document without its YAML front matter (metadata, not text). */
function withoutFrontMatter(markdown: string): string {
  return markdown.replace(FRONT_MATTER, '');
}

/** Offsets of the code spans (`` `code` ``) in `text`, as `[start, end)` pairs in order. */
function codeSpanRanges(text: string): [number, number][] {
  if (!text.includes('`')) return [];
  return [...text.matchAll(CODE_SPAN)].map((match) => [match.index, match.index + match[0].length]);
}

/** An inline link or image: `[text](url)`, `![alt](src)`. */
const LINK_OR_IMAGE = /!?\[[^\]]*\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)/g;

/**
 * Offsets of the code spans, links and images of `text` (spans a sentence is never cut inside), as
 * `[start, end)` pairs in order, none overlapping.
 */
export function inlineSpanRanges(text: string): [number, number][] {
  const code = codeSpanRanges(text);
  if (!text.includes('](')) return code;
  const inCode = (offset: number) => code.some(([start, end]) => offset >= start && offset < end);
  const links = [...text.matchAll(LINK_OR_IMAGE)]
    .filter((match) => !inCode(match.index))
    .map((match): [number, number] => [match.index, match.index + match[0].length]);
  return [...code, ...links].sort((a, b) => a[0] - b[0]);
}

/**
 * The lines with HTML comments (`<!-- … -->`, also over several lines) removed, except inside fenced code
 * and code spans. A line that held only a comment becomes blank, as an HTML block ends a paragraph.
 */
function withoutComments(lines: string[]): string[] {
  let fence: string | null = null;
  let inComment = false;
  return lines.map((line) => {
    if (!inComment) {
      const opening = FENCE.exec(line)?.[1];
      if (fence === null && opening !== undefined) fence = opening;
      else if (fence !== null && line.trimStart().startsWith(fence)) fence = null;
      if (fence !== null || opening !== undefined || !line.includes('<!--')) return line;
    }
    let out = '';
    let at = 0;
    const code = codeSpanRanges(line);
    while (at < line.length) {
      if (inComment) {
        const close = line.indexOf('-->', at);
        if (close === -1) return out.trim().length === 0 ? '' : out;
        inComment = false;
        at = close + 3;
        continue;
      }
      let open = line.indexOf('<!--', at);
      while (open !== -1 && code.some(([start, end]) => open >= start && open < end))
        open = line.indexOf('<!--', open + 4);
      if (open === -1) {
        out += line.slice(at);
        break;
      }
      out += line.slice(at, open);
      inComment = true;
      at = open + 4;
    }
    return out.trim().length === 0 ? '' : out;
  });
}

/** A part of a document under one heading. */
export interface MarkdownSection {
  /** Text of the heading that opens the section (inline syntax stripped); absent before the first heading. */
  readonly heading?: string;
  /** Heading level, 0 for the part before the first heading. */
  readonly level: number;
  /** Markdown of the section body, without its heading. */
  readonly markdown: string;
}

/**
 * Splits Markdown into sections at every heading. A heading directly followed by another heading gives
 * a section with an empty body; text before the first heading gives a section without a heading.
 */
export function splitMarkdownSections(markdown: string): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  let current: { heading?: string; level: number; parts: string[] } = { level: 0, parts: [] };
  const push = (): void => {
    if (current.heading === undefined && current.parts.length === 0) return;
    const section: MarkdownSection = { level: current.level, markdown: current.parts.join('\n\n') };
    sections.push(current.heading === undefined ? section : { ...section, heading: current.heading });
  };
  for (const block of parseMarkdownBlocks(markdown)) {
    if (block.kind === 'heading') {
      push();
      current = { heading: stripInlineMarkdown(block.text), level: block.level ?? 1, parts: [] };
    } else {
      current.parts.push(blockToMarkdown(block));
    }
  }
  push();
  return sections;
}

/** Re-serialises a block (lists as `- item` lines, code fenced). */
export function blockToMarkdown(block: MarkdownBlock): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level ?? 1)} ${block.text}`;
    case 'list':
      return (block.items ?? []).map((item) => `- ${item}`).join('\n');
    case 'code':
      return `\`\`\`\n${block.text}\n\`\`\``;
    case 'quote':
      return block.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    default:
      return block.text;
  }
}

/** HTML tags removed from text, inline and block (other `<words>` such as `<id>` placeholders are kept). */
const INLINE_HTML_TAG =
  /<\/?(?:a|abbr|article|aside|audio|b|bdi|bdo|big|blockquote|br|caption|center|cite|code|dd|del|details|dfn|div|dl|dt|em|figcaption|figure|font|footer|h[1-6]|header|hr|i|iframe|img|ins|kbd|li|main|mark|nav|ol|p|picture|pre|q|s|samp|section|small|source|span|strike|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|time|tr|tt|u|ul|var|video|wbr)(?:\s[^>]*)?\/?>/gi;

const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;

/**
 * Applies `transform` to the parts of `text` outside code spans; code spans are passed to `code`
 * (by default kept as they are), so that `<id>` or `**` inside code survive.
 */
export function mapOutsideCode(
  text: string,
  transform: (prose: string) => string,
  code: (content: string, source: string) => string = (_content, source) => source,
): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(CODE_SPAN)) {
    out += transform(text.slice(last, match.index));
    out += code((match[2] ?? '').trim(), match[0]);
    last = match.index + match[0].length;
  }
  return out + transform(text.slice(last));
}

/** Removes links, images, footnote references and inline HTML tags, keeping link text; code spans untouched. */
export function stripLinksAndHtml(text: string): string {
  return mapOutsideCode(text, (prose) =>
    prose
      // Images: ![alt](src) → alt
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      // Links: [text](url "title") and reference links [text][ref] → text
      .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
      // Autolinks: <https://…> → https://…
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      .replace(INLINE_HTML_TAG, '')
      // Footnote references [^1]
      .replace(/\[\^[^\]]+\]/g, ''),
  );
}

/** What collapsing white space changes: a tab or two spaces in a row (most lines have neither). */
const SPACE_RUN = /\t| {2}/;

/** A character that inline Markdown syntax, a link, an HTML tag or an escape needs. */
const INLINE_SYNTAX = /[[\]<>`*~_\\]/;

/**
 * Removes inline Markdown syntax, keeping the words: links and images become their text, code spans
 * lose their backticks, emphasis markers, inline HTML tags and backslash escapes are dropped. Underscores
 * inside words (`snake_case`, `cw_…`) and text inside code spans are kept.
 */
export function stripInlineMarkdown(text: string): string {
  // Without any of these characters no rule below applies (most sentences of prose): only spaces change.
  if (!INLINE_SYNTAX.test(text)) return (SPACE_RUN.test(text) ? text.replace(/[ \t]+/g, ' ') : text).trim();
  return mapOutsideCode(
    stripLinksAndHtml(text),
    (prose) =>
      prose
        // Strong/emphasis/strikethrough with * and ~ anywhere, with _ only at word boundaries
        .replace(/(\*{1,3}|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
        .replace(/(^|[^\p{L}\p{N}_])(_{1,3})(?=\S)([\s\S]*?\S)\2(?![\p{L}\p{N}_])/gu, '$1$3')
        // Backslash escapes
        .replace(/\\([!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~])/g, '$1')
        // Stray markers left by unbalanced syntax
        .replace(/\*\*|`/g, ''),
    (content) => content,
  )
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** Cells of a Markdown table row, inline syntax stripped; `null` for the `|---|---|` delimiter row. */
export function tableRowCells(row: string): string[] | null {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells = inner.split(/(?<!\\)\|/).map((cell) => stripInlineMarkdown(cell.trim()));
  if (cells.every((cell) => /^:?-+:?$/.test(cell))) return null;
  return cells;
}

/** One row of a Markdown table with the header it sits under. */
export interface TableRow {
  /** The row's cells, inline syntax stripped. */
  readonly cells: readonly string[];
  /** The row's cells as written (code spans and emphasis kept). */
  readonly source: readonly string[];
  /** The header cells, inline syntax stripped (empty when the table has no header row). */
  readonly header: readonly string[];
}

/** Cells of a Markdown table row as written, trimmed. */
function rowSource(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/**
 * The body rows of a Markdown table (a `table` block's text), each with the header: the first row when a
 * delimiter row (`|---|`) follows it, else none.
 */
export function tableRows(table: string): TableRow[] {
  const lines = table.split('\n');
  const rows = lines.map(tableRowCells);
  const hasHeader = rows.length > 1 && rows[0] !== null && rows[1] === null;
  const header = hasHeader ? rows[0]! : [];
  const body: TableRow[] = [];
  rows.forEach((cells, i) => {
    if (i < (hasHeader ? 2 : 0) || cells === null || cells.every((cell) => cell.length === 0)) return;
    body.push({ cells, source: rowSource(lines[i] ?? ''), header });
  });
  return body;
}

/**
 * A table row as a statement that keeps its header: "Role: Chief Financial Officer; Name: Tomasz Wren;
 * Office: Gdańsk". Empty cells are left out; a cell without a header (or under an empty one) stands alone.
 * The `markdown` form keeps the cells' inline Markdown (code spans), the `text` form strips it.
 */
export function tableRowStatement(row: TableRow, form: 'text' | 'markdown' = 'text'): string {
  return row.cells
    .map((cell, i) => {
      const name = row.header[i]?.trim() ?? '';
      const value = form === 'markdown' ? (row.source[i] ?? cell) : cell;
      return cell.length === 0 ? '' : name.length === 0 || name === cell ? value : `${name}: ${value}`;
    })
    .filter((part) => part.length > 0)
    .join('; ');
}

/**
 * Converts Markdown to plain text: headings and list items become their own lines without markers,
 * table rows become their statements with the header ({@link tableRowStatement}: "Name: Tomasz Wren;
 * Office: Gdańsk"), code blocks keep their content, and blocks are separated by blank lines.
 */
export function markdownToText(markdown: string): string {
  const out: string[] = [];
  for (const block of parseMarkdownBlocks(markdown)) {
    switch (block.kind) {
      case 'code':
        out.push(block.text);
        break;
      case 'list':
        out.push((block.items ?? []).map(stripInlineMarkdown).join('\n'));
        break;
      case 'table':
        out.push(
          tableRows(block.text)
            .map((row) => tableRowStatement(row))
            .join('\n'),
        );
        break;
      default:
        out.push(
          block.text
            .split('\n')
            .map(stripInlineMarkdown)
            .join(block.kind === 'quote' ? '\n' : ' '),
        );
    }
  }
  return out.filter((part) => part.length > 0).join('\n\n');
}
