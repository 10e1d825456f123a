/**
 * HTML main-content extraction: cut inert markup → parse once → metadata → prune what is never content →
 * detect the page type → extract with that type's profile (Readability for articles, the main area for the
 * other types) → boilerplate clean-up → text and Markdown.
 */
import type { ExtractedContent } from '../types.ts';
import { parseDocument, type DocumentParser } from './dom.ts';
import { removeHiddenContent, removeHiddenElements, removeNeverRendered } from './hidden.ts';
import {
  mainAreaContent,
  mainAreaMeasure,
  removeChrome,
  type Chrome,
  type MainAreaMeasure,
} from './main-area.ts';
import {
  detectPageType,
  hasArticleSchema,
  hasCardShape,
  isLinkedHeading,
  isMarkedArticle,
  type PageType,
} from './page-type.ts';
import { readMetadata, type PageMetadata } from './metadata.ts';
import { elementToMarkdown } from './markdown.ts';
import { elementToText, tidyText } from './render.ts';
import { removeBoilerplate, removeCallsToAction, type BoilerplateRule } from './boilerplate.ts';
import { collapsedTextLength, indexText, normalizedText, SharedTextIndex } from './text-index.ts';
import { ARTICLE_CHAR_THRESHOLD, runReadability } from './readability.ts';
import { withoutInertMarkup } from './inert-markup.ts';
import { headlineTitle, titleWithoutSiteName } from './title.ts';
import { authorFromProfileLink, authorName } from './byline.ts';

/** Milliseconds spent per stage, summed across calls (filled in when passed; used by the benchmark). */
export type StageTimes = Record<string, number>;

/** Options of {@link extractHtml}. */
export interface HtmlExtractOptions {
  readonly url: string;
  /**
   * Parses the page: our small DOM. Tests and the parity bench pass a reference DOM's parser (linkedom or
   * jsdom, dev dependencies: bench/lib/reference-doms.ts) to compare the results.
   * @default parseDocument (dom.ts)
   */
  readonly parser?: DocumentParser;
  /** Remove share/related/caption/link-dense blocks from Readability's output. @default true */
  readonly cleanBoilerplate?: boolean;
  /** Which clean-up rules run (for measurement). @default all of BOILERPLATE_RULES */
  readonly boilerplateRules?: readonly BoilerplateRule[];
  /** Skip detection and extract the page with this type's profile. @default detected */
  readonly pageType?: PageType;
  /** Adds the time of each stage to this record (profiling). */
  readonly stageTimes?: StageTimes;
}

/**
 * Fewer characters than this from Readability counts as "found nothing" and triggers the fallback: a
 * sentence or two, the introduction above a list that Readability does not score.
 */
const MIN_ARTICLE_CHARACTERS = ARTICLE_CHAR_THRESHOLD;

/**
 * Readability's article holding less than this share of the main area's text is a wrong pick: one block of a
 * page of many (a promo, a caption, one item of a list).
 */
const MIN_ARTICLE_SHARE = 0.1;
/** The share check applies only to pages with at least this much main-area text. */
const MIN_MAIN_AREA_FOR_CHECK = 1500;
/**
 * On a page that does not declare itself an article and has sections under headings, Readability's pick
 * holding less than this share of the main area's text is one section of a landing page or one card of a
 * list: the page is read as a service page (every section kept). An article's body is most of its main area;
 * a landing page's hero or longest section can be half of it.
 */
const MIN_UNDECLARED_SHARE = 0.6;

/**
 * On a page that declares itself an article, Readability keeping under {@link MIN_UNDECLARED_SHARE} of the
 * main area is a story cut short when the rest of the main area is prose: under this share of it in links.
 * The article goes on in blocks Readability scored apart (a recipe's ingredients and steps, a guide's later
 * sections). On a news page the rest is related-story links and teasers, far more link-heavy.
 */
const MAX_REST_LINK_DENSITY = 0.2;

/** Share of the main area's text outside Readability's pick that sits in links. */
function restLinkDensity(mainArea: MainAreaMeasure, pick: Element | null, pickLength: number): number {
  const pickLinkLength = pick ? indexText(pick).linkLength(pick) : 0;
  return Math.max(0, mainArea.linkLength - pickLinkLength) / Math.max(1, mainArea.length - pickLength);
}

