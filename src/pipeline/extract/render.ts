/**
 * Renders extracted content as plain text (blank-line paragraphs) and as Markdown (turndown's output with GFM
 * tables, written by one walk of the element that leaves it unchanged).
 */
import { stripInvisibleCharacters } from './hidden.ts';

const BLOCK_TAGS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CAPTION',
  'CENTER',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'TFOOT',
  'THEAD',
  'TR',
  'UL',
]);
/** Blocks whose children are lines rather than paragraphs. */
const LINE_TAGS = new Set(['LI', 'DT', 'DD', 'TR', 'CAPTION']);
const CELL_TAGS = new Set(['TD', 'TH']);

/**
 * Plain text of an element: block elements become paragraphs separated by blank lines, list items and table
 * rows single lines (cells tab-separated), `<br>` a line break, whitespace collapsed outside `<pre>`.
 */
export function elementToText(root: Element): string {
  const parts: string[] = [];
  // Pending separator strength: 0 none, 1 space, 2 newline, 3 blank line.
  let pending = 0;
  const separate = (strength: number): void => {
    if (strength > pending) pending = strength;
  };
  const write = (text: string): void => {
    if (text === '') return;
    if (parts.length > 0)
      parts.push(pending === 3 ? '\n\n' : pending === 2 ? '\n' : pending === 1 ? ' ' : '');
    pending = 0;
    parts.push(text);
  };
  const walk = (node: Node, inPre: boolean): void => {
    if (node.nodeType === 3) {
      const data = node.nodeValue ?? '';
      if (inPre) {
        write(data);
        return;
      }
      if (/^\s/.test(data)) separate(1);
      const collapsed = data.replace(/\s+/g, ' ').trim();
      write(collapsed);
      if (collapsed && /\s$/.test(data)) separate(1);
      return;
    }
    if (node.nodeType !== 1) return;
    const tag = (node as Element).tagName.toUpperCase();
    if (tag === 'BR') {
      separate(2);
      return;
    }
    if (tag === 'IMG' || tag === 'SVG' || tag === 'BUTTON' || tag === 'SELECT') return;
    const isLine = LINE_TAGS.has(tag);
    const isBlock = BLOCK_TAGS.has(tag);
    const isCell = CELL_TAGS.has(tag);
    if (isLine) separate(2);
    else if (isBlock) separate(3);
    else if (isCell) separate(parts.length > 0 && pending < 2 ? 1 : pending);
    const pre = inPre || tag === 'PRE';
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child, pre);
    if (isLine) separate(2);
    else if (isBlock) separate(3);
    else if (isCell) separate(1);
  };
  walk(root, false);
  return tidyText(parts.join(''));
}

