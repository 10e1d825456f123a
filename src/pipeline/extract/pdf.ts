/** PDF text extraction with unpdf (a serverless build of PDF.js). */
import type * as Unpdf from 'unpdf';
import type { ExtractedContent } from '../types.ts';
import { normalizeDate } from './metadata.ts';
import { assertPdfStreamsWithin } from './pdf-streams.ts';
import { capText } from './limits.ts';
import { tidyText } from './render.ts';
import { pageTextWithTables } from './pdf-tables.ts';

type PDFDocumentProxy = Awaited<ReturnType<typeof Unpdf.getDocumentProxy>>;

type UnpdfModule = typeof Unpdf;
let unpdfModule: Promise<UnpdfModule> | undefined;

/** Page text → paragraphs: PDF.js gives one line per text row; a blank line separates pages. */
function pageToText(page: string): string {
  return page
    .split(/\n/)
    .map((line) => line.replace(/[^\S\t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{2,}/g, '\n\n');
}

function infoString(info: Record<string, unknown>, key: string): string | undefined {
  const value = info[key];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** PDF `D:20240131120000+01'00'` dates → ISO 8601. */
function pdfDate(value: string | undefined): string | undefined {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Z+-])?(\d{2})?'?(\d{2})?/.exec(
    value ?? '',
  );
  if (!match) return normalizeDate(value);
  const [
    ,
    year,
    month = '01',
    day = '01',
    hour = '00',
    minute = '00',
    second = '00',
    zone,
    zoneHour,
    zoneMinute,
  ] = match;
  const offset = zone && zone !== 'Z' && zoneHour ? `${zone}${zoneHour}:${zoneMinute ?? '00'}` : 'Z';
  return normalizeDate(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
}

/** Bounds of {@link extractPdf}. */
export interface PdfLimits {
  /** Most bytes the PDF's compressed streams may inflate to in all; more is refused (`PdfTooLargeError`). */
  readonly maxDecodedBytes: number;
  /** Pages are read until the text has this many characters; the text is cut there. */
  readonly maxTextChars: number;
}

/** One page's text, and its Markdown (the same, with the page's tables as Markdown tables). */
interface PageText {
  readonly text: string;
  readonly markdown: string;
}

/**
 * The text of each page, in order, until `maxChars` characters were read (PDF.js text items, as unpdf joins
 * them); a page with a table (pdf-tables.ts) is laid out again from its items' positions.
 */
async function pagesText(pdf: PDFDocumentProxy, maxChars: number): Promise<PageText[]> {
  const pages: PageText[] = [];
  let length = 0;
  for (let number = 1; number <= pdf.numPages && length < maxChars; number++) {
    const content = await (await pdf.getPage(number)).getTextContent();
    const items = content.items.filter((item) => 'str' in item);
    const withTables = pageTextWithTables(items);
    const text =
      withTables.tables > 0
        ? withTables.text
        : items.map((item) => item.str + (item.hasEOL ? '\n' : '')).join('');
    pages.push({ text, markdown: withTables.tables > 0 ? withTables.markdown : text });
    length += text.length;
  }
  return pages;
}

/**
 * Extracts the text of a PDF; null when it holds no text (e.g. scanned images). A PDF whose streams inflate
 * past `limits.maxDecodedBytes` is refused before PDF.js reads it; the text stops at `limits.maxTextChars`.
 */
export async function extractPdf(
  bytes: Uint8Array,
  url: string,
  limits: PdfLimits,
): Promise<ExtractedContent | null> {
  await assertPdfStreamsWithin(bytes, limits.maxDecodedBytes);
  unpdfModule ??= import('unpdf');
  const { getDocumentProxy, getMeta } = await unpdfModule;
  // PDF.js may transfer (detach) the buffer it is given; hand it a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const pages = await pagesText(pdf, limits.maxTextChars);
    const text = capText(
      tidyText(pages.map((page) => pageToText(page.text)).join('\n\n')),
      limits.maxTextChars,
    );
    const markdown = capText(
      tidyText(pages.map((page) => pageToText(page.markdown)).join('\n\n')),
      limits.maxTextChars,
    );
    if (text === '') return null;
    const { info } = await getMeta(pdf).catch(() => ({ info: {} }));
    const title = infoString(info, 'Title') ?? text.split('\n')[0]?.slice(0, 200) ?? '';
    const author = infoString(info, 'Author');
    const lang = infoString(info, 'Language');
    const publishedAt = pdfDate(infoString(info, 'CreationDate'));
    return {
      url,
      title,
      text,
      markdown,
      ...(lang ? { lang } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      ...(author ? { byline: author } : {}),
    };
  } finally {
    // Frees PDF.js resources; the bundled typings omit destroy().
    await (pdf as unknown as { destroy?: () => Promise<void> }).destroy?.();
  }
}
