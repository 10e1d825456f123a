/**
 * Page-type detection. The strongest extractors classify a page before extracting it, because a forum
 * thread, a product page or a category listing keeps its content in different places than an article.
 * The rules read only general signals: schema.org types (JSON-LD and microdata), `og:type`, the URL path,
 * and DOM shapes (posts, code blocks, repeated cards, prices). No site is named.
 */
import { descendantElements } from './dom.ts';

/** The kinds of page the extractor tells apart: the seven page types of the WCXB benchmark, in its tables' order. */
export const PAGE_TYPES = [
  'article',
  'documentation',
  'service',
  'forum',
  'collection',
  'listing',
  'product',
] as const;

/** What a page is: each type has its own extraction profile. */
export type PageType = (typeof PAGE_TYPES)[number];

/** Signals read from the page before anything is removed. */
export interface PageSignals {
  /** schema.org types found in JSON-LD and `itemtype` microdata. */
  readonly schemaTypes: ReadonlySet<string>;
  /** `og:type`, lower-cased. */
  readonly ogType?: string;
  /** A publication date found in the markup: articles have one, service and listing pages rarely do. */
  readonly publishedAt?: string;
  /** Items typed `Product`/`ProductGroup` in structured data (see `PageMetadata.productItems`). */
  readonly productItems?: number;
}

const FORUM_TYPES = ['DiscussionForumPosting', 'QAPage', 'SocialMediaPosting'];
const ARTICLE_TYPES = [
  'Article',
  'NewsArticle',
  'BlogPosting',
  'Report',
  'ScholarlyArticle',
  'LiveBlogPosting',
];
const DOC_TYPES = ['TechArticle', 'APIReference'];
const COLLECTION_TYPES = ['CollectionPage', 'ItemList', 'OfferCatalog', 'SearchResultsPage'];

const URL_RULES: readonly (readonly [PageType, RegExp])[] = [
  [
    'forum',
    /\/(?:t|threads?|topics?|forums?|discussions?|questions|community|communities|comments|viewtopic(?:\.php)?|showthread(?:\.php)?|r\/[^/]+\/comments)(?:\/|$|\.|\?)/i,
  ],
  [
    'documentation',
    /(?:^|\/)(?:docs?|documentation|manual|reference|api|apis|sdk|guides?|tutorials?|handbook|learn|developer|developers|man)(?:\/|$)|\/(?:stable|latest|master|main|en-us\/docs)\/|readthedocs|\.html?$(?=.*\/(?:lib|library|api)\/)/i,
  ],
  ['product', /\/(?:products?|p|dp|pdp|item|items|ip|sku|buy|shop\/p)\/[^/]+/i],
  [
    'collection',
    /\/(?:collections?|categor(?:y|ies)|c|shop|store|department|brands?|catalog|browse|s)(?:\/|$)|\/sb0\//i,
  ],
  [
    'listing',
    /\/(?:tags?|topics?|archives?|issues|news|blog|page\/\d+|search|results|schedule|events|jobs|latest)\/?$/i,
  ],
  [
    'service',
    /\/(?:services?|solutions?|features?|pricing|plans|consulting|agency|what-we-do|industries)(?:\/|$)/i,
  ],
];

function has(types: ReadonlySet<string>, wanted: readonly string[]): boolean {
  return wanted.some((type) => types.has(type));
}

/** Whether the page declares itself an article (`og:type=article`, a schema.org `Article` type). */
export function isMarkedArticle(signals: PageSignals): boolean {
  return hasArticleSchema(signals) || signals.ogType === 'article';
}

/**
 * Whether structured data types the page as an article (`Article`, `NewsArticle`, `BlogPosting`...). A
 * stronger mark than `og:type=article`, which some publishing tools put on every page, section fronts too.
 */
export function hasArticleSchema(signals: PageSignals): boolean {
  return has(signals.schemaTypes, ARTICLE_TYPES);
}

/** Headings that are links, at least this many and half of all headings, make a page of cards. */
const MIN_CARDS = 6;

