/**
 * Office formats as Markdown: a CSV file becomes one Markdown table (its first line the header, each line a
 * row), a Word document (DOCX) becomes HTML through mammoth, with its tables as tables, for the HTML path.
 */
import mammoth from 'mammoth';

/** The fields of CSV text (RFC 4180: `"` quotes a field, `""` is a quote inside one; `,` or `;` separates). */
export function parseCsv(text: string): string[][] {
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const firstLine = body.slice(0, body.indexOf('\n') === -1 ? body.length : body.indexOf('\n'));
  // Spreadsheets in many locales write ";" between fields: the header line tells which one is used.
  const separator = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (quoted) {
      if (char === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field.length === 0) quoted = true;
    else if (char === separator) {
      row.push(field);
      field = '';
    } else if (char === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field.length > 0 || row.length > 0) rows.push([...row, field]);
  return rows.filter((cells) => cells.some((cell) => cell.trim().length > 0));
}

/** A cell's text for a Markdown table: one line, pipes escaped. */
function markdownCell(cell: string): string {
  return cell.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

/**
 * CSV text as a Markdown table: the first row is the header, every other row a table row (so each row is
 * indexed and quoted with its header: "Week: 49; Primary: Ada Nowak"). Empty string when there are no rows.
 */
export function csvToMarkdown(text: string): string {
  const rows = parseCsv(text);
  const width = Math.max(0, ...rows.map((cells) => cells.length));
  if (width === 0) return '';
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => markdownCell(cells[i] ?? '')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

/** A Word document (DOCX bytes) as an HTML page: headings, paragraphs, lists and tables. */
export async function docxToHtml(bytes: Uint8Array): Promise<string> {
  const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
  return `<!doctype html><html><body><main>${value}</main></body></html>`;
}
