/** Renders extracted content as plain text (blank-line paragraphs) and as Markdown (turndown + GFM tables). */
import TurndownService from 'turndown';
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

/** GFM tables: the first row (or `<thead>`) is the header; cells are flattened to one line. */
function gfmTables(service: TurndownService): void {
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const span = Math.max(1, Number(node.getAttribute('colspan')) || 1);
      return ` ${cellText(content)} |${' |'.repeat(span - 1)}`;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as Element;
      let table: Node | null = row.parentNode;
      while (table && table.nodeName !== 'TABLE') table = table.parentNode;
      const isFirst = table ? firstRowOf(table as Element) === row : false;
      let line = `|${content}\n`;
      if (isFirst) {
        const divider = `|${' --- |'.repeat(Math.max(1, columnCount(row)))}\n`;
        // A table without a header row gets an empty one, so its first data row stays data.
        line = isHeaderRow(row)
          ? line + divider
          : `|${'  |'.repeat(Math.max(1, columnCount(row)))}\n${divider}${line}`;
      }
      return line;
    },
  });
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  service.addRule('tableCaption', {
    filter: 'caption',
    replacement: (content) => `${content.trim()}\n\n`,
  });
  service.addRule('table', {
    filter: 'table',
    replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n`,
  });
}

let sharedService: TurndownService | undefined;

function markdownService(): TurndownService {
  if (sharedService) return sharedService;
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  service.use(gfmTables);
  const unrendered = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'BUTTON', 'IFRAME', 'SVG', 'FORM']);
  service.remove((node) => unrendered.has(node.nodeName.toUpperCase()));
  // Turndown pads list markers to four columns ("-   item"); write the compact "- item" form.
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const parent = node.parentNode as Element | null;
      let prefix = `${options.bulletListMarker ?? '-'} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        const index = Array.from(parent.children).indexOf(node);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !body.endsWith('\n') ? '\n' : '');
    },
  });
  service.addRule('imageWithSource', {
    filter: 'img',
    replacement: (_content, node) => {
      const source = node.getAttribute('src') ?? '';
      if (!/^https?:/i.test(source)) return '';
      const alt = (node.getAttribute('alt') ?? '').replace(/[[\]\n]/g, ' ').trim();
      return `![${alt}](${source.replace(/[()]/g, (c) => encodeURIComponent(c))})`;
    },
  });
  service.addRule('linkWithHref', {
    filter: (node) => node.nodeName === 'A',
    replacement: (content, node) => {
      const href = node.getAttribute('href') ?? '';
      const text = content.trim();
      if (!text) return '';
      if (!/^(?:https?:|mailto:)/i.test(href)) return content;
      return `[${text}](${href.replace(/[()]/g, (c) => encodeURIComponent(c))})`;
    },
  });
  sharedService = service;
  return service;
}

/**
 * Markdown of an element (links and images must already be absolute). The element is converted in place:
 * turndown collapses its whitespace and marks its nodes, so it is not to be used afterwards. (Turndown
 * would otherwise copy the whole element first: a second DOM of the content, built only to be dropped.)
 */
export function elementToMarkdown(root: Element): string {
  Object.defineProperty(root, 'cloneNode', { value: () => root, configurable: true });
  let markdown: string;
  try {
    markdown = markdownService().turndown(root as unknown as HTMLElement);
  } finally {
    delete (root as { cloneNode?: unknown }).cloneNode;
  }
  return (
    stripInvisibleCharacters(markdown)
      .replace(/\u00A0/g, ' ')
      // A single trailing space is noise; two mean a hard line break and stay.
      .replace(/(\S) $/gm, '$1')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
