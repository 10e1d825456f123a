/** Renders extracted content as plain text: blank-line paragraphs, one line per list item and table row. */
import { CELL_TAGS, TEXT_BLOCK_TAGS } from './tag-sets.ts';
import { stripInvisibleCharacters } from './hidden.ts';

/** Blocks whose children are lines rather than paragraphs. */
const LINE_TAGS = new Set(['LI', 'DT', 'DD', 'TR', 'CAPTION']);

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
    const isBlock = TEXT_BLOCK_TAGS.has(tag);
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
