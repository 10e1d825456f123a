/**
 * Main-area extraction for pages that are not one article: forum threads, product pages, listings,
 * collections, service and documentation pages. Readability keeps the single best-scoring block, which on
 * these pages is one post, one card or one section; here the page's main region is kept whole and only
 * chrome is taken out (navigation, banners, footers, sidebars, tables of contents, filter panels, cookie
 * and newsletter boxes). Losing content costs more than keeping a little chrome, so every removal is
 * bounded: a block holding a large share of the page's text is never removed on a class-name hint alone.
 */
import { countPrices, type PageType } from './page-type.ts';
import {
  collapsedTextLength,
  indexText,
  normalizedText,
  SharedTextIndex,
  type TextIndex,
} from './text-index.ts';
import { leafBlocks, removeStandaloneLines } from './boilerplate.ts';
import { descendantElements } from './dom.ts';

/** Landmarks that are never the content of the page they sit in. */
const CHROME: Chrome = {
  tags: new Set(['nav', 'menu', 'select', 'button', 'input', 'textarea', 'option']),
  roles: new Set([
    'navigation',
    'banner',
    'contentinfo',
    'search',
    'menu',
    'menubar',
    'dialog',
    'alertdialog',
    'tablist',
  ]),
};

/**
 * Whether an element marks the content itself (`<main>`, `<article>`, `<h1>`, `role="main"`,
 * `itemprop="articleBody"`); a block holding one is never removed on a hint. On a product page `<article>`
 * does not count: shops use it for each card of a row of other products, each review, each feature tile.
 */
function isContentMarker(element: Element, pageType: PageType): boolean {
  const tag = element.localName;
  return (
    tag === 'main' ||
    (tag === 'article' && pageType !== 'product') ||
    tag === 'h1' ||
    element.getAttribute('role') === 'main' ||
    element.getAttribute('itemprop') === 'articleBody'
  );
}

/**
 * The ancestors of the elements among `elements` that match `isMarked`: the elements holding a marked one
 * below them. Exact while the rules visit in document order and never remove a holder (an element is
 * visited before anything inside it is removed).
 */
function holdersOf(elements: readonly Element[], isMarked: (element: Element) => boolean): Set<Element> {
  const holders = new Set<Element>();
  for (const element of elements) {
    if (!isMarked(element)) continue;
    for (let up = element.parentElement; up && !holders.has(up); up = up.parentElement) holders.add(up);
  }
  return holders;
}

/** Whether a block holds a content marker below it (one block, as opposed to {@link holdersOf} a walk). */
function holdsContentMarker(block: Element, pageType: PageType): boolean {
  return descendantElements(block).some((element) => isContentMarker(element, pageType));
}

/**
 * Class or id words that name chrome on their own (removed when the block is not a big share of the page):
 * among them the shop-wide announcement bars above every page ("Free shipping on orders over $40").
 */
const STRONG_HINT =
  /(?:^|[\s_-])(?:cookies?|consent|gdpr|newsletter|announcement-?bar|promo-?bar|breadcrumbs?|skip-?link|skip-?to|modal|popup|overlay|advert|advertisement|ads|adslot|ad-slot|banner-ad|sr-only|visually-hidden|screen-reader-text|site-header|site-footer|global-header|global-footer|masthead|toc|table-of-contents|on-this-page|sidebar|side-bar|sidenav|side-nav|social|share|sharing|share-buttons|subscribe|signup|sign-up|login|signin)(?:$|[\s_-])/i;

/** Class or id words that name chrome only when the block is mostly links. */
const WEAK_HINT =
  /(?:^|[\s_-])(?:menu|nav|navbar|navigation|related|recommended|popular|trending|more-stories|tags|tag-list|pagination|pager|footer|header|widget|links|topbar|utility)(?:$|[\s_-])/i;

/**
 * Badges stuck on a collection's cards (`badge`, `flag`, `sticker`, `ribbon`, `pill`: "New", "Sale",
 * "Best seller", "Top rated"): the shop's promotion of the card, not the product's name or details.
 */
const BADGE_HINT = /(?:^|[\s_-])(?:badges?|flags?|stickers?|ribbons?|pills?)(?:$|[\s_-])/i;

/** A badge is a word or two; a longer block named so holds the card itself. */
const MAX_BADGE_CHARACTERS = 30;

/** Filter panels and facets of listings and collections, and review filters of product pages. */
const FILTER_HINT =
  /(?:^|[\s_-])(?:filters?|facets?|facet-list|refine|refinements?|sort-by|sorting|sortby|plp-filters|search-filters)(?:$|[\s_-])/i;

