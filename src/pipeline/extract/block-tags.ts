/**
 * The block elements of the two renderers of extracted content, written once: the elements both treat as
 * blocks, and what each adds. They differ on purpose, so that each renders exactly as before: the Markdown
 * renderer follows turndown's list, and the plain-text renderer keeps table cells inline (tab-separated).
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
