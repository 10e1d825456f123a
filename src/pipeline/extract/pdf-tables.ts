/**
 * Tables in PDFs, from where PDF.js places each text item (its x and y on the page). A PDF has no table
 * markup: a table is seen as at least {@link PDF_TABLE_DEFAULTS.minRows} consecutive lines whose text falls
 * into the same 2 or more columns — items separated by a gap wider than `minColumnGap` font sizes, each
 * column starting at the same x (within `alignTolerance` font sizes) on every line. The first such line is
 * the header. Such a run becomes a Markdown table (so that each row is kept with its header, like a table of
 * a Markdown or HTML page), every other line stays text.
 *
 * Cells must be short (at most `maxCellWords` words, `meanCellWords` on average), so that two columns of
 * prose are not taken for a table.
 *
 * Limits: a cell written over two lines, a cell spanning columns, an empty cell and a table without a header
 * line are not recognised; those lines stay lines of text.
 */

/** What {@link pageLines} needs of a PDF.js text item. */
export interface PdfTextItem {
  readonly str: string;
  /** PDF.js's transform: [a, b, c, d, x, y]; `d` is about the font size for upright text. */
  readonly transform: readonly number[];
  readonly width: number;
}

/** Defaults of the PDF table recognition. */
export const PDF_TABLE_DEFAULTS = {
  /** Fewest lines (the header included) that make a table. */
  minRows: 3,
  /** Gap between two items, in font sizes, from which they are two cells. */
  minColumnGap: 1,
  /** How far a cell's start may be from its column's, in font sizes. */
  alignTolerance: 0.5,
  /** Items whose baselines differ by less than this share of the font size are on one line. */
  sameLine: 0.3,
  /**
   * Most words in one cell, and in a cell on average: two columns of prose also start at the same x on
   * every line, but their lines are long.
   */
  maxCellWords: 8,
  meanCellWords: 4,
} as const;

/** One cell of a line: its text and where it starts. */
interface Cell {
  readonly text: string;
  readonly x: number;
}

/** One line of a page: its cells left to right (a line of prose is one cell). */
interface Line {
  readonly cells: readonly Cell[];
  readonly fontSize: number;
}

const fontSizeOf = (item: PdfTextItem): number =>
  Math.abs(item.transform[3] ?? 0) || Math.abs(item.transform[0] ?? 0) || 1;

/** The page's lines, top to bottom, each split into cells at wide gaps. */
function pageLines(items: readonly PdfTextItem[]): Line[] {
  const placed = items
    .filter((item) => item.str.trim().length > 0)
    .map((item) => ({
      text: item.str,
      x: item.transform[4] ?? 0,
      y: item.transform[5] ?? 0,
      end: (item.transform[4] ?? 0) + item.width,
      size: fontSizeOf(item),
    }));
  const rows: (typeof placed)[] = [];
  for (const item of placed) {
    const row = rows.find((r) => Math.abs((r[0]?.y ?? 0) - item.y) < PDF_TABLE_DEFAULTS.sameLine * item.size);
    if (row) row.push(item);
    else rows.push([item]);
  }
  rows.sort((a, b) => (b[0]?.y ?? 0) - (a[0]?.y ?? 0));
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const fontSize = Math.max(...row.map((item) => item.size));
    const cells: { text: string; x: number; end: number }[] = [];
    for (const item of row) {
      const last = cells.at(-1);
      if (last !== undefined && item.x - last.end < PDF_TABLE_DEFAULTS.minColumnGap * fontSize) {
        const joiner = /\s$/.test(last.text) || /^\s/.test(item.text) ? '' : ' ';
        last.text += (item.x - last.end > 0.1 * fontSize ? joiner : '') + item.text;
        last.end = Math.max(last.end, item.end);
      } else cells.push({ text: item.text, x: item.x, end: item.end });
    }
    return {
      cells: cells.map((cell) => ({ text: cell.text.replace(/\s+/g, ' ').trim(), x: cell.x })),
      fontSize,
    };
  });
}

/** Whether `line` has a cell starting at each of `columns` (and no other). */
function alignsWith(line: Line, columns: readonly number[]): boolean {
  const tolerance = PDF_TABLE_DEFAULTS.alignTolerance * line.fontSize;
  return (
    line.cells.length === columns.length &&
    line.cells.every((cell, i) => Math.abs(cell.x - (columns[i] ?? 0)) <= tolerance)
  );
}

const words = (text: string): number => text.split(' ').filter(Boolean).length;

/** Whether the lines' cells are short, as a table's are (not two columns of prose). */
function shortCells(lines: readonly Line[]): boolean {
  const cells = lines.flatMap((line) => line.cells);
  const counts = cells.map((cell) => words(cell.text));
  return (
    counts.every((count) => count <= PDF_TABLE_DEFAULTS.maxCellWords) &&
    counts.reduce((sum, count) => sum + count, 0) <= PDF_TABLE_DEFAULTS.meanCellWords * cells.length
  );
}

/** A cell's text for a Markdown table: pipes escaped. */
const markdownCell = (text: string): string => text.replace(/\|/g, '\\|');

/** The table's lines as a Markdown table, the first line its header. */
function markdownTable(lines: readonly Line[]): string {
  const row = (line: Line) => `| ${line.cells.map((cell) => markdownCell(cell.text)).join(' | ')} |`;
  const [header, ...body] = lines;
  if (header === undefined) return '';
  return [row(header), `|${header.cells.map(() => '---').join('|')}|`, ...body.map(row)].join('\n');
}

/** One page's text in reading order: prose lines as they are, each table as a Markdown table. */
export interface PdfPageText {
  /** Tables as Markdown tables, between blank lines. */
  readonly markdown: string;
  /** Tables as tab-separated lines (the plain text of an HTML table). */
  readonly text: string;
  /** Tables found on the page. */
  readonly tables: number;
}

/** The page's text from its items, with its tables found by column positions. */
export function pageTextWithTables(items: readonly PdfTextItem[]): PdfPageText {
  const lines = pageLines(items);
  const markdown: string[] = [];
  const text: string[] = [];
  let tables = 0;
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const columns = line.cells.map((cell) => cell.x);
    let end = i + 1;
    if (columns.length >= 2) while (end < lines.length && alignsWith(lines[end]!, columns)) end++;
    const table = lines.slice(i, end);
    if (columns.length >= 2 && end - i >= PDF_TABLE_DEFAULTS.minRows && shortCells(table)) {
      markdown.push('', markdownTable(table), '');
      text.push('', ...table.map((row) => row.cells.map((cell) => cell.text).join('\t')), '');
      tables++;
      i = end;
      continue;
    }
    const joined = line.cells.map((cell) => cell.text).join(' ');
    markdown.push(joined);
    text.push(joined);
    i++;
  }
  return { markdown: markdown.join('\n'), text: text.join('\n'), tables };
}