/** Whether a heading is (or holds) a link: the title of a card leading to another page. */
export function isLinkedHeading(heading: Element): boolean {
  return heading.querySelector('a[href]') !== null || heading.closest('a[href]') !== null;
}

/** Whether a page's headings make it a page of cards: enough of them are links, and at least half. */
export function hasCardShape(headings: number, linkedHeadings: number): boolean {
  return linkedHeadings >= MIN_CARDS && linkedHeadings >= 0.5 * headings;
}

/** Paragraphs of at least this many characters are running prose. */
const MIN_PROSE_PARAGRAPH = 80;

/** Characters of running prose that a page discussing costs has (a few paragraphs); a table of cards has none. */
const MIN_ARTICLE_PROSE = 1500;

/** At least this share of a page's prices in prose or tables makes them an article's figures, not cards. */
const MIN_PROSE_PRICE_SHARE = 0.4;

const PRICE = /(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|EUR|USD|GBP|zł|kr)\b)/g;

/**
 * Classifies a page. Structured data wins when it is unambiguous, then the URL path, then the DOM;
 * anything else is an article (the profile that suits most pages).
 */
export function detectPageType(document: Document, url: string, signals: PageSignals): PageType {
  const types = signals.schemaTypes;
  const body = document.body;
  if (!body) return 'article';
  const isArticleMarked = isMarkedArticle(signals);
  if (has(types, FORUM_TYPES)) return 'forum';
  if (has(types, DOC_TYPES)) return 'documentation';
  // og:type=article alone does not make a product page a story: shop plugins set it on every page.
  if ((types.has('Product') || signals.ogType === 'product') && !hasArticleSchema(signals)) {
    // A page that declares exactly one product is that product's page: its other prices are variants and
    // recommendation carousels. Otherwise a category page often lists Products too; one product page has
    // one buy button, not dozens of prices.
    if (signals.productItems === 1) return 'product';
    return countPrices(body) > 12 ? 'collection' : 'product';
  }
  if (has(types, COLLECTION_TYPES) && !isArticleMarked) return 'collection';
  // A collection in structured data with og:type=article but no Article type: a section front or a
  // round-up whose publishing tool marks every page an article; its items are stories, so a listing.
  if (has(types, COLLECTION_TYPES) && !hasArticleSchema(signals)) return 'listing';
  if (signals.ogType === 'product.group') return 'collection';

  let path = '';
  try {
    const parsed = new URL(url);
    path = `${parsed.hostname.startsWith('docs.') || parsed.hostname.startsWith('developer.') ? '/docs' : ''}${parsed.pathname}`;
  } catch {
    path = '';
  }
  const byUrl = URL_RULES.find(([, pattern]) => pattern.test(path))?.[0];
  const shape = measureShape(body);
  // Prices are counted on first need: most pages are decided without them. (Not with a getter on the shape:
  // an object literal whose getter closes over the body kept each page's DOM alive through V8's minor
  // collections; see "Pages kept alive" in docs/benchmarks.md.)
  let prices: number | undefined;
  const pagePrices = (): number => (prices ??= countPrices(body));
  const { codeBlocks, posts } = shape;
  // A topic page of a news site lists stories under a forum-like path: cards leading to other pages, no posts.
  const isCards = hasCardShape(shape.headings, shape.linkedHeadings);
  if (byUrl === 'forum' && (posts >= 2 || (!isArticleMarked && !isCards))) return 'forum';
  if (posts >= 4 && !isArticleMarked) return 'forum';
  if (byUrl === 'documentation' && !signals.ogType?.startsWith('article')) return 'documentation';
  if (codeBlocks >= 3 && !isArticleMarked) return 'documentation';
  if (byUrl === 'product' && !isArticleMarked) return countPrices(body) > 12 ? 'collection' : 'product';
  if (byUrl === 'collection' && !isArticleMarked) return 'collection';
  if (isArticleMarked) return byUrl === 'listing' && path.endsWith('/') ? 'listing' : 'article';
  // Repeated cards: many headings that are links (titles of other pages), or many prices.
  if (isCards) {
    return pagePrices() >= 6 ? 'collection' : 'listing';
  }
  if (pagePrices() >= 10 && !(shape.proseCharacters >= MIN_ARTICLE_PROSE && isPricedProse(body))) {
    return 'collection';
  }
  if (byUrl === 'listing') return 'listing';
  if (byUrl === 'service') return 'service';
  if (signals.publishedAt) return 'article';
  // A landing page: many short sections under their own headings and little running prose.
  const isHome = /^\/?(?:[a-z]{2}(?:-[a-z]{2})?\/?)?$/i.test(path);
  if (
    (shape.headings >= 5 && shape.proseCharacters < 120 * shape.headings) ||
    (isHome && shape.headings >= 3)
  ) {
    return 'service';
  }
  return 'article';
}

