/** HTML main-content extraction: hidden-text pre-pass → Readability → fallback → boilerplate clean-up. */
import { Readability } from '@mozilla/readability';
import type { ExtractedContent } from '../types.ts';
import { parseDocument, type DomImplementation } from './dom.ts';
import { removeHiddenContent } from './hidden.ts';
import { documentBaseUrl, readMetadata, type PageMetadata } from './metadata.ts';
import { elementToMarkdown, elementToText, tidyText } from './render.ts';
import { removeBoilerplate, type BoilerplateRule } from './boilerplate.ts';
import { fallbackContent } from './fallback.ts';

/** Options of {@link extractHtml}. */
export interface HtmlExtractOptions {
  readonly url: string;
  /** @default 'linkedom' */
  readonly dom?: DomImplementation;
  /** Remove share/related/caption/link-dense blocks from Readability's output. @default true */
  readonly cleanBoilerplate?: boolean;
  /** Which clean-up rules run (for measurement). @default all of BOILERPLATE_RULES */
  readonly boilerplateRules?: readonly BoilerplateRule[];
}

/** Fewer characters than this from Readability counts as "found nothing" and triggers the fallback. */
const MIN_ARTICLE_CHARACTERS = 140;

function setDocumentUrls(document: Document, baseUrl: string, pageUrl: string): void {
  // linkedom has no real baseURI/documentURI; Readability resolves links against them.
  if (document.documentURI !== pageUrl) {
    try {
      Object.defineProperty(document, 'documentURI', { value: pageUrl, configurable: true });
      Object.defineProperty(document, 'baseURI', { value: baseUrl, configurable: true });
    } catch {
      // jsdom's are correct already.
    }
  }
}

function absolutizeLinks(root: Element, baseUrl: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of Array.from(root.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute) ?? '';
      try {
        element.setAttribute(attribute, new URL(value.trim(), baseUrl).href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}

/** Joins adjacent links to the same URL, which pages split for styling (`[Arte](u)[mis](u)` in Markdown). */
function mergeAdjacentLinks(root: Element): void {
  for (const link of Array.from(root.querySelectorAll('a[href]'))) {
    const next = link.nextSibling;
    if (!root.contains(link) || next?.nodeType !== 1) continue;
    const nextLink = next as Element;
    if (nextLink.tagName.toUpperCase() !== 'A' || nextLink.getAttribute('href') !== link.getAttribute('href'))
      continue;
    while (link.lastChild) nextLink.insertBefore(link.lastChild, nextLink.firstChild);
    link.remove();
  }
}

/** Extracts the main content of an HTML document. Returns null when the page has no readable text. */
export async function extractHtml(
  html: string,
  options: HtmlExtractOptions,
): Promise<ExtractedContent | null> {
  const parsed = await parseDocument(html, options.url, options.dom ?? 'linkedom');
  const disposers = [() => parsed.dispose()];
  try {
    const { document } = parsed;
    if (!document.documentElement || !document.body) return null;
    const metadata = readMetadata(document, options.url);
    const baseUrl = documentBaseUrl(document, options.url);
    setDocumentUrls(document, baseUrl, options.url);
    removeHiddenContent(document);
    let article: ReturnType<Readability<Element>['parse']> = null;
    try {
      article = new Readability<Element>(document, {
        serializer: (node) => node as Element,
        keepClasses: true,
      }).parse();
    } catch {
      article = null;
    }
    let root: Element | null = article?.content ?? null;
    if (!root || (root.textContent ?? '').trim().length < MIN_ARTICLE_CHARACTERS) {
      // Readability consumed the document; the rare fallback re-parses rather than every page cloning it.
      const fresh = await parseDocument(html, options.url, options.dom ?? 'linkedom');
      disposers.push(() => fresh.dispose());
      removeHiddenContent(fresh.document);
      const body = fresh.document.body;
      const fallback = body ? fallbackContent(body) : null;
      if (fallback) root = fallback;
    }
    if (!root) return null;
    absolutizeLinks(root, baseUrl);
    mergeAdjacentLinks(root);
    if (options.cleanBoilerplate ?? true) {
      const title = article?.title ?? undefined;
      removeBoilerplate(
        root,
        { ...metadata, ...(title ? { readabilityTitle: title } : {}) },
        options.boilerplateRules,
      );
    }
    const text = elementToText(root);
    if (text === '') return null;
    return buildResult(options.url, metadata, article, text, elementToMarkdown(root));
  } finally {
    for (const dispose of disposers) dispose();
  }
}

function buildResult(
  url: string,
  metadata: PageMetadata,
  article: {
    title?: string | null;
    byline?: string | null;
    siteName?: string | null;
    lang?: string | null;
    publishedTime?: string | null;
  } | null,
  text: string,
  markdown: string,
): ExtractedContent {
  const title = tidyText(article?.title || metadata.title || '');
  const byline = tidyText(article?.byline || metadata.byline || '');
  const siteName = tidyText(metadata.siteName || article?.siteName || '');
  const lang = metadata.lang || article?.lang || undefined;
  return {
    url,
    title,
    text,
    markdown,
    ...(lang ? { lang } : {}),
    ...(metadata.publishedAt ? { publishedAt: metadata.publishedAt } : {}),
    ...(metadata.canonicalUrl ? { canonicalUrl: metadata.canonicalUrl } : {}),
    ...(byline ? { byline } : {}),
    ...(siteName ? { siteName } : {}),
  };
}
