/**
 * How a document becomes searchable, shared by every {@link DocumentIndex} backend and the in-memory
 * `LocalIndex`: its sections (Markdown split at headings, text kept whole), its title, the tokens each
 * section is indexed under (title + heading + text, through the one tokenizer), its content hash, and the
 * snippet of a hit.
 */
import { createHash } from 'node:crypto';
import { markdownToText, splitMarkdownSections, stripInlineMarkdown } from '../text/markdown.ts';
import { splitSentences } from '../text/sentences.ts';
import { tokenize } from '../text/tokenize.ts';

/** A document to index. */
export interface DocumentInput {
  /** Identity of the document (per owner) and the URL returned in hits. Adding the same URL replaces it. */
  readonly url: string;
  /** Markdown (or plain text when `format` is `text`). */
  readonly content: string;
  /**
   * How `content` is split into sections: `markdown` splits at headings, `text` keeps one section.
   * @default 'markdown'
   */
  readonly format?: 'markdown' | 'text';
  /** Title; defaults to the first level-1 heading, else the first heading, else the URL's last path segment. */
  readonly title?: string;
  /** ISO 8601 date, passed through to hits. */
  readonly publishedAt?: string;
}

/** One section of an analysed document: the text under one heading. */
export interface DocumentSection {
  readonly heading?: string;
  readonly text: string;
}

/** A document as analysed for indexing. */
export interface AnalyzedDocument {
  readonly url: string;
  readonly title: string;
  readonly content: string;
  readonly format: 'markdown' | 'text';
  readonly publishedAt?: string;
  readonly sections: readonly DocumentSection[];
}

function titleFromUrl(url: string): string {
  let last = url.replace(/[?#].*$/, '').replace(/\/+$/, '');
  last = last.slice(last.lastIndexOf('/') + 1);
  try {
    last = decodeURIComponent(last);
  } catch {
    // keep it encoded
  }
  return (
    last
      .replace(/\.[^.]+$/, '')
      .replace(/[-_]+/g, ' ')
      .trim() || url
  );
}

/**
 * Splits a document into sections and settles its title.
 * @throws TypeError when `url` or `content` is not a string, or `format` is unknown.
 */
export function analyzeDocument(input: DocumentInput): AnalyzedDocument {
  if (typeof input?.url !== 'string' || input.url.length === 0)
    throw new TypeError('url must be a non-empty string');
  if (typeof input.content !== 'string') throw new TypeError('content must be a string');
  const format = input.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'text') throw new TypeError("format must be 'markdown' or 'text'");
  const sections: { heading?: string; text: string; level: number }[] =
    format === 'markdown'
      ? splitMarkdownSections(input.content).map((section) => ({
          ...(section.heading === undefined ? {} : { heading: section.heading }),
          level: section.level,
          text: markdownToText(section.markdown),
        }))
      : [{ text: input.content.trim(), level: 0 }];
  const title =
    input.title?.trim() ||
    sections.find((s) => s.level === 1 && s.heading)?.heading ||
    sections.find((s) => s.heading)?.heading ||
    titleFromUrl(input.url);
  return {
    url: input.url,
    title: stripInlineMarkdown(title),
    content: input.content,
    format,
    ...(input.publishedAt === undefined ? {} : { publishedAt: input.publishedAt }),
    sections: sections
      .filter((s) => s.text.length > 0 || s.heading !== undefined)
      .map((s) => (s.heading === undefined ? { text: s.text } : { heading: s.heading, text: s.text })),
  };
}

/** The tokens a section is indexed under: its document's title, its heading and its text. */
export function sectionTokens(title: string, section: DocumentSection, locale?: string): string[] {
  return tokenize(`${title}\n${section.heading ?? ''}\n${section.text}`, { locale });
}

/** SHA-256 of a document's title, format, date and content: tells an update from an unchanged page. */
export function documentHash(document: Omit<AnalyzedDocument, 'sections'>): string {
  return createHash('sha256')
    .update(JSON.stringify([document.title, document.format, document.publishedAt ?? '', document.content]))
    .digest('hex');
}

/**
 * A hit's snippet: the section's text from its sentence sharing most terms with the query, cut at a word
 * boundary to at most `length` characters.
 */
export function sectionSnippet(
  text: string,
  queryTokens: ReadonlySet<string>,
  length: number,
  locale?: string,
): string {
  const sentences = splitSentences(text, locale);
  let start = 0;
  let bestOverlap = 0;
  sentences.forEach((sentence, i) => {
    const overlap = new Set(tokenize(sentence, { locale }).filter((t) => queryTokens.has(t))).size;
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      start = i;
    }
  });
  const excerpt = sentences.slice(start).join(' ');
  if (excerpt.length <= length) return excerpt;
  const cut = excerpt.slice(0, length - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > length / 2 ? cut.slice(0, space) : cut}…`;
}