/** Counts that tell a forum, documentation, a landing page, a list of cards and an article apart. */
interface PageShape {
  /** `h2`–`h4` headings. */
  readonly headings: number;
  /** Headings that are (or hold) a link: titles of cards leading to other pages. */
  readonly linkedHeadings: number;
  /** Characters in paragraphs of running prose (`<p>` of at least 80 characters). */
  readonly proseCharacters: number;
  /** `<pre>` blocks. */
  readonly codeBlocks: number;
  /** Elements marked as a post or comment (schema.org types, common post classes and ids). */
  readonly posts: number;
}

/**
 * Class words of a post or reply body. "comment-content"/"comment-text" mark the replies of link aggregators;
 * blog comments use them too, but a blog post declares itself an article, which the forum rules respect.
 */
const POST_CLASS =
  /(?:^|[\s_-])(?:post-?body|message-?body|topic-post|post-content|comment-body|comment-?content|comment-?text|reply-body)(?:$|[\s_-])/i;
const POST_TYPE = /schema\.org\/(?:Comment|DiscussionForumPosting|Answer)\b/i;

/** One walk over the body's elements (faster than one selector query per count). */
function measureShape(body: Element): PageShape {
  let headings = 0;
  let linkedHeadings = 0;
  let proseCharacters = 0;
  let codeBlocks = 0;
  let posts = 0;
  for (const element of descendantElements(body)) {
    const tag = element.tagName.toUpperCase();
    if (tag === 'H2' || tag === 'H3' || tag === 'H4') {
      headings++;
      if (isLinkedHeading(element)) linkedHeadings++;
    } else if (tag === 'P') {
      const length = (element.textContent ?? '').trim().length;
      if (length >= MIN_PROSE_PARAGRAPH) proseCharacters += length;
    } else if (tag === 'PRE') {
      codeBlocks++;
    }
    const itemtype = element.getAttribute('itemtype');
    const className = element.getAttribute('class');
    if (
      (itemtype !== null && POST_TYPE.test(itemtype)) ||
      (className !== null && POST_CLASS.test(className)) ||
      element.hasAttribute('data-post-id') ||
      /^post-\d/i.test(element.getAttribute('id') ?? '')
    ) {
      posts++;
    }
  }
  return { headings, linkedHeadings, proseCharacters, codeBlocks, posts };
}

/**
 * Whether a page's prices sit in running prose and tables: an article about costs ("a remodel runs $15,000
 * to $40,000"), a price chart. A collection shows its prices on cards, in short lines of their own.
 */
function isPricedProse(body: Element): boolean {
  // Inside the main landmark when there is one: promotion bars above it repeat their offers in sentences.
  const region = body.querySelector('main, [role="main"]') ?? body;
  let inProse = 0;
  for (const element of Array.from(region.querySelectorAll('p, td'))) {
    const text = element.textContent ?? '';
    if (element.tagName.toUpperCase() === 'P' && text.trim().length < MIN_PROSE_PARAGRAPH) continue;
    inProse += (text.match(PRICE) ?? []).length;
  }
  return inProse > 0 && inProse >= MIN_PROSE_PRICE_SHARE * countPrices(region);
}

/** Prices in an element's text ("$25.00", "19,99 €"). */
export function countPrices(element: Element): number {
  return ((element.textContent ?? '').match(PRICE) ?? []).length;
}