/** Strips invisible characters, trailing spaces and runs of blank lines. */
export function tidyText(text: string): string {
  return stripInvisibleCharacters(text)
    .replace(/\u00A0/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function cellText(content: string): string {
  return content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

function isHeaderRow(row: Element): boolean {
  const parent = row.parentNode as Element | null;
  if (parent?.nodeName === 'THEAD') return true;
  const cells = Array.from(row.children).filter((cell) => CELL_TAGS.has(cell.tagName.toUpperCase()));
  return cells.length > 0 && cells.every((cell) => cell.tagName.toUpperCase() === 'TH');
}

function firstRowOf(table: Element): Element | null {
  return table.querySelector('tr');
}

function columnCount(row: Element): number {
  let count = 0;
  for (const cell of Array.from(row.children)) {
    if (CELL_TAGS.has(cell.tagName.toUpperCase()))
      count += Math.max(1, Number(cell.getAttribute('colspan')) || 1);
  }
  return count;
}

/*
 * Markdown. The output is turndown's (ATX headings, fenced code, `-` bullets, `_em_`, `**strong**`, `---`)
 * with our rules for lists, links, images and GFM tables, written without turndown: turndown read the
 * `textContent` of every node (to find blank nodes and the whitespace flanking inline ones), so its cost grew
 * with the text times the depth, and it rewrote the element's text nodes. Here one walk collapses the
 * whitespace into a list of strings, a second renders each element from its children, carrying the few facts
 * about their text that turndown's rules need.
 */

/** turndown's block elements: no flanking whitespace, blank lines around their default rendering. */
const MARKDOWN_BLOCK_TAGS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'AUDIO',
  'BLOCKQUOTE',
  'BODY',
  'CANVAS',
  'CENTER',
  'DD',
  'DIR',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'FRAMESET',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'HTML',
  'ISINDEX',
  'LI',
  'MAIN',
  'MENU',
  'NAV',
  'NOFRAMES',
  'NOSCRIPT',
  'OL',
  'OUTPUT',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TBODY',
  'TD',
  'TFOOT',
  'TH',
  'THEAD',
  'TR',
  'UL',
]);

/** Void elements: they break whitespace collapsing like text does, and an element holding one is not blank. */
const VOID_TAGS = new Set([
  'AREA',
  'BASE',
  'BR',
  'COL',
  'COMMAND',
  'EMBED',
  'HR',
  'IMG',
  'INPUT',
  'KEYGEN',
  'LINK',
  'META',
  'PARAM',
  'SOURCE',
  'TRACK',
  'WBR',
]);

/** Elements that are never blank, and make their ancestors not blank, whatever their text (with the voids). */
const NEVER_BLANK_TAGS = new Set([
  ...VOID_TAGS,
  'A',
  'TABLE',
  'THEAD',
  'TBODY',
  'TFOOT',
  'TH',
  'TD',
  'IFRAME',
  'SCRIPT',
  'AUDIO',
  'VIDEO',
]);

/** Elements left out of the Markdown (when not blank: a blank block still separates paragraphs). */
const UNRENDERED_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'BUTTON',
  'IFRAME',
  'SVG',
  'FORM',
]);

