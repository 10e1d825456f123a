/**
 * `extractContent`: dispatches bytes or text by content type to the HTML, PDF or plain-text path; CSV and
 * Word (DOCX) documents are converted first (a CSV file to a Markdown table, a DOCX to HTML).
 */
import type { ExtractedContent } from '../types.ts';
import { parseContentType } from '../fetch/body.ts';
import { decodeBytes } from './decode.ts';
import { extractHtml } from './html.ts';
import { capText, EXTRACTION_LIMIT_DEFAULTS } from './limits.ts';
import { csvToMarkdown, docxToHtml } from './office.ts';
import { extractPdf } from './pdf.ts';
import { tidyText } from './render.ts';

/** Options of {@link extractContent}. */
export interface ExtractContentOptions {
  /** URL of the page: resolves relative links and is returned as `url`. */
  readonly url: string;
  /**
   * Media type, optionally with parameters (`text/html; charset=utf-8`). When absent it is sniffed:
   * `%PDF-` → PDF, markup → HTML, otherwise plain text.
   */
  readonly contentType?: string;
  /** Charset from the HTTP header; wins over the one inside `contentType`. */
  readonly charset?: string;
  /** Remove share/related/caption/link-dense blocks left by Readability. @default true */
  readonly cleanBoilerplate?: boolean;
  /**
   * Most bytes a PDF's compressed streams may inflate to in all; a PDF past it is refused (a PDF bomb).
   * @default EXTRACTION_LIMIT_DEFAULTS.maxPdfDecodedBytes (64 MiB)
   */
  readonly maxPdfDecodedBytes?: number;
  /**
   * Most characters of text (and of Markdown) kept of one page; a PDF's pages are read only up to it.
   * @default EXTRACTION_LIMIT_DEFAULTS.maxTextChars (2,000,000)
   */
  readonly maxTextChars?: number;
}

/** The kinds of input the extractor handles. */
export type ContentKind = 'html' | 'pdf' | 'markdown' | 'text' | 'csv' | 'docx';

/** The media type of Word documents (`.docx`). */
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const HTML_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'application/xml',
  'text/xml',
  'application/html',
]);
const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown', 'text/md']);

function startsWithPdfMagic(input: string | Uint8Array): boolean {
  if (typeof input === 'string') return input.startsWith('%PDF-');
  return (
    input[0] === 0x25 && input[1] === 0x50 && input[2] === 0x44 && input[3] === 0x46 && input[4] === 0x2d
  );
}

/** Markup at the start: a doctype, comment, XML declaration or a common HTML element. */
const HTML_START =
  /^\s*(?:<!doctype html|<!--|<\?xml[^>]*>\s*<(?:!doctype )?html|<(?:html|head|body|meta|title|link|base|style|script|div|p|article|section|main|header|nav|h[1-6]|table|ul|ol|span|a|img|br|form|pre|blockquote)[\s/>])/i;

function looksLikeHtml(input: string | Uint8Array): boolean {
  const head =
    typeof input === 'string'
      ? input.slice(0, 1024)
      : new TextDecoder('latin1').decode(input.subarray(0, 1024));
  return HTML_START.test(head.replace(/^\uFEFF|^ï»¿/, ''));
}

/** Decides how to read the input from its media type, falling back to sniffing the bytes. */
export function contentKind(input: string | Uint8Array, mediaType: string): ContentKind | undefined {
  if (mediaType === 'application/pdf' || mediaType === 'application/x-pdf') return 'pdf';
  if (HTML_TYPES.has(mediaType)) return 'html';
  if (MARKDOWN_TYPES.has(mediaType)) return 'markdown';
  if (mediaType === 'text/plain') return 'text';
  if (mediaType === 'text/csv') return 'csv';
  if (mediaType === DOCX_TYPE) return 'docx';
  if (mediaType === '' || mediaType === 'application/octet-stream') {
    if (startsWithPdfMagic(input)) return 'pdf';
    return looksLikeHtml(input) ? 'html' : 'text';
  }
  return undefined;
}

function fileName(url: string): string {
  const last =
    url
      .replace(/[?#].*$/, '')
      .split('/')
      .at(-1) ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '')
    .replace(/^#+\s*/, '')
    .trim()
    .slice(0, 200);
}

/**
 * Extracts the main content of a page. HTML/XHTML goes through the hidden-text pre-pass and Readability,
 * PDF through unpdf, plain text and Markdown pass through. Bytes are decoded BOM > charset > `<meta>` >
 * UTF-8-if-valid > windows-1252. Returns null for unsupported media types and pages with no text.
 */
export async function extractContent(
  input: string | Uint8Array,
  options: ExtractContentOptions,
): Promise<ExtractedContent | null> {
  if (typeof options?.url !== 'string') throw new TypeError('extractContent: options.url must be a string');
  const parsedType = parseContentType(options.contentType);
  const mediaType = parsedType?.type ?? '';
  const typeCharset = parsedType?.charset;
  const kind = contentKind(input, mediaType);
  if (!kind) return null;
  const maxTextChars = options.maxTextChars ?? EXTRACTION_LIMIT_DEFAULTS.maxTextChars;
  if (kind === 'pdf') {
    if (typeof input === 'string') return null;
    const maxDecodedBytes = options.maxPdfDecodedBytes ?? EXTRACTION_LIMIT_DEFAULTS.maxPdfDecodedBytes;
    return extractPdf(input, options.url, { maxDecodedBytes, maxTextChars });
  }
  if (kind === 'docx') {
    if (typeof input === 'string') return null;
    // The document is all content: no boilerplate to clean.
    return extractContent(await docxToHtml(input), {
      ...options,
      contentType: 'text/html',
      cleanBoilerplate: false,
    });
  }
  const decoded =
    typeof input === 'string'
      ? input
      : decodeBytes(input, { charset: options.charset ?? typeCharset, sniffMeta: kind === 'html' }).text;
  const text = kind === 'csv' ? csvToMarkdown(decoded) : decoded;
  if (kind === 'html') {
    const page = await extractHtml(text, {
      url: options.url,
      ...(options.cleanBoilerplate === undefined ? {} : { cleanBoilerplate: options.cleanBoilerplate }),
    });
    return (
      page && {
        ...page,
        text: capText(page.text, maxTextChars),
        markdown: capText(page.markdown, maxTextChars),
      }
    );
  }
  const body = capText(tidyText(text.replace(/\r\n?/g, '\n')), maxTextChars);
  if (body === '') return null;
  // A table's title is its file's name: its first line is the header row.
  const title = kind === 'csv' ? fileName(options.url) : firstLine(body);
  return { url: options.url, title, text: body, markdown: body };
}