/**
 * Around forum posts: signatures and the rank titles beside them ("Senior Member", "Moderator"), the
 * poster's card of statistics ("user-extras", "user-details", "author-stats", phpBB's "postprofile") and
 * hardware specs, the board's notices above the thread ("notice": announcements, rules, cookie notes), and
 * the preview cards of linked pages ("onebox", "unfurl": the other page's text, not the post's).
 * The author's standing decoration and the board's messages, repeated on every thread, not the thread.
 */
const FORUM_CHROME_HINT =
  /(?:^|[\s_-])(?:signatures?|signaturecontainer|post-?signature|user-?title|user-?banner|user-?rank|member-?title|user-?extras|user-?details|author-?stats|postprofile|system-?specs|notices?|onebox|unfurl)(?:$|[\s_-])/i;

/** A block named as forum chrome holding more than this share of the thread's text is a wrapper, kept. */
const MAX_FORUM_CHROME_SHARE = 0.8;

/**
 * Sliding carousels (`aria-roledescription="carousel"`, carousel/slider/swiper classes). On a product page
 * one that shows prices is a row of other products ("Similar items", "Customers also bought"), whatever
 * its heading says; the product's own photo carousel has no prices.
 */
const CAROUSEL_HINT = /carousel|slider|swiper|slick/i;

function isPricedCarousel(element: Element, hint: string): boolean {
  if (!CAROUSEL_HINT.test(hint) && !/carousel/i.test(element.getAttribute('aria-roledescription') ?? ''))
    return false;
  // Two or more prices make a row of product cards.
  return countPrices(element) >= 2;
}

/**
 * Customer reviews of a product page (`reviews`, `customer-reviews`, `productReviews`; not `preview`): other
 * people's opinions of the product and their rating widgets, which the product's own text does not include.
 * On a category page, each card's review count and the shop's reviews under the cards. Not a modifier saying
 * that a block has reviews (`title--with-reviews`): that block is the card's title.
 */
const REVIEW_HINT = /(?:^|[^a-zA-Z]|[a-z](?=R))(?<!(?:with|has|no)[-_])[Rr]eviews?(?![a-z])/;

/**
 * Testimonials: quotes the seller chose and shows as its own copy (a course's or a service's "What our
 * customers say"), kept even when their cards are named reviews too.
 */
const TESTIMONIALS = '[class*="testimonial" i], [id*="testimonial" i]';

/** Whether a product page's block is its customer reviews, not testimonials the seller shows. */
function isReviewBlock(element: Element, hint: string): boolean {
  return REVIEW_HINT.test(hint) && element.closest(TESTIMONIALS) === null;
}

/**
 * The small print of a product page (`disclaimer`, `legal`, `footnotes`): the terms behind its offers and
 * claims, written for the lawyers, not a description of the product.
 */
const SMALL_PRINT_HINT = /(?:^|[^a-z])(?:disclaimers?|legal|footnotes?)(?![a-z])/i;

/**
 * The shop's promises shown beside every product (`trust`, `trust-badges`, `badges`, `usps`: free shipping,
 * easy returns, money-back guarantee): the same on each of its product pages, not this product.
 */
const SHOP_PROMISE_HINT = /(?:^|[\s_-])(?:trust|trust-?badges?|badges|usps?|product-?usps?)(?:$|[\s_-])/i;

/** Tables of contents and doc sidebars. */
const DOC_CHROME_HINT =
  /(?:^|[\s_-])(?:toc|toctree|table-of-contents|on-this-page|page-nav|doc-nav|docs-nav|sidebar|sphinxsidebar|edit-this-page|edit-page|prev-next|pagination-nav|feedback|was-this-helpful|theme-doc-toc|breadcrumbs?)(?:$|[\s_-])/i;

/** Utility classes that hide an element on every screen (Bootstrap `d-none`, Tailwind `hidden`...). */
const HIDING_CLASS = /^(?:d-none|hidden|is-hidden|invisible)$/;
/** A class that shows the element again from some screen width (`d-md-block`, `lg:flex`). */
const RESPONSIVE_DISPLAY = /^(?:d-(?:sm|md|lg|xl|xxl)-(?!none)|(?:sm|md|lg|xl|2xl):(?!hidden))/;

/**
 * Longer blocks hidden by a class are kept: tabs and accordions a script opens are hidden the same way, and
 * readers open them. The short ones are tooltips, machine timestamps and labels for other screen states.
 */
const MAX_HIDDEN_BY_CLASS = 100;

/** Whether a hiding utility class hides the element on every screen width. */
function isHiddenByClass(element: Element): boolean {
  const classes = (element.getAttribute('class') ?? '').split(/\s+/);
  return (
    classes.some((name) => HIDING_CLASS.test(name)) && !classes.some((name) => RESPONSIVE_DISPLAY.test(name))
  );
}

/** Share of an element's text that sits inside links. */
function linkDensity(element: Element, text: TextIndex): number {
  const total = text.length(element);
  return total === 0 ? 0 : Math.min(1, text.linkLength(element) / total);
}

