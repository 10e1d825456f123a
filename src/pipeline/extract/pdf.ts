/** PDF text extraction with unpdf (a serverless build of PDF.js). */
import type * as Unpdf from 'unpdf';
import type { ExtractedContent } from '../types.ts';
import { normalizeDate } from './metadata.ts';
import { tidyText } from './render.ts';

type UnpdfModule = typeof Unpdf;
let unpdfModule: Promise<UnpdfModule> | undefined;

/** Page text → paragraphs: PDF.js gives one line per text row; a blank line separates pages. */
function pageToText(page: string): string {
  return page
    .split(/\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
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

/** Extracts the text of a PDF; null when it holds no text (e.g. scanned images). */
export async function extractPdf(bytes: Uint8Array, url: string): Promise<ExtractedContent | null> {
  unpdfModule ??= import('unpdf');
  const { getDocumentProxy, extractText, getMeta } = await unpdfModule;
  // PDF.js may transfer (detach) the buffer it is given; hand it a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text: pages } = await extractText(pdf, { mergePages: false });
    const text = tidyText(pages.map(pageToText).join('\n\n'));
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
      markdown: text,
      ...(lang ? { lang } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      ...(author ? { byline: author } : {}),
    };
  } finally {
    // Frees PDF.js resources; the bundled typings omit destroy().
    await (pdf as unknown as { destroy?: () => Promise<void> }).destroy?.();
  }
}