/**
 * Cards leading to other pages: most headings are links (a section front that calls itself an article by
 * og:type only). A page typed Article in structured data is one, with its related-story cards.
 */
function isCardList(headings: readonly Element[], metadata: PageMetadata): boolean {
  return (
    !hasArticleSchema(metadata) && hasCardShape(headings.length, headings.filter(isLinkedHeading).length)
  );
}

/** Landmarks that never hold an article, removed before Readability so that it scores fewer nodes. */
const NEVER_ARTICLE: Chrome = {
  tags: new Set(['nav', 'select', 'button', 'textarea']),
  roles: new Set(['navigation', 'search', 'menubar']),
};

function setDocumentUrls(document: Document, baseUrl: string, pageUrl: string): void {
  // Our small DOM (and linkedom) keep no page address; Readability resolves links against these.
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

function stageClock(times: StageTimes | undefined): (stage: string) => void {
  if (!times) return () => undefined;
  let last = performance.now();
  return (stage) => {
    const now = performance.now();
    times[stage] = (times[stage] ?? 0) + now - last;
    last = now;
  };
}

/** Extracts the main content of an HTML document. Returns null when the page has no readable text. */
export async function extractHtml(
  html: string,
  options: HtmlExtractOptions,
): Promise<ExtractedContent | null> {
  const lap = stageClock(options.stageTimes);
  const parse = options.parser ?? parseDocument;
  html = withoutInertMarkup(html);
  lap('prune markup');
  const parsed = await parse(html, options.url);
  const disposers = [() => parsed.dispose()];
  lap('parse');
  try {
    const { document } = parsed;
    if (!document.documentElement || !document.body) return null;
    const {
      metadata,
      baseUrl,
      headlines: headlineElements,
      authorLinks,
    } = readMetadata(document, options.url);
    setDocumentUrls(document, baseUrl, options.url);
    lap('metadata');
    removeNeverRendered(document);
    const pageType = options.pageType ?? detectPageType(document, options.url, metadata);
    lap('classify');
    // Product pages keep details and specifications in tabs, documentation the same example in other languages;
    // service pages fold offers, FAQs and testimonials, product pages their description and dimensions, and
    // collections and listings their descriptions and FAQs.
    removeHiddenElements(document, {
      keepTabPanels: pageType === 'product' || pageType === 'documentation',
      keepFoldedPanels: pageType === 'service' || pageType === 'product',
      keepAccordionPanels: pageType === 'collection' || pageType === 'listing',
      keepAriaHidden: pageType === 'collection' || pageType === 'listing',
    });
    // The visible ones, read before extraction changes them (Readability turns an article's <h1> into <h2>).
    const headlines = headlineElements.filter((element) => element.isConnected).map(normalizedText);
    // Only an article is credited to a linked author (its profile stays one), so other pages skip the read.
    const linkedAuthor =
      pageType === 'article'
        ? authorFromProfileLink(
            authorLinks.filter((element) => element.isConnected),
            options.url,
          )
        : undefined;
    lap('prune');
    let article: ReturnType<typeof runReadability> = null;
    let root: Element | null;
    let profile: PageType = pageType;
    if (pageType === 'article') {
      removeChrome(document, NEVER_ARTICLE);
      // How much text the page's main area has, to check Readability's choice against (measured only:
      // pruning chrome before Readability changes which container it picks, for the worse on news pages).
      const mainArea = mainAreaMeasure(document);
      const mainLength = mainArea.length;
      const headings = Array.from(document.body.querySelectorAll('h2, h3, h4'));
      const sectioned = !isMarkedArticle(metadata) && headings.length >= 2;
      const cardList = isCardList(headings, metadata);
      lap('prune');
      article = runReadability(document, parsed.snapshot);
      root = article?.content ?? null;
      lap('readability');
      const articleLength = root ? collapsedTextLength(root) : 0;
      const isCutShort =
        mainLength >= MIN_MAIN_AREA_FOR_CHECK && articleLength < MIN_UNDECLARED_SHARE * mainLength;
      const isLandingPage = sectioned && isCutShort;
      const isWrongPick =
        mainLength >= MIN_MAIN_AREA_FOR_CHECK && articleLength < MIN_ARTICLE_SHARE * mainLength;
      // Readability cut a page of cards down to one card: the page is a listing, whatever its og:type. On a
      // page that does not declare itself an article, a pick of a tenth of the main area is one item of a
      // list of items (programs, courses, products) too. Readability finding no article at all means the
      // page is made of lists and tables, not paragraphs (an index, a list of links): read as a listing, its
      // link lists are the content. A page with little text at all is a short article, not a list.
      const foundNothing = articleLength < MIN_ARTICLE_CHARACTERS;
      const isListing =
        !isLandingPage &&
        ((foundNothing && mainLength >= MIN_MAIN_AREA_FOR_CHECK) ||
          (cardList && isCutShort) ||
          (isWrongPick && !isMarkedArticle(metadata)));
      // A declared article that goes on outside Readability's pick, in prose: its whole main area is read.
      const isArticleCutShort =
        isMarkedArticle(metadata) &&
        isCutShort &&
        restLinkDensity(mainArea, root, articleLength) < MAX_REST_LINK_DENSITY;
      if (foundNothing || isWrongPick || isLandingPage || isListing || isArticleCutShort) {
        // Readability kept nothing or a small wrong block (a promo, a caption, one section of a landing page).
        // It consumed the document, so this rare path parses again rather than every page paying for a copy.
        const fresh = await parse(html, options.url);
        disposers.push(() => fresh.dispose());
        removeHiddenContent(fresh.document, { keepFoldedPanels: isLandingPage });
        const fallbackType = isLandingPage ? 'service' : isListing ? 'listing' : pageType;
        const fallback = mainAreaContent(fresh.document, fallbackType);
        if (fallback) {
          root = fallback;
          article = null;
          profile = fallbackType;
        }
        lap('fallback');
      }
    } else {
      root = mainAreaContent(document, pageType);
      lap('main area');
    }
    if (!root) return null;
    absolutizeLinks(root, baseUrl);
    mergeAdjacentLinks(root);
    if (options.cleanBoilerplate ?? true) {
      const title = article?.title ?? undefined;
      const shared = new SharedTextIndex(root);
      removeBoilerplate(
        shared,
        { ...metadata, ...(title ? { readabilityTitle: title } : {}) },
        profile === 'article' ? options.boilerplateRules : ['labels'],
      );
      if (profile !== 'article') removeCallsToAction(shared);
    }
    lap('boilerplate');
    const text = elementToText(root);
    lap('text');
    if (text === '') return null;
    const markdown = elementToMarkdown(root);
    lap('markdown');
    return buildResult(options.url, metadata, article, { headlines, linkedAuthor }, text, markdown, profile);
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
  shown: { readonly headlines: readonly string[]; readonly linkedAuthor: string | undefined },
  text: string,
  markdown: string,
  pageType: PageType,
): ExtractedContent {
  const siteName = tidyText(metadata.siteName || article?.siteName || '');
  const documentTitle = titleWithoutSiteName(tidyText(article?.title || metadata.title || ''), siteName, url);
  const title = headlineTitle(shown.headlines, documentTitle, siteName, url) ?? documentTitle;
  // Readability's byline can be a label or a date it took for one: the declared author is tried next.
  // An article without either names its author by a link to their page.
  const byline =
    authorName(tidyText(article?.byline ?? '')) ??
    authorName(tidyText(metadata.byline ?? '')) ??
    (pageType === 'article' ? shown.linkedAuthor : undefined) ??
    '';
  const lang = metadata.lang || article?.lang || undefined;
  return {
    url,
    title,
    text,
    markdown,
    pageType,
    ...(lang ? { lang } : {}),
    ...(metadata.publishedAt ? { publishedAt: metadata.publishedAt } : {}),
    ...(metadata.canonicalUrl ? { canonicalUrl: metadata.canonicalUrl } : {}),
    ...(byline ? { byline } : {}),
    ...(siteName ? { siteName } : {}),
  };
}
