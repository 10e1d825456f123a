/**
 * Sets of HTML elements that more than one stage of extraction reads, written once. The block elements of
 * the two renderers of extracted content: the elements both treat as blocks, and what each adds. They differ
 * on purpose, so that each renders exactly as before: the Markdown renderer follows turndown's list, and the
 * plain-text renderer keeps table cells inline (tab-separated). The void elements: HTML's, and turndown's
 * (the same with two obsolete ones).
 */

/** Elements both renderers set apart as blocks (upper-case tag names). */
const SHARED_BLOCK_TAGS = [
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CENTER',
  'DD',
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
  'TABLE',
  'TBODY',
  'TFOOT',
  'THEAD',
  'TR',
  'UL',
] as const;

/** turndown's block elements: no flanking whitespace, blank lines around their default rendering. */
export const MARKDOWN_BLOCK_TAGS: ReadonlySet<string> = new Set([
  ...SHARED_BLOCK_TAGS,
  'AUDIO',
  'CANVAS',
  'DIR',
  'FRAMESET',
  'HGROUP',
  'HTML',
  'ISINDEX',
  'MENU',
  'NOFRAMES',
  'NOSCRIPT',
  'OUTPUT',
  'TD',
  'TH',
]);

/** The plain-text renderer's blocks: paragraphs separated by blank lines (table cells are not among them). */
export const TEXT_BLOCK_TAGS: ReadonlySet<string> = new Set([
  ...SHARED_BLOCK_TAGS,
  'CAPTION',
  'DETAILS',
  'SUMMARY',
]);

/** Table cells: tab-separated in text, `|`-separated in Markdown. */
export const CELL_TAGS: ReadonlySet<string> = new Set(['TD', 'TH']);

/** HTML's void elements (lower-case names): no end tag, no content. */
const HTML_VOID_NAMES = [
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
] as const;

/** HTML's void elements by lower-case name, as the markup scanner reads tags before the parse. */
export const HTML_VOID_TAGS: ReadonlySet<string> = new Set(HTML_VOID_NAMES);

/**
 * turndown's void elements (upper-case): HTML's and the obsolete `command` and `keygen`. In Markdown they break
 * whitespace collapsing like text does, and an element holding one is not blank.
 */
export const MARKDOWN_VOID_TAGS: ReadonlySet<string> = new Set([
  ...HTML_VOID_NAMES.map((name) => name.toUpperCase()),
  'COMMAND',
  'KEYGEN',
]);