function hintOf(element: Element): string {
  return `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
}

/** The region holding the page's content: `<main>` / `role=main` when it holds enough of the text, else the body. */
function mainRegion(body: Element, text: TextIndex): Element {
  const total = text.length(body);
  const candidates = descendantElements(body, isMainLandmark);
  let best: Element | undefined;
  let bestLength = 0;
  for (const candidate of candidates) {
    const length = text.length(candidate);
    if (length > bestLength) {
      best = candidate;
      bestLength = length;
    }
  }
  // A <main> that holds a small part of the text is a widget, not the page's content.
  if (best && bestLength >= 0.3 * total && bestLength >= 200) return best;
  return body;
}

/** Elements named chrome by their tag (`localName`, lower case) or their `role`. */
export interface Chrome {
  readonly tags: ReadonlySet<string>;
  readonly roles: ReadonlySet<string>;
}

/** Whether `chrome` names the element by its tag or its role. */
function isChrome(element: Element, chrome: Chrome): boolean {
  const role = element.getAttribute('role');
  return chrome.tags.has(element.localName) || (role !== null && chrome.roles.has(role));
}

/** Whether the element is the page's main landmark: `<main>` or `role="main"`. */
function isMainLandmark(element: Element): boolean {
  return element.localName === 'main' || element.getAttribute('role') === 'main';
}

/**
 * Removes every chrome element, except one holding the page's main landmark (`<main>`, `role="main"`): that
 * is a wrapper, not chrome (a site wrapping its page in `role="navigation"`, or a parser nesting `<main>` in
 * a `<nav>` left open by markup it could not read), and a tab widget marked as a tab list. One walk, no
 * selector queries.
 */
export function removeChrome(root: Element | Document, chrome: Chrome): void {
  const elements = descendantElements(root);
  const holdsMain = holdersOf(elements, isMainLandmark);
  const found = elements.filter((element) => isChrome(element, chrome));
  for (const element of found) if (!holdsMain.has(element) && !isTabWidget(element)) element.remove();
}

/**
 * A `role="tablist"` put on the whole tab widget rather than on its row of tabs: it holds the tab panels,
 * the content itself. Only its tabs are chrome.
 */
function isTabWidget(element: Element): boolean {
  return element.getAttribute('role') === 'tablist' && element.querySelector('[role="tabpanel"]') !== null;
}

/** Removes blocks whose class/id says chrome, bounded by their share of the region's text. */
function removeByHints(shared: SharedTextIndex, pageType: PageType): void {
  const { root } = shared;
  const text = shared.get();
  const total = Math.max(1, text.length(root));
  // Product pages filter their reviews and variants with the same panels as listings filter their cards.
  const hasFilters = pageType === 'listing' || pageType === 'collection' || pageType === 'product';
  const elements = descendantElements(root);
  const holdsMarker = holdersOf(elements, (element) => isContentMarker(element, pageType));
  for (const element of elements) {
    const hasRoleDescription = element.hasAttribute('aria-roledescription');
    if (!hasRoleDescription && !element.hasAttribute('class') && !element.hasAttribute('id')) continue;
    if (!root.contains(element)) continue;
    const hint = hintOf(element);
    if (hint.trim() === '' && !hasRoleDescription) continue;
    const share = text.length(element) / total;
    // A poster's decoration can outweigh a one-line post (a long signature under "Thanks!"): only a wrapper
    // holding most of the thread is spared.
    const isForumChrome = pageType === 'forum' && FORUM_CHROME_HINT.test(hint);
    const isShopChrome =
      (pageType === 'product' &&
        (isReviewBlock(element, hint) || SMALL_PRINT_HINT.test(hint) || SHOP_PROMISE_HINT.test(hint))) ||
      (pageType === 'collection' && isReviewBlock(element, hint));
    // A hint on a wrapper ("has-sidebar", "content-with-toc") must not take the content with it.
    if (share > (isForumChrome ? MAX_FORUM_CHROME_SHARE : 0.4) || holdsMarker.has(element)) continue;
    if (
      isForumChrome ||
      isShopChrome ||
      STRONG_HINT.test(hint) ||
      (text.length(element) <= MAX_HIDDEN_BY_CLASS && isHiddenByClass(element))
    ) {
      shared.remove(element);
    } else if (pageType === 'documentation' && DOC_CHROME_HINT.test(hint)) {
      shared.remove(element);
    } else if (
      pageType === 'collection' &&
      BADGE_HINT.test(hint) &&
      text.length(element) <= MAX_BADGE_CHARACTERS
    ) {
      shared.remove(element);
    } else if (hasFilters && FILTER_HINT.test(hint)) {
      shared.remove(element);
    } else if (pageType === 'product' && isPricedCarousel(element, hint)) {
      shared.remove(element);
    } else if (WEAK_HINT.test(hint) && linkDensity(element, text) > 0.5) {
      shared.remove(element);
    }
  }
}

/** Header and footer landmarks: the page's own (link-heavy or holding navigation) go, an article's header stays. */
function removeHeadersAndFooters(shared: SharedTextIndex, keepsCardHeaders: boolean): void {
  const { root } = shared;
  const text = shared.get();
  for (const element of Array.from(root.querySelectorAll('header, footer, aside, [role="complementary"]'))) {
    if (!root.contains(element)) continue;
    const tag = element.tagName.toUpperCase();
    if (tag === 'FOOTER') {
      shared.remove(element);
      continue;
    }
    const density = linkDensity(element, text);
    // A card's own header (its title and teaser inside an <article>) on a page of cards is the card.
    if (tag === 'HEADER' && keepsCardHeaders && element.parentElement?.closest('article')) continue;
    if (tag === 'HEADER') {
      // A header with the page's h1 and little navigation is the title block of the content.
      if (element.querySelector('h1') && density < 0.5) continue;
      if (density > 0.3 || text.length(element) < 200) shared.remove(element);
      continue;
    }
    // <aside>: admonitions and notes in documentation are prose; sidebars are links.
    if (density > 0.3 || text.length(element) < 40) shared.remove(element);
  }
}

/** Forms wrap whole pages on some platforms; only small ones (search, newsletter, login) are chrome. */
function removeSmallForms(shared: SharedTextIndex): void {
  const { root } = shared;
  const text = shared.get();
  for (const form of Array.from(root.querySelectorAll('form'))) {
    if (root.contains(form) && text.length(form) < 300) shared.remove(form);
  }
}

/** Lists that are nothing but links (menus, tag clouds, "more in this section") outside listing pages. */
function removeLinkLists(shared: SharedTextIndex): void {
  const { root } = shared;
  const text = shared.get();
  for (const list of Array.from(root.querySelectorAll('ul, ol'))) {
    if (!root.contains(list)) continue;
    const items = list.children.length;
    if (items >= 3 && linkDensity(list, text) > 0.8 && text.length(list) / items < 60) shared.remove(list);
  }
}

/** Chrome landmarks whose text {@link mainAreaMeasure} does not count. */
const LANDMARKS: Chrome = {
  tags: new Set(['nav', 'header', 'footer', 'aside', 'form']),
  roles: new Set(['navigation', 'banner', 'contentinfo', 'complementary']),
};
/**
 * Comment sections, not counted either (by id and by class): readers' comments under a short post are not
 * the content Readability's pick is compared with.
 */
const COMMENTS_ID = 'comments';
const COMMENT_LIST_CLASSES = ['comment-list', 'commentlist'];

/** Whether the element is a landmark or comment section (what a selector query of them matches). */
export function isLandmark(element: Element): boolean {
  if (isChrome(element, LANDMARKS) || element.getAttribute('id') === COMMENTS_ID) return true;
  const className = element.getAttribute('class');
  if (className === null || !COMMENT_LIST_CLASSES.some((name) => className.includes(name))) return false;
  const tokens = className.split(/[ \t\n\f\r]+/);
  return COMMENT_LIST_CLASSES.some((name) => tokens.includes(name));
}

/** How much text the page's main area has, and how much of it sits in links. */
export interface MainAreaMeasure {
  readonly length: number;
  readonly linkLength: number;
}

/**
 * Text length of the page's main region minus its landmarks (navigation, header, footer, asides, forms),
 * and the part of it inside links, without changing the document: a cheap estimate of how much content the
 * page has.
 */
export function mainAreaMeasure(document: Document): MainAreaMeasure {
  const body = document.body;
  if (!body) return { length: 0, linkLength: 0 };
  const text = indexText(body);
  const region = mainRegion(body, text);
  let length = text.length(region);
  let linkLength = text.linkLength(region);
  // Only the outermost landmarks count; inside one (an ASP.NET page's form around the whole page), none.
  let insideLandmark = false;
  for (let up: Element | null = region; up && !insideLandmark; up = up.parentElement) {
    insideLandmark = isLandmark(up);
  }
  if (!insideLandmark) {
    let outer: Element | undefined;
    for (const element of descendantElements(region)) {
      if ((outer && outer.contains(element)) || !isLandmark(element)) continue;
      outer = element;
      length -= text.length(element);
      linkLength -= text.linkLength(element);
    }
  }
  return { length: Math.max(0, length), linkLength: Math.max(0, linkLength) };
}

/**
 * A poster's standing statistics beside each forum post: "Joined: Oct 2019", "Posts: 1,234", "Reaction
 * score", "Location". Either a label line (`<dt>` followed by its `<dd>` value) or one "label: value" line.
 */
const POSTER_STAT =
  '(?:joined|member since|registered|posts|messages|reaction score|likes(?: received)?|points|trophy points|solutions|reputation|karma|credits|location)';
const POSTER_STAT_LABEL = new RegExp(`^${POSTER_STAT}\\s*:?$`, 'i');
const POSTER_STAT_LINE = new RegExp(`^${POSTER_STAT}\\s*:\\s*\\S.{0,60}$`, 'i');

/** On forum pages, removes the poster statistics repeated beside every post (the post and its author stay). */
function removePosterStats(root: Element): void {
  // Leaf blocks never contain one another: removing one leaves the others' text as indexed.
  const lengths = indexText(root);
  for (const block of leafBlocks(root)) {
    if (lengths.length(block) > 80 || !root.contains(block)) continue;
    const text = normalizedText(block);
    const tag = block.tagName.toUpperCase();
    if (tag === 'DT' && POSTER_STAT_LABEL.test(text)) {
      // A long value is a definition in a post, not a statistic.
      const value = block.nextElementSibling;
      const isValue = value?.tagName.toUpperCase() === 'DD';
      if (isValue && collapsedTextLength(value) > 60) continue;
      if (isValue) value.remove();
      block.remove();
    } else if (POSTER_STAT_LINE.test(text)) {
      block.remove();
    }
  }
}

/** Headings of recommendation carousels on product pages ("Customers also bought", "You may also like"). */
const RECOMMENDATION_HEADING =
  /\b(?:also (?:viewed|bought|purchased|like|love)|you (?:may|might) (?:also )?(?:like|love|need)|related (?:products|items)|similar (?:products|items)|recently viewed|customers who|frequently bought|more from (?:this|the) (?:seller|brand|shop|store)|recommended (?:for you|products)|complete the look|pairs well|shop the look|sponsored products?)\b/i;

/**
 * On a product page, the shop's showcases of other products as well ("Featured products", "Best sellers",
 * "Frequently purchased with"); on a category page such a heading titles the content itself.
 */
const PRODUCT_RECOMMENDATION_HEADING = new RegExp(
  `${RECOMMENDATION_HEADING.source}|^(?:featured products|best ?sellers|frequently (?:purchased|bought)(?: with| together)?)$`,
  'i',
);

/** Elements that title a block: headings, and elements whose class names a title or heading. */
const TITLE_ELEMENTS = 'h2, h3, h4, h5, [class*="title" i], [class*="heading" i]';

/**
 * Removes each block introduced by a short title matching `pattern`: the smallest ancestor that holds more
 * than its title, unless it is a large share of the page or holds the content's markers (those of `pageType`).
 */
function removeTitledBlocks(
  root: Element,
  titles: string,
  pattern: RegExp,
  maxTitleLength: number,
  pageType: PageType,
): void {
  // Measured again after each removal: the next block's ancestors may have held the one removed.
  let text = indexText(root);
  const total = Math.max(1, text.length(root));
  for (const title of Array.from(root.querySelectorAll(titles))) {
    if (!root.contains(title)) continue;
    const length = text.length(title);
    if (length === 0 || length > maxTitleLength || !pattern.test(normalizedText(title))) continue;
    let block: Element = title;
    while (block.parentElement && block.parentElement !== root && text.length(block) < length + 40) {
      block = block.parentElement;
    }
    if (text.length(block) / total <= 0.4 && !holdsContentMarker(block, pageType)) {
      block.remove();
      text = indexText(root);
    }
  }
}

/**
 * On product pages, a carousel of other products under a recommendation heading is not this product; on a
 * category page, it is not the category's cards ("Recently viewed", "You may also like").
 */
function removeRecommendations(root: Element, pageType: PageType): void {
  removeTitledBlocks(
    root,
    TITLE_ELEMENTS,
    pageType === 'product' ? PRODUCT_RECOMMENDATION_HEADING : RECOMMENDATION_HEADING,
    80,
    pageType,
  );
}

/** Headings of the thread lists beside a forum thread ("Similar threads", "Latest posts", "Trending topics"). */
const OTHER_THREADS_HEADING =
  /^(?:similar|related|suggested|trending|latest|recent|popular|more|other)(?: [\w-]+)?(?: forum)? (?:threads|topics|discussions|posts|questions)$/i;

/** On forum pages, removes the lists of other threads under such a heading (the thread itself stays). */
function removeOtherThreads(root: Element): void {
  removeTitledBlocks(root, `${TITLE_ELEMENTS}, [class*="header" i]`, OTHER_THREADS_HEADING, 60, 'forum');
}

/** A thread title holding at least this share of the text is the post itself (a link post), kept. */
const MIN_TITLE_POST_SHARE = 0.05;

/** schema.org items of a question-and-answer page: the question and its answers. */
const QA_POST = '[itemtype*="schema.org/Question" i], [itemtype*="schema.org/Answer" i]';
/** A comment as schema.org marks it. */
const COMMENT_TYPE = /schema\.org\/Comment\b/i;
/** The list of comments a Q&A site hangs under a question or an answer. */
const COMMENT_LIST_HINT = /(?:^|\s)(?:comments|comments-list|comment-list|comments-container)(?:$|\s)/i;
/** A post's score as schema.org marks it: the number beside the vote buttons, never the post's text. */
const VOTE_COUNT_PROPERTY = /^(?:upvoteCount|downvoteCount)$/;

/**
 * On forum pages, removes each post's vote count, and on question-and-answer pages the comments under the
 * question and each answer (schema.org `Comment` items, or a comment list named by its class, inside a
 * `Question` or `Answer`): remarks on a post ("Thanks, that worked", "Commented May 2", "Add a comment"),
 * not the question or its answers. A thread's replies are not inside another post and stay.
 */
function removeAnswerComments(root: Element): void {
  for (const element of descendantElements(root)) {
    if (!root.contains(element)) continue;
    const property = element.getAttribute('itemprop');
    if (property !== null && VOTE_COUNT_PROPERTY.test(property)) {
      element.remove();
      continue;
    }
    const isComment =
      COMMENT_TYPE.test(element.getAttribute('itemtype') ?? '') ||
      COMMENT_LIST_HINT.test(element.getAttribute('class') ?? '');
    if (isComment && element.parentElement?.closest(QA_POST)) element.remove();
  }
}

/**
 * On forum pages, removes the thread's title (`<h1>`): like an article's headline it is the page's title,
 * returned as such, while the content is the posts. A link post whose title is most of its text keeps it.
 */
function removeThreadTitle(root: Element): void {
  const text = indexText(root);
  const total = text.length(root);
  for (const heading of Array.from(root.querySelectorAll('h1'))) {
    if (text.length(heading) < MIN_TITLE_POST_SHARE * total) heading.remove();
  }
}

/**
 * Shop interface labels that stand alone as a line on product and category pages: list controls ("View
 * all", "Load more", "Quick view", "Compare"), a card's buttons to its product ("View details", "Choose
 * options", "Notify me") and review prompts ("Write a review", "Verified buyer").
 */
const SHOP_LABEL =
  /^(?:view all|see all|shop all|show (?:more|less|all)|view more|load more|quick (?:view|add|shop)|(?:view|see) details|more info|(?:view|choose|select) options|notify me|write a review|be the first to review.*|recently viewed|more like this|compare|add to compare|top rated|verified (?:buyer|purchase|reviewer))[.!:]?$/i;

/**
 * Star ratings and review counts shown as a line of their own ("4.7 out of 5 stars", "(1,234 reviews)").
 * On a product page they summarise the reviews, not the product; category pages' truth keeps each card's
 * rating, so this applies to product pages only.
 */
const RATING_LINE =
  /^(?:view the )?(?:\(?\d[\d,]*\)? (?:reviews?|ratings?|customer reviews)\)?|\d[\d,]* reviews? with an average rating of [\d.]+ out of \d stars?|(?:rated )?[\d.]+ (?:out of|\/) ?\d(?: stars?)?(?: based on \d[\d,]* (?:customer )?(?:reviews?|ratings?))?)\.?$/i;

/** Labels are short: a longer line is text. */
const MAX_LABEL_CHARACTERS = 100;

/**
 * Lines that start with a verb of the shop's interface ("Quick view", "Add to compare", "Calculate shipping",
 * "View options", "Choose options", "Shop now"): a control, not a product's name or feature.
 */
const CONTROL_LINE =
  /^(?:quick|add|view|calculate|see|shop|buy|choose|select|compare|learn|read|be the first|write|check|show|explore|discover|order|customi[sz]e|configure|find|notify|sign in|log in)\b/i;

/** A control line repeated on at least this many cards is the grid's interface, not one card's text. */
const MIN_REPEATED_CONTROLS = 3;

/** Longer lines are sentences that happen to start with such a verb. */
const MAX_CONTROL_CHARACTERS = 60;

/**
 * Removes, on a category page, the control lines that every card repeats ("Quick view View Options" under
 * each product): the shop's buttons, whatever their words. A line shown once is kept.
 */
function removeRepeatedControls(root: Element): void {
  const lengths = indexText(root);
  const controls: [Element, string][] = [];
  const counts = new Map<string, number>();
  for (const block of [...leafBlocks(root), ...Array.from(root.querySelectorAll('a, span, label'))]) {
    if (lengths.length(block) > MAX_CONTROL_CHARACTERS) continue;
    const text = normalizedText(block);
    if (!CONTROL_LINE.test(text)) continue;
    controls.push([block, text]);
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  // Each copy is the whole of its element's text: a card's control row, not a word in the card's sentence.
  for (const [block, text] of controls) {
    if (counts.get(text)! >= MIN_REPEATED_CONTROLS && root.contains(block)) block.remove();
  }
}

/**
 * A product's stock status standing alone as a line ("Sold out", "In stock", "Back-order", "Coming soon"): on a
 * category page the state of each card's buy button, not a description of the product.
 */
const STOCK_LABEL =
  /^(?:sold ?out|out of stock|in stock|low stock|back-?order(?:ed)?|temporarily out of stock|currently unavailable|coming soon)[.!]?$/i;

/**
 * A card's merchandising badge standing alone as a line ("Best seller", "New arrival", "Award winner",
 * "Reviewer's choice"): the shop's sticker on the picture, not the product's name or description. Singular:
 * "Best sellers" and "New arrivals" title sections of cards.
 */
const CARD_BADGE =
  /^(?:#?\d*\s?best ?seller|top seller|hot seller|new arrival|award winner|staff pick|(?:editor|reviewer)'?s'? choice)!?$/i;

/**
 * The controls above a category's grid standing alone as a line: the range shown ("Showing 24 of 133
 * results", "Items 1-24 of 123", "Displaying 1 to 24 (of 204 products)"), the sort order ("Sort: Best
 * match") and the view switches ("View as Grid List", "Show per page"). A bare count ("51 products") stays:
 * it tells how big the category is.
 */
const LIST_CONTROL =
  /^(?:(?:displaying|showing|viewing)\s+(?:items?\s+)?\d[\d,]*(?:\s*(?:-|–|to)\s*\d[\d,]*)?\s*\(?(?:of|out of)\s*\d[\d,]*(?:\s+(?:results?|items?|products?))?\)?|(?:items|results|products)\s+\d[\d,]*\s*(?:-|–|to)\s*\d[\d,]*\s+of\s+\d[\d,]*|\d[\d,]*\s*(?:-|–)\s*\d[\d,]*\s+(?:items?\s+)?of\s+\d[\d,]*(?:\s+(?:results?|items?|products?))?|(?:showing|loaded) \d[\d,]* (?:results?|items?|products?)|sort(?: by)?:.{0,40}|sort by(?:\s.{0,40})?|view as:?(?:\s+(?:grid|list))*|show per page|(?:items |results )?per page:?)$/i;

/**
 * Removes standalone shop labels from a product or category page, and rating lines from a product page,
 * stock status, badges and list controls, and the control lines repeated on every card, from a category page.
 */
function removeShopLabels(root: Element, pageType: PageType): void {
  removeStandaloneLines(
    root,
    { inline: 'a, span', maxLength: MAX_LABEL_CHARACTERS },
    (text) =>
      SHOP_LABEL.test(text) ||
      (pageType === 'product' && RATING_LINE.test(text)) ||
      (pageType === 'collection' &&
        (STOCK_LABEL.test(text) || CARD_BADGE.test(text) || LIST_CONTROL.test(text))),
  );
  if (pageType === 'collection') removeRepeatedControls(root);
}

/**
 * Forum controls and status labels that stand alone as a line beside each post: "Reply", "Reply With Quote",
 * "Quote", "Share:", "Report", "Like", "12 Likes", "Offline", "#7" (the post's number), "Top", "Jump to
 * latest", "Add a comment", "Show 3 more comments", "Not open for further replies".
 */
const FORUM_LABEL =
  /^(?:reply(?: \d+| with quote(?: \d+)?)?|quote:?|share:?|report|like|\d+ likes?|\d+ helpful votes?|offline|online|#\d+|op|author|members|send|back|top|top bottom|jump to latest|go to topic listing|recommended posts|new posts|logged|not open for further replies\.?|add a comment ?\|?|\|? ?show \d+ more comments?)$/i;

/** On forum pages, removes standalone controls and status labels (a word inside a post's sentence stays). */
function removeForumLabels(root: Element): void {
  removeStandaloneLines(root, { inline: 'a, span', maxLength: MAX_LABEL_CHARACTERS }, (text) =>
    FORUM_LABEL.test(text),
  );
}

/** Blocks compared by {@link removeRepeatedBlocks}. */
const REPEATABLE_BLOCK =
  'div, section, article, p, li, ul, ol, dl, table, h1, h2, h3, h4, h5, h6, blockquote, figure, figcaption';

/** Shorter blocks ("Reply", "$10", "Add to cart") repeat on purpose and are not compared. */
const MIN_REPEATED_CHARACTERS = 10;

/**
 * On a category page the cards' own fields repeat by design (the same price, spec line or badge on many
 * cards), so only blocks this long are compared there: a panel rendered again for another screen size, a
 * shipping note under every card, the category's description shown twice.
 */
const MIN_REPEATED_CATEGORY_CHARACTERS = 100;

/**
 * Blocks compared on a category page: not lists and list items, since an item listed twice (a featured slot
 * and the grid, the same terms under two offers) is listed twice on the page.
 */
const REPEATABLE_CATEGORY_BLOCK =
  'div, section, article, p, dl, table, h1, h2, h3, h4, h5, h6, blockquote, figure, figcaption';

/** Which blocks {@link removeRepeatedBlocks} compares, and from what length. */
interface RepeatedBlockScope {
  readonly selector: string;
  readonly minLength: number;
  /**
   * Shorter blocks (from {@link MIN_REPEATED_CHARACTERS}) are removed too when they repeat a block of the
   * same card: the two copies' closest common ancestor holds at most this many characters.
   */
  readonly maxCardLength?: number;
}

const REPEATED_BLOCKS: RepeatedBlockScope = {
  selector: REPEATABLE_BLOCK,
  minLength: MIN_REPEATED_CHARACTERS,
};
/**
 * A product card showing its name, price or swatches twice (an image link and a title, a hover or quick-shop
 * panel) fits in this many characters; cards sharing a spec line or a badge have only the whole grid in common.
 */
const MAX_CARD_CHARACTERS = 600;

const REPEATED_CATEGORY_BLOCKS: RepeatedBlockScope = {
  selector: REPEATABLE_CATEGORY_BLOCK,
  minLength: MIN_REPEATED_CATEGORY_CHARACTERS,
  maxCardLength: MAX_CARD_CHARACTERS,
};

/**
 * Removes a block whose text repeats an earlier block word for word: the same panel rendered twice for
 * small and large screens, a price box shown in a sticky bar as well, a post quoted in full in a reply.
 * The first copy stays.
 */
function removeRepeatedBlocks(
  shared: SharedTextIndex,
  { selector, minLength, maxCardLength }: RepeatedBlockScope,
): void {
  const { root } = shared;
  const blocks = Array.from(root.querySelectorAll(selector));
  // Only blocks of the same length can repeat each other: the others' text is never read.
  const lengths = shared.get();
  const blocksOfLength = new Map<number, number>();
  for (const block of blocks) {
    const length = lengths.length(block);
    blocksOfLength.set(length, (blocksOfLength.get(length) ?? 0) + 1);
  }
  const shortest = maxCardLength === undefined ? minLength : MIN_REPEATED_CHARACTERS;
  const seen = new Map<string, Element>();
  let previous: { readonly element: Element; readonly length: number; readonly text: string } | undefined;
  for (const element of blocks) {
    const length = lengths.length(element);
    if (length < shortest || blocksOfLength.get(length)! < 2 || !root.contains(element)) continue;
    // Inside the block before it and as long, a block has the same text (the wrapper adds only whitespace).
    const text =
      previous?.length === length && previous.element.contains(element)
        ? previous.text
        : normalizedText(element);
    previous = { element, length, text };
    const first = seen.get(text);
    if (first === undefined) {
      seen.set(text, element);
    } else if (first.contains(element) || element.querySelector('img, pre')) {
      continue;
    } else if (length >= minLength || isSameCard(first, element, lengths, maxCardLength ?? 0)) {
      shared.remove(element);
    } else {
      // The next copy is compared with this one, the nearest.
      seen.set(text, element);
    }
  }
}

/** Whether two blocks' closest common ancestor holds at most `maxLength` characters (one card of a grid). */
function isSameCard(first: Element, second: Element, lengths: TextIndex, maxLength: number): boolean {
  let common = first.parentElement;
  while (common && !common.contains(second)) common = common.parentElement;
  return common !== null && lengths.length(common) <= maxLength;
}

/**
 * The main content of a non-article page: its main region (a detached subtree of `document`) without
 * chrome. The document must already be free of scripts, styles and hidden elements.
 */
export function mainAreaContent(document: Document, pageType: PageType): Element | null {
  const body = document.body;
  if (!body) return null;
  removeChrome(body, CHROME);
  const bodyText = indexText(body);
  const root = mainRegion(body, bodyText);
  const shared = new SharedTextIndex(root, bodyText);
  removeHeadersAndFooters(shared, pageType === 'listing' || pageType === 'collection');
  removeSmallForms(shared);
  removeByHints(shared, pageType);
  if (pageType !== 'listing' && pageType !== 'collection') removeLinkLists(shared);
  if (pageType === 'product' || pageType === 'collection') {
    removeRecommendations(root, pageType);
    removeShopLabels(root, pageType);
    shared.changed();
  }
  if (pageType === 'forum') {
    removePosterStats(root);
    removeAnswerComments(root);
    removeOtherThreads(root);
    removeThreadTitle(root);
    removeForumLabels(root);
    shared.changed();
  }
  if (pageType !== 'documentation' && pageType !== 'article') {
    removeRepeatedBlocks(shared, pageType === 'collection' ? REPEATED_CATEGORY_BLOCKS : REPEATED_BLOCKS);
  }
  return collapsedTextLength(root) === 0 ? null : root;
}
