/**
 * Renders extracted content as Markdown: turndown's output (ATX headings, fenced code, `-` bullets, `_em_`,
 * `**strong**`, `---`) with our rules for lists, links, images and GFM tables, written by one walk of the
 * element that leaves it unchanged.
 */
import { stripInvisibleCharacters } from './hidden.ts';
import { CELL_TAGS, MARKDOWN_BLOCK_TAGS, MARKDOWN_VOID_TAGS } from './tag-sets.ts';
import { isSpace } from './text-index.ts';

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
 * with the text times the depth, and it rewrote the element's text nodes. Here one walk ({@link MarkdownWalk})
 * collapses the whitespace as it goes and renders each element from its children, carrying the few facts about
 * their text that turndown's rules need.
 */

/** Elements that are never blank, and make their ancestors not blank, whatever their text (with the voids). */
const NEVER_BLANK_TAGS = new Set([
  ...MARKDOWN_VOID_TAGS,
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

/** Whether a code is one of the ASCII spaces whitespace collapsing folds (space, tab, CR, LF). */
function isAsciiSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Text whose whitespace collapsing changes (a run of two, or a tab or line break): a minority. */
const NEEDS_COLLAPSE = /[\r\n\t]| {2}/;

/** Text that collapses to a single space. */
const ONLY_COLLAPSIBLE_SPACE = /^[ \r\n\t]+$/;

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
 * two runs, at most two. A part that is only newlines never follows one that ends with a newline, so the
 * newlines `parts` end with are those of its last part.
 */
function joinPart(parts: string[], addition: string): void {
  joinWrapped(parts, '', addition, '');
}

/**
 * {@link joinPart} of `before + body + after`, without building that string: `body` is an element's content,
 * which a concatenation would copy again at every level of nesting when its newlines are counted.
 */
function joinWrapped(parts: string[], before: string, body: string, after: string): void {
  let leading = countLeadingNewlines(before);
  if (leading < before.length) before = before.slice(leading);
  else {
    before = '';
    const bodyLeading = countLeadingNewlines(body);
    leading += bodyLeading;
    if (bodyLeading < body.length) body = body.slice(bodyLeading);
    else {
      body = '';
      const afterLeading = countLeadingNewlines(after);
      leading += afterLeading;
      after = after.slice(afterLeading);
    }
  }
  const tail = parts.length > 0 ? (parts[parts.length - 1] as string) : '';
  const tailNewlines = countTrailingNewlines(tail);
  if (tailNewlines > 0 || leading > 0) {
    parts.pop();
    if (tail.length > tailNewlines) parts.push(tail.slice(0, tail.length - tailNewlines));
    const newlines = Math.min(2, Math.max(tailNewlines, leading));
    if (newlines > 0) parts.push(newlines === 2 ? '\n\n' : '\n');
  }
  pushPart(parts, before);
  pushPart(parts, body);
  pushPart(parts, after);
}

/** Appends a part, merging a run of newlines into the newlines the last part ends with. */
function pushPart(parts: string[], part: string): void {
  if (part === '') return;
  const last = parts.length > 0 ? (parts[parts.length - 1] as string) : '';
  if (last.charCodeAt(last.length - 1) === 10 && countLeadingNewlines(part) === part.length) {
    const newlines = countTrailingNewlines(last);
    parts.pop();
    if (last.length > newlines) parts.push(last.slice(0, last.length - newlines));
    parts.push('\n'.repeat(newlines) + part);
  } else parts.push(part);
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

/** A `<pre>` whose first child is `<code>`: a fenced block of the code's text, with its language. */
function fencedCode(code: Element): string {
  const language = /language-(\S+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
  return fencedBlock(code.textContent ?? '', language);
}

/**
 * Any other `<pre>` (turndown wrote its text as an escaped paragraph, whose lines Markdown joins): a fenced
 * block too, its lines broken at `<br>` and block elements (pages put `<p>` and `<br>` inside `<pre>`), the
 * newline that opens a `<pre>` dropped as browsers do.
 */
function fencedPre(pre: Element): string {
  const text = preformattedText(pre).replace(/^\n/, '');
  if (text.trim() === '') return '\n\n';
  const code = pre.querySelector('code');
  const classes = `${pre.getAttribute('class') ?? ''} ${code?.getAttribute('class') ?? ''}`;
  return fencedBlock(text, /language-(\S+)/.exec(classes)?.[1] ?? '');
}

/** The text of preformatted content: text as it is, a line break for `<br>` and around blocks. */
function preformattedText(pre: Element): string {
  const parts: string[] = [];
  const newline = (): void => {
    const last = parts[parts.length - 1];
    if (last !== undefined && !last.endsWith('\n')) parts.push('\n');
  };
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      const type = child.nodeType;
      if (type === 3 || type === 4) parts.push(child.nodeValue ?? '');
      else if (type === 1) {
        const name = child.nodeName;
        if (name === 'BR') parts.push('\n');
        else if (UNRENDERED_TAGS.has(name)) continue;
        else if (MARKDOWN_BLOCK_TAGS.has(name)) {
          newline();
          walk(child);
          newline();
        } else walk(child);
      }
    }
  };
  walk(pre);
  return parts.join('');
}

/** A fenced code block: a fence longer than any fence line inside, the text untouched. */
function fencedBlock(text: string, language: string): string {
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

/**
 * A URL as a Markdown link destination: parentheses percent-encoded (`encodeURIComponent` leaves them as they
 * are), since an unbalanced one ends the destination early.
 */
function markdownUrl(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29');
}

/** Images with an http(s) source; others (data: URIs, relative leftovers) are dropped. */
function image(element: Element): string {
  const source = element.getAttribute('src') ?? '';
  if (!/^https?:/i.test(source)) return '';
  const alt = (element.getAttribute('alt') ?? '').replace(/[[\]\n]/g, ' ').trim();
  return `![${alt}](${markdownUrl(source)})`;
}

/** Links to http(s) and mailto: targets; other links keep their text, empty ones are dropped. */
function link(element: Element, content: string): string {
  const href = element.getAttribute('href') ?? '';
  const text = content.trim();
  if (!text) return '';
  if (!/^(?:https?:|mailto:)/i.test(href)) return content;
  return `[${text}](${markdownUrl(href)})`;
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

/**
 * The Markdown of a non-blank element from its children's Markdown, returned, or (for blocks that wrap their
 * content in blank lines) joined to `parts`. `index` is its place among its parent's element children;
 * `hasNext` and `onlyChild` tell whether it has siblings (after whitespace collapsing).
 */
function elementMarkdown(
  parts: string[],
  element: Element,
  name: string,
  isBlock: boolean,
  index: number,
  content: string,
  hasNext: boolean,
  onlyChild: boolean,
): string | null {
  switch (name) {
    case 'P':
      joinWrapped(parts, '\n\n', content, '\n\n');
      return null;
    case 'BR':
      return '  \n';
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      joinWrapped(parts, `\n\n${'#'.repeat(Number(name.charAt(1)))} `, content, '\n\n');
      return null;
    case 'BLOCKQUOTE':
      return `\n\n${trimNewlines(content).replace(/^/gm, '> ')}\n\n`;
    case 'UL':
    case 'OL': {
      const parent = element.parentNode as Element | null;
      const nested = parent?.nodeName === 'LI' && parent.lastElementChild === element;
      joinWrapped(parts, nested ? '\n' : '\n\n', content, nested ? '' : '\n\n');
      return null;
    }
    case 'LI':
      return listItem(element, index, content, hasNext);
    case 'PRE':
      return element.firstChild?.nodeName === 'CODE'
        ? fencedCode(element.firstChild as Element)
        : fencedPre(element);
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
    case 'CODE':
      // The only child of a <pre> is rendered by the <pre>'s fence.
      if (!onlyChild || element.parentNode?.nodeName !== 'PRE') return inlineCode(content);
      break;
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
  if (!isBlock) return content;
  joinWrapped(parts, '\n\n', content, '\n\n');
  return null;
}

/** A node as its parent renders it: text, an element, or (inside `<pre>`) a comment, which renders nothing. */
const TEXT_NODE = 0;
const ELEMENT_NODE = 1;
const OTHER_NODE = 2;

/** Facts about a node's `textContent` (bits of {@link MarkdownWalk}'s `flags`), and two about the element. */
const BLANK_TEXT = 1;
const STARTS_WITH_SPACE = 2;
const ENDS_WITH_SPACE = 4;
const HAS_TEXT = 8;
/** The element or a descendant is never blank ({@link NEVER_BLANK_TAGS}). */
const NEVER_BLANK = 16;
const IS_BLOCK = 32;

/** What becomes of a text's trailing space (turndown drops it before a block, a `<br>` and at the end). */
const SPACE_KEPT = 0;
const SPACE_DROPPED = 1;
const SPACE_DROPPED_AT_END = 2;

/**
 * One walk of the element in document order. Whitespace is collapsed as turndown (and HTML rendering) does:
 * runs of ASCII whitespace become one space; a space after a space, or at the start of a block, is dropped
 * (not after a void element); a space before a block, a `<br>` or the end is dropped. Each element is then
 * rendered from its children, which the walk keeps on a stack of parallel arrays (`kinds[i]`, `contents[i]`,
 * ...: no object per node) with the facts about their text that turndown's rules need: whether it is blank,
 * its leading and trailing whitespace (moved outside `**` and `_`), its first and last characters.
 */
class MarkdownWalk {
  private readonly root: Element;
  private top = 0;
  private readonly kinds: number[] = [];
  private readonly elements: (Element | null)[] = [];
  private readonly names: string[] = [];
  /** A text's collapsed value; an element's Markdown of its children. */
  private readonly contents: string[] = [];
  private readonly flags: number[] = [];
  /** The whitespace the node's text starts with (all of it when blank). */
  private readonly leadings: string[] = [];
  /** The whitespace the node's text ends with (all of it when blank). */
  private readonly trailings: string[] = [];
  /** An element's index among its parent's element children (an `<li>`'s number). */
  private readonly indexes: number[] = [];
  // Whitespace collapsing: whether a text was written since the last block boundary, whether it ended with a
  // space, and whether the next text keeps its leading space (it follows a void element).
  private hasPrevious = false;
  private previousEndsWithSpace = false;
  private keepLeadingSpace = false;

  constructor(root: Element) {
    this.root = root;
  }

  /** The Markdown of the root's children (the root itself has no rule applied, as in turndown). */
  render(): string {
    this.top = 1;
    this.element(this.root, this.root.nodeName, 0, false, false);
    return this.contents[0] as string;
  }

  /**
   * Renders an element into stack slot `slot`, its children in the slots above. Returns whether it has
   * children (an element is left twice by whitespace collapsing only then).
   */
  private element(element: Element, name: string, slot: number, inCode: boolean, inPre: boolean): boolean {
    // Text is code inside a <code> below the root (turndown's rule, which never looks at the root itself).
    const code = inCode || (name === 'CODE' && element !== this.root);
    const pre = inPre || name === 'PRE';
    const first = this.top;
    let index = 0;
    let flags = NEVER_BLANK_TAGS.has(name) ? BLANK_TEXT | NEVER_BLANK : BLANK_TEXT;
    let leading = '';
    let trailing = '';
    let hasChildren = false;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      hasChildren = true;
      const type = child.nodeType;
      const at = this.top;
      if (type === 3 || type === 4) {
        const value = pre ? (child.nodeValue ?? '') : this.collapse(child);
        if (value === null) continue;
        this.text(at, value, TEXT_NODE);
      } else if (type === 1) {
        const childName = child.nodeName;
        this.top++;
        if (!pre) this.boundary(childName);
        if (this.element(child as Element, childName, at, code, pre) && !pre && childName !== 'PRE')
          this.boundary(childName);
        this.indexes[at] = index++;
      } else if (pre) this.text(at, '', OTHER_NODE);
      else continue;
      // The element's text is its children's, in order.
      const childFlags = this.flags[at] as number;
      flags |= childFlags & NEVER_BLANK;
      if (childFlags & HAS_TEXT) {
        if (!(flags & HAS_TEXT)) flags |= HAS_TEXT | (childFlags & STARTS_WITH_SPACE);
        flags = (flags & ~ENDS_WITH_SPACE) | (childFlags & ENDS_WITH_SPACE);
      }
      if (flags & BLANK_TEXT) leading += this.leadings[at] as string;
      if (childFlags & BLANK_TEXT) trailing += this.trailings[at] as string;
      else {
        trailing = this.trailings[at] as string;
        flags &= ~BLANK_TEXT;
      }
    }
    const end = this.top;
    const parts: string[] = [];
    for (let at = first; at < end; at++) this.markdownAt(parts, first, end, at, code);
    this.top = first;
    this.kinds[slot] = ELEMENT_NODE;
    this.elements[slot] = element;
    this.names[slot] = name;
    this.contents[slot] = parts.length === 1 ? (parts[0] as string) : parts.join('');
    this.flags[slot] = MARKDOWN_BLOCK_TAGS.has(name) ? flags | IS_BLOCK : flags;
    this.leadings[slot] = leading;
    this.trailings[slot] = flags & BLANK_TEXT ? leading : trailing;
    return hasChildren;
  }

  /** Pushes a text (or, with `kind` OTHER_NODE, a comment) onto the stack at slot `at`. */
  private text(at: number, value: string, kind: number): void {
    const length = value.length;
    let start = 0;
    while (start < length && isSpace(value.charCodeAt(start))) start++;
    let end = length;
    while (end > start && isSpace(value.charCodeAt(end - 1))) end--;
    let flags = 0;
    if (start === length) flags |= BLANK_TEXT;
    if (length > 0) flags |= HAS_TEXT;
    if (value.charCodeAt(0) === 32) flags |= STARTS_WITH_SPACE;
    if (value.charCodeAt(length - 1) === 32) flags |= ENDS_WITH_SPACE;
    this.kinds[at] = kind;
    this.elements[at] = null;
    this.names[at] = '';
    this.contents[at] = value;
    this.flags[at] = flags;
    this.leadings[at] = start === length ? value : value.slice(0, start);
    this.trailings[at] = start === length ? value : value.slice(end);
    this.indexes[at] = -1;
    this.top = at + 1;
  }

  /** Whitespace collapsing at an element, on the way in and (if it has children) on the way out. */
  private boundary(name: string): void {
    if (MARKDOWN_BLOCK_TAGS.has(name) || name === 'BR') {
      this.hasPrevious = false;
      this.keepLeadingSpace = false;
    } else if (MARKDOWN_VOID_TAGS.has(name) || name === 'PRE') {
      this.hasPrevious = false;
      this.keepLeadingSpace = true;
    } else if (this.hasPrevious) this.keepLeadingSpace = false;
  }

  /** A text node's collapsed value, or null when it vanishes. */
  private collapse(node: Node): string | null {
    const raw = node.nodeValue ?? '';
    let text = NEEDS_COLLAPSE.test(raw) ? raw.replace(/[ \r\n\t]+/g, ' ') : raw;
    const afterSpace = !this.hasPrevious || this.previousEndsWithSpace;
    if (afterSpace && !this.keepLeadingSpace && text.charCodeAt(0) === 32) text = text.slice(1);
    if (text === '') return null;
    this.hasPrevious = true;
    this.previousEndsWithSpace = text.charCodeAt(text.length - 1) === 32;
    if (!this.previousEndsWithSpace) return text;
    const fate = this.trailingSpaceFate(node);
    if (fate === SPACE_KEPT) return text;
    text = text.slice(0, -1);
    return text === '' && fate === SPACE_DROPPED_AT_END ? null : text;
  }

  /**
   * Whether the trailing space of text `node` survives: looks ahead in document order, past inline element
   * boundaries and texts that vanish, for the next text (kept), void element or `<pre>` (kept), block or
   * `<br>` (dropped) or the end of the root (dropped).
   */
  private trailingSpaceFate(node: Node): number {
    let keepLeadingSpace = this.keepLeadingSpace;
    let current: Node = node;
    let next: Node | null = node.nextSibling;
    for (;;) {
      while (!next) {
        // Leaving an element with children.
        const parent = current.parentNode;
        if (!parent || parent === this.root) return SPACE_DROPPED_AT_END;
        const name = parent.nodeName;
        if (MARKDOWN_BLOCK_TAGS.has(name) || name === 'BR') return SPACE_DROPPED;
        keepLeadingSpace = false;
        current = parent;
        next = parent.nextSibling;
      }
      current = next;
      const type = current.nodeType;
      if (type === 3 || type === 4) {
        const raw = current.nodeValue ?? '';
        // A text that is only whitespace vanishes after the space, unless it keeps its leading space.
        if (raw !== '' && (keepLeadingSpace || !ONLY_COLLAPSIBLE_SPACE.test(raw))) return SPACE_KEPT;
        next = current.nextSibling;
      } else if (type === 1) {
        const name = current.nodeName;
        if (MARKDOWN_BLOCK_TAGS.has(name) || name === 'BR') return SPACE_DROPPED;
        if (MARKDOWN_VOID_TAGS.has(name) || name === 'PRE') return SPACE_KEPT;
        keepLeadingSpace = false;
        next = current.firstChild ?? current.nextSibling;
      } else next = current.nextSibling;
    }
  }

  /**
   * The Markdown of the node in slot `at` among its siblings (slots `first` to `end - 1`): a text escaped
   * (outside code), a blank element a paragraph break (block) or nothing, and an inline element with its
   * leading and trailing whitespace outside its markers (`a **b** c`, not `a** b **c`), dropped where the
   * neighbour already has the space.
   */
  private markdownAt(parts: string[], first: number, end: number, at: number, inCode: boolean): void {
    const kind = this.kinds[at];
    const content = this.contents[at] as string;
    if (kind === TEXT_NODE) {
      joinPart(parts, inCode ? content : escapeMarkdown(content));
      return;
    }
    if (kind === OTHER_NODE) {
      // Joining nothing still caps the newlines before it at two, as turndown does.
      joinPart(parts, '');
      return;
    }
    const flags = this.flags[at] as number;
    const isBlock = (flags & IS_BLOCK) !== 0;
    let leading = '';
    let trailing = '';
    if (!isBlock) {
      leading = this.leadings[at] as string;
      const asciiLeading = asciiSpacePrefixLength(leading);
      if (asciiLeading > 0 && this.flankedBySpace(first, end, at, -1)) leading = leading.slice(asciiLeading);
      if (!(flags & BLANK_TEXT)) {
        trailing = this.trailings[at] as string;
        const asciiTrailing = asciiSpaceSuffixLength(trailing);
        if (asciiTrailing > 0 && this.flankedBySpace(first, end, at, 1))
          trailing = trailing.slice(0, trailing.length - asciiTrailing);
      }
    }
    if ((flags & (BLANK_TEXT | NEVER_BLANK)) === BLANK_TEXT) {
      joinPart(parts, leading + (isBlock ? '\n\n' : '') + trailing);
      return;
    }
    const markdown = elementMarkdown(
      parts,
      this.elements[at] as Element,
      this.names[at] as string,
      isBlock,
      this.indexes[at] as number,
      leading || trailing ? content.trim() : content,
      at + 1 < end,
      end - first === 1,
    );
    if (markdown !== null) joinWrapped(parts, leading, markdown, trailing);
  }

  /** Whether the sibling before (`step` -1) or after (1) slot `at` ends (starts) with a space. */
  private flankedBySpace(first: number, end: number, at: number, step: -1 | 1): boolean {
    const index = at + step;
    if (index < first || index >= end || this.kinds[index] === OTHER_NODE) return false;
    const flags = this.flags[index] as number;
    if (flags & IS_BLOCK) return false;
    return (flags & (step < 0 ? ENDS_WITH_SPACE : STARTS_WITH_SPACE)) !== 0;
  }
}

/**
 * Markdown of an element (links and images must already be absolute); the element is left unchanged.
 * Turndown's output (see {@link MarkdownWalk}), then invisible characters, NBSPs, single trailing spaces and
 * runs of blank lines are tidied.
 */
export function elementToMarkdown(root: Element): string {
  const markdown = new MarkdownWalk(root)
    .render()
    .replace(/^[\t\r\n]+/, '')
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