/** Markdown syntax in text and its escape, in the order turndown applies them. */
const MARKDOWN_ESCAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\\/g, '\\\\'],
  [/\*/g, '\\*'],
  [/^-/g, '\\-'],
  [/^\+ /g, '\\+ '],
  [/^(=+)/g, '\\$1'],
  [/^(#{1,6}) /g, '\\$1 '],
  [/`/g, '\\`'],
  [/^~~~/g, '\\~~~'],
  [/\[/g, '\\['],
  [/\]/g, '\\]'],
  [/^>/g, '\\>'],
  [/_/g, '\\_'],
  [/^(\d+)\. /g, '$1\\. '],
];

/** Text that no escape in {@link MARKDOWN_ESCAPES} can change: most text, so it is tested first. */
const NEEDS_ESCAPE = /[\\*`[\]_]|^[-+=#~>\d]/;

function escapeMarkdown(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  let escaped = text;
  for (const [pattern, replacement] of MARKDOWN_ESCAPES) escaped = escaped.replace(pattern, replacement);
  return escaped;
}

/** Whether a UTF-16 code is whitespace to JavaScript's `\s` (and `trim`). */
function isSpace(code: number): boolean {
  return code <= 32
    ? code === 32 || (code >= 9 && code <= 13)
    : code === 0xa0 ||
        code === 0x1680 ||
        (code >= 0x2000 && code <= 0x200a) ||
        code === 0x2028 ||
        code === 0x2029 ||
        code === 0x202f ||
        code === 0x205f ||
        code === 0x3000 ||
        code === 0xfeff;
}

/** Whether a code is one of the ASCII spaces whitespace collapsing folds (space, tab, CR, LF). */
function isAsciiSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * Collapses the whitespace of the text nodes under `root` as turndown does (as HTML renders it), in document
 * order, into a list: one entry per text node outside `<pre>`, `null` where the node would vanish. Runs of
 * ASCII whitespace become one space; a space after a space, or at the start of a block, is dropped; a space
 * before a block, a `<br>` or the end is dropped. Text next to a void element keeps its leading space.
 */
function collapseWhitespace(root: Element): (string | null)[] {
  const texts: (string | null)[] = [];
  if (!root.firstChild || root.nodeName === 'PRE') return texts;
  // Index in `texts` of the text the next space follows (-1: none, as at the start of a block).
  let previous = -1;
  let keepLeadingSpace = false;
  const trimPrevious = (): void => {
    if (previous >= 0) texts[previous] = (texts[previous] as string).replace(/ $/, '');
  };
  // An element boundary (turndown visits an element with children on the way in and on the way out).
  const boundary = (element: Element): void => {
    const name = element.nodeName;
    if (MARKDOWN_BLOCK_TAGS.has(name) || name === 'BR') {
      trimPrevious();
      previous = -1;
      keepLeadingSpace = false;
    } else if (VOID_TAGS.has(name) || name === 'PRE') {
      previous = -1;
      keepLeadingSpace = true;
    } else if (previous >= 0) keepLeadingSpace = false;
  };
  const walk = (parent: Node): void => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      const type = child.nodeType;
      if (type === 3 || type === 4) {
        let text = (child.nodeValue ?? '').replace(/[ \r\n\t]+/g, ' ');
        const afterSpace = previous < 0 || (texts[previous] as string).endsWith(' ');
        if (afterSpace && !keepLeadingSpace && text.startsWith(' ')) text = text.slice(1);
        texts.push(text === '' ? null : text);
        if (text !== '') previous = texts.length - 1;
      } else if (type === 1) {
        const element = child as Element;
        boundary(element);
        if (element.nodeName !== 'PRE' && element.firstChild) {
          walk(element);
          boundary(element);
        }
      }
    }
  };
  walk(root);
  trimPrevious();
  if (previous >= 0 && texts[previous] === '') texts[previous] = null;
  return texts;
}

const TEXT_PIECE = 0;
const ELEMENT_PIECE = 1;
/** A comment inside `<pre>` (elsewhere comments are dropped with the whitespace): a sibling, no text. */
const OTHER_PIECE = 2;

/** A child node as its parent renders it: its content and the facts about its `textContent` rules need. */
interface Piece {
  kind: typeof TEXT_PIECE | typeof ELEMENT_PIECE | typeof OTHER_PIECE;
  element: Element | null;
  /** Index among the parent's element children (an `<li>`'s number). */
  index: number;
  /** A text's collapsed value; an element's Markdown of its children. */
  content: string;
  /** Whether `textContent` is all whitespace (or empty). */
  blankText: boolean;
  /** The whitespace `textContent` starts with (all of it when {@link blankText}). */
  leading: string;
  /** The whitespace `textContent` ends with (all of it when {@link blankText}). */
  trailing: string;
  startsWithSpace: boolean;
  endsWithSpace: boolean;
  /** Whether `textContent` is non-empty: the first and last characters come from such pieces. */
  hasText: boolean;
  /** Whether the element or one of its descendants is never blank ({@link NEVER_BLANK_TAGS}). */
  neverBlank: boolean;
}

function textPiece(value: string): Piece {
  const length = value.length;
  let start = 0;
  while (start < length && isSpace(value.charCodeAt(start))) start++;
  const blankText = start === length;
  let end = length;
  while (end > start && isSpace(value.charCodeAt(end - 1))) end--;
  return {
    kind: TEXT_PIECE,
    element: null,
    index: -1,
    content: value,
    blankText,
    leading: blankText ? value : value.slice(0, start),
    trailing: blankText ? value : value.slice(end),
    startsWithSpace: value.charCodeAt(0) === 32,
    endsWithSpace: value.charCodeAt(length - 1) === 32,
    hasText: length > 0,
    neverBlank: false,
  };
}

/** Whether the sibling before (`step` -1) or after (1) piece `at` ends (starts) with a space. */
function flankedBySpace(pieces: Piece[], at: number, step: -1 | 1): boolean {
  const sibling = pieces[at + step];
  if (!sibling) return false;
  if (sibling.kind === OTHER_PIECE) return false;
  if (sibling.kind === ELEMENT_PIECE && MARKDOWN_BLOCK_TAGS.has((sibling.element as Element).nodeName))
    return false;
  return step < 0 ? sibling.endsWithSpace : sibling.startsWithSpace;
}

function asciiSpacePrefixLength(text: string): number {
  let length = 0;
  while (length < text.length && isAsciiSpace(text.charCodeAt(length))) length++;
  return length;
}

function asciiSpaceSuffixLength(text: string): number {
  let length = 0;
  while (length < text.length && isAsciiSpace(text.charCodeAt(text.length - 1 - length))) length++;
  return length;
}

function countLeadingNewlines(text: string): number {
  let count = 0;
  while (count < text.length && text.charCodeAt(count) === 10) count++;
  return count;
}

function countTrailingNewlines(text: string): number {
  let count = 0;
  while (count < text.length && text.charCodeAt(text.length - 1 - count) === 10) count++;
  return count;
}

function trimNewlines(text: string): string {
  const leading = countLeadingNewlines(text);
  if (leading === text.length) return '';
  return text.slice(leading, text.length - countTrailingNewlines(text));
}

/**
 * Appends a rendering to `parts` as turndown joins them: the newlines where two meet are the larger of the
 * two runs, at most two. Only the last part may end with newlines.
 */
function joinPart(parts: string[], addition: string): void {
  const tail = parts.pop() ?? '';
  const tailNewlines = countTrailingNewlines(tail);
  const leadingNewlines = countLeadingNewlines(addition);
  const head = tail.slice(0, tail.length - tailNewlines);
  const rest = addition.slice(leadingNewlines);
  const newlines = Math.min(2, Math.max(tailNewlines, leadingNewlines));
  if (head) parts.push(head);
  if (newlines > 0) parts.push(newlines === 2 ? '\n\n' : '\n');
  if (rest) parts.push(rest);
}

/** Inline code: a backtick fence of a length no backtick run inside has, padded where content needs it. */
function inlineCode(content: string): string {
  if (!content) return '';
  const code = content.replace(/\r?\n|\r/g, ' ');
  const padding = /^`|^ .*?[^ ].* $|`$/.test(code) ? ' ' : '';
  const runs: string[] = code.match(/`+/gm) ?? [];
  let fence = '`';
  while (runs.includes(fence)) fence += '`';
  return fence + padding + code + padding + fence;
}

/** A `<pre>` whose first child is `<code>`: a fenced block, longer than any fence inside, with its language. */
function fencedCode(code: Element): string {
  const language = /language-(\S+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
  const text = code.textContent ?? '';
  let fenceSize = 3;
  for (const match of text.matchAll(/^`{3,}/gm)) {
    if (match[0].length >= fenceSize) fenceSize = match[0].length + 1;
  }
  const fence = '`'.repeat(fenceSize);
  return `\n\n${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
}

/** Compact list items (`- item`, `3. item`), continuation lines indented by the marker's width. */
function listItem(item: Element, index: number, content: string, hasNext: boolean): string {
  const parent = item.parentNode as Element | null;
  let prefix = '- ';
  if (parent?.nodeName === 'OL') {
    const start = Number(parent.getAttribute('start') ?? '1');
    prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
  }
  const body = content
    .replace(/^\n+/, '')
    .replace(/\n+$/, '\n')
    .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
  return prefix + body + (hasNext && !body.endsWith('\n') ? '\n' : '');
}

/** Images with an http(s) source; others (data: URIs, relative leftovers) are dropped. */
function image(element: Element): string {
  const source = element.getAttribute('src') ?? '';
  if (!/^https?:/i.test(source)) return '';
  const alt = (element.getAttribute('alt') ?? '').replace(/[[\]\n]/g, ' ').trim();
  return `![${alt}](${source.replace(/[()]/g, (c) => encodeURIComponent(c))})`;
}

/** Links to http(s) and mailto: targets; other links keep their text, empty ones are dropped. */
function link(element: Element, content: string): string {
  const href = element.getAttribute('href') ?? '';
  const text = content.trim();
  if (!text) return '';
  if (!/^(?:https?:|mailto:)/i.test(href)) return content;
  return `[${text}](${href.replace(/[()]/g, (c) => encodeURIComponent(c))})`;
}

/** GFM table row: the first row (or `<thead>`) is the header; a table without one gets an empty header. */
function tableRow(row: Element, content: string): string {
  let table: Node | null = row.parentNode;
  while (table && table.nodeName !== 'TABLE') table = table.parentNode;
  const isFirst = table ? firstRowOf(table as Element) === row : false;
  const line = `|${content}\n`;
  if (!isFirst) return line;
  const columns = Math.max(1, columnCount(row));
  const divider = `|${' --- |'.repeat(columns)}\n`;
  return isHeaderRow(row) ? line + divider : `|${'  |'.repeat(columns)}\n${divider}${line}`;
}

/** The Markdown of a non-blank element from its children's Markdown (`pieces[at]` is the element). */
function elementMarkdown(pieces: Piece[], at: number, content: string, isBlock: boolean): string {
  const piece = pieces[at] as Piece;
  const element = piece.element as Element;
  const name = element.nodeName;
  switch (name) {
    case 'P':
      return `\n\n${content}\n\n`;
    case 'BR':
      return '  \n';
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      return `\n\n${'#'.repeat(Number(name.charAt(1)))} ${content}\n\n`;
    case 'BLOCKQUOTE':
      return `\n\n${trimNewlines(content).replace(/^/gm, '> ')}\n\n`;
    case 'UL':
    case 'OL': {
      const parent = element.parentNode as Element | null;
      const nested = parent?.nodeName === 'LI' && parent.lastElementChild === element;
      return nested ? `\n${content}` : `\n\n${content}\n\n`;
    }
    case 'LI':
      return listItem(element, piece.index, content, at + 1 < pieces.length);
    case 'PRE':
      if (element.firstChild?.nodeName === 'CODE') return fencedCode(element.firstChild as Element);
      break;
    case 'HR':
      return '\n\n---\n\n';
    case 'A':
      return link(element, content);
    case 'EM':
    case 'I':
      return content.trim() ? `_${content}_` : '';
    case 'STRONG':
    case 'B':
      return content.trim() ? `**${content}**` : '';
    case 'CODE': {
      // The only child of a <pre> is rendered by the <pre>'s fence.
      const isBlockCode = element.parentNode?.nodeName === 'PRE' && pieces.length === 1;
      if (!isBlockCode) return inlineCode(content);
      break;
    }
    case 'IMG':
      return image(element);
    case 'TH':
    case 'TD': {
      const span = Math.max(1, Number(element.getAttribute('colspan')) || 1);
      return ` ${cellText(content)} |${' |'.repeat(span - 1)}`;
    }
    case 'TR':
      return tableRow(element, content);
    case 'THEAD':
    case 'TBODY':
    case 'TFOOT':
      return content;
    case 'CAPTION':
      return `${content.trim()}\n\n`;
    case 'TABLE':
      return `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n`;
  }
  if (UNRENDERED_TAGS.has(name)) return '';
  return isBlock ? `\n\n${content}\n\n` : content;
}

/**
 * The Markdown of `pieces[at]` in its place: a blank element is a paragraph break (block) or nothing, and an
 * inline element's leading and trailing whitespace goes outside its markers (`a **b** c`, not `a** b **c`),
 * dropped where the neighbour already has the space.
 */
function pieceMarkdown(pieces: Piece[], at: number, inCode: boolean): string {
  const piece = pieces[at] as Piece;
  if (piece.kind === TEXT_PIECE) return inCode ? piece.content : escapeMarkdown(piece.content);
  if (piece.kind === OTHER_PIECE) return '';
  const isBlock = MARKDOWN_BLOCK_TAGS.has((piece.element as Element).nodeName);
  let leading = '';
  let trailing = '';
  if (!isBlock) {
    leading = piece.leading;
    const asciiLeading = asciiSpacePrefixLength(leading);
    if (asciiLeading > 0 && flankedBySpace(pieces, at, -1)) leading = leading.slice(asciiLeading);
    if (!piece.blankText) {
      trailing = piece.trailing;
      const asciiTrailing = asciiSpaceSuffixLength(trailing);
      if (asciiTrailing > 0 && flankedBySpace(pieces, at, 1))
        trailing = trailing.slice(0, trailing.length - asciiTrailing);
    }
  }
  if (!piece.neverBlank && piece.blankText) return leading + (isBlock ? '\n\n' : '') + trailing;
  const content = leading || trailing ? piece.content.trim() : piece.content;
  return leading + elementMarkdown(pieces, at, content, isBlock) + trailing;
}

/** Renders an element's children into its piece; `texts` are the collapsed texts, read from `cursor`. */
class MarkdownWalk {
  private cursor = 0;
  private readonly texts: (string | null)[];
  private readonly root: Element;

  constructor(root: Element) {
    this.root = root;
    this.texts = collapseWhitespace(root);
  }

  /** The element as a piece: its children's Markdown and the facts about its text. */
  element(element: Element, inCode: boolean, inPre: boolean): Piece {
    const name = element.nodeName;
    // Text is code inside a <code> below the root (turndown's rule, which never looks at the root itself).
    const code = inCode || (name === 'CODE' && element !== this.root);
    const pre = inPre || name === 'PRE';
    const piece: Piece = {
      kind: ELEMENT_PIECE,
      element,
      index: -1,
      content: '',
      blankText: true,
      leading: '',
      trailing: '',
      startsWithSpace: false,
      endsWithSpace: false,
      hasText: false,
      neverBlank: NEVER_BLANK_TAGS.has(name),
    };
    const pieces: Piece[] = [];
    let index = 0;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      const type = child.nodeType;
      let childPiece: Piece;
      if (type === 3 || type === 4) {
        const value = pre ? (child.nodeValue ?? '') : this.texts[this.cursor++];
        if (value === null || value === undefined) continue;
        childPiece = textPiece(value);
      } else if (type === 1) {
        childPiece = this.element(child as Element, code, pre);
        childPiece.index = index++;
      } else if (pre) {
        childPiece = textPiece('');
        childPiece.kind = OTHER_PIECE;
      } else continue;
      pieces.push(childPiece);
      addText(piece, childPiece);
    }
    if (piece.blankText) piece.trailing = piece.leading;
    const parts: string[] = [];
    for (let at = 0; at < pieces.length; at++) joinPart(parts, pieceMarkdown(pieces, at, code));
    piece.content = parts.join('');
    return piece;
  }
}

/** Extends `piece`'s text facts by a child's (its `textContent` is the children's, in order). */
function addText(piece: Piece, child: Piece): void {
  if (child.neverBlank) piece.neverBlank = true;
  if (child.hasText) {
    if (!piece.hasText) piece.startsWithSpace = child.startsWithSpace;
    piece.endsWithSpace = child.endsWithSpace;
    piece.hasText = true;
  }
  if (piece.blankText) piece.leading += child.leading;
  piece.trailing = child.blankText ? piece.trailing + child.trailing : child.trailing;
  if (!child.blankText) piece.blankText = false;
}

/**
 * Markdown of an element (links and images must already be absolute); the element is left unchanged.
 * Turndown's output (see the note above {@link MARKDOWN_BLOCK_TAGS}), then invisible characters, NBSPs,
 * single trailing spaces and runs of blank lines are tidied.
 */
export function elementToMarkdown(root: Element): string {
  const markdown = new MarkdownWalk(root)
    .element(root, false, false)
    .content.replace(/^[\t\r\n]+/, '')
    .trimEnd();
  return (
    stripInvisibleCharacters(markdown)
      .replace(/\u00A0/g, ' ')
      // A single trailing space is noise; two mean a hard line break and stay.
      .replace(/(\S) $/gm, '$1')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
