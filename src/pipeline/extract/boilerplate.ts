/**
 * Post-filter of Readability's output. Readability keeps whole containers; inside them sit blocks a reader
 * skips: captions and photo credits, bylines and timestamps, "read more"/related-link lists, share bars
 * and the headline itself. Each rule was kept only if it raised F1 on the article benchmark.
 */
import type { PageMetadata } from './metadata.ts';
import { normalizedText, SharedTextIndex } from './text-index.ts';

/** Names of the clean-up rules, applied in this order. */
export const BOILERPLATE_RULES = ['captions', 'headline', 'linkDense', 'labels', 'datelines'] as const;

/** One clean-up rule name. */
export type BoilerplateRule = (typeof BOILERPLATE_RULES)[number];

/**
 * The clean-up rules of one subtree share its text index ({@link SharedTextIndex}); a caller running more
 * rules on the subtree afterwards passes the shared index instead of the element.
 */
function sharedIndexOf(target: Element | SharedTextIndex): SharedTextIndex {
  return target instanceof SharedTextIndex ? target : new SharedTextIndex(target);
}

/** Block-level tags: a "leaf block" is one of these with none of them inside. */
const LEAF_BLOCK_TAGS = new Set(
  'P H1 H2 H3 H4 H5 H6 LI DIV SECTION FIGURE FIGCAPTION BLOCKQUOTE DT DD PRE ASIDE HEADER FOOTER TD TH'.split(
    ' ',
  ),
);

/**
 * Block elements under `root` that contain no other block element, in document order: the paragraphs as a
 * reader sees them. One pass: an element is a leaf block when no block sits anywhere below it.
 */
export function leafBlocks(root: Element): Element[] {
  const leaves: Element[] = [];
  /** Appends the leaf blocks under `element` to `leaves`; returns whether a block sits under it. */
  const visit = (element: Element): boolean => {
    let holdsBlock = false;
    for (let child = element.firstElementChild; child !== null; child = child.nextElementSibling) {
      const isBlock = LEAF_BLOCK_TAGS.has(child.tagName.toUpperCase());
      // Reserve the child's place so that it precedes its descendants, as in document order.
      const place = leaves.length;
      if (isBlock) leaves.push(child);
      const childHoldsBlock = visit(child);
      if (isBlock && childHoldsBlock) leaves.splice(place, 1);
      holdsBlock ||= isBlock || childHoldsBlock;
    }
    return holdsBlock;
  };
  visit(root);
  return leaves;
}

const CAPTION_CLASS =
  /(?:^|[\s_-])(?:caption|credit|photo-?credit|image-?credit|wp-caption-text|gallery|slideshow|byline|dateline|timestamp|share|social|related|newsletter|promo|tags?)(?:$|[\s_-])/i;

/**
 * What a figure holds when it is not a picture: publishing tools wrap tables (`wp-block-table`), pull quotes
 * and code listings in `<figure>` too, and those are the article's text.
 */
const FIGURE_CONTENT = 'table, blockquote, pre';

/** A figure embedding another site's post (`wp-block-embed`): its quote is that post, not the article. */
const EMBED_CLASS = /(?:^|[\s_-])embed(?:$|[\s_-])/i;

/** Whether a figure is the article's own table, quote or code rather than a picture with its caption. */
function isTextFigure(figure: Element): boolean {
  return (
    figure.querySelector(FIGURE_CONTENT) !== null && !EMBED_CLASS.test(figure.getAttribute('class') ?? '')
  );
}

function removeCaptions(shared: SharedTextIndex): void {
  const { root } = shared;
  for (const element of Array.from(root.querySelectorAll('figcaption'))) shared.remove(element);
  let text = shared.get();
  for (const figure of Array.from(root.querySelectorAll('figure'))) {
    if (text.length(figure) < 400 && !isTextFigure(figure)) shared.remove(figure);
  }
  text = shared.get();
  for (const element of Array.from(root.querySelectorAll('[class]'))) {
    if (!root.contains(element)) continue;
    const className = element.getAttribute('class') ?? '';
    if (CAPTION_CLASS.test(className) && text.length(element) < 300) shared.remove(element);
  }
}

function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function removeHeadline(shared: SharedTextIndex, title: string | undefined): void {
  const { root } = shared;
  for (const heading of Array.from(root.querySelectorAll('h1'))) shared.remove(heading);
  if (!title) return;
  const wanted = comparable(title);
  for (const heading of Array.from(root.querySelectorAll('h2, h3, p')).slice(0, 3)) {
    const text = comparable(normalizedText(heading));
    if (text.length > 10 && (wanted.startsWith(text) || text === wanted)) shared.remove(heading);
  }
}

function removeLinkDense(shared: SharedTextIndex): void {
  const { root } = shared;
  const text = shared.get();
  for (const list of Array.from(root.querySelectorAll('ul, ol, div, section, aside, p, li, table'))) {
    if (!root.contains(list)) continue;
    const length = text.length(list);
    if (length === 0) continue;
    const density = text.linkLength(list) / length;
    const tag = list.tagName.toUpperCase();
    const threshold = tag === 'P' || tag === 'LI' ? 0.8 : 0.5;
    if (density > threshold && length < 1500) shared.remove(list);
  }
}

/**
 * Lines that are labels of the page's interface, not its text: ad marks, section labels ("Related",
 * "Tags"), share and account prompts, and the links to another page under a teaser ("Read more", "Read the
 * full story").
 */
const LABEL_PATTERN =
  /^(?:advert(?:isement)?|ad|sponsored|read more|read (?:the )?full (?:article|story)|see more|see also|more from\b.*|related(?: articles| stories| posts| content)?|recommended|you may also like|you might also like|don'?t miss|most popular|trending|share(?: this)?(?: article| story| on .*)?|tags?|comments?|subscribe|sign in|sign up|log in|close|caption|continue reading(?: below)?|skip to content|image \d+ of \/? ?\d+|photo: .*|credit: .*|\(?image(?: credit)?: .*\)?|click here.*|follow us.*|print|email|whatsapp.*|facebook.*|twitter.*|this slideshow requires javascript\.?|loading.*|watch:? .*|listen:? .*)$/i;

/** Caption-like lines: end in an image credit, or a copyright notice. */
const CREDIT_PATTERN =
  /(?:\((?:image|photo|picture|pic|foto|video)s?(?: credit)?\s*:[^)]*\)|\bcredit\s*:\s*[^.]{0,60}|^\s*©.{0,80})$/i;

/** Cookie-consent banners. */
const COOKIE_PATTERN = /\bcookies?\b.*\b(?:accept|consent|agree|opt[- ]out|policy|settings)\b/i;

function removeLabels(shared: SharedTextIndex): void {
  const { root } = shared;
  // Leaf blocks never contain one another: removing one leaves the others' text as indexed.
  const lengths = shared.get();
  for (const block of leafBlocks(root)) {
    const length = lengths.length(block);
    if (length === 0) {
      if (!block.querySelector('img, video, pre, code')) shared.remove(block);
      continue;
    }
    if (length > 400 || isDataCell(block)) continue;
    const text = normalizedText(block);
    if ((text.length <= 80 && LABEL_PATTERN.test(text)) || (text.length <= 400 && CREDIT_PATTERN.test(text)))
      shared.remove(block);
    else if (text.length <= 400 && COOKIE_PATTERN.test(text)) shared.remove(block);
    else if (
      /^(?:read more|see more|related|more|also read|watch|listen|recommended|don'?t miss)\s*[:»|>-]/i.test(
        text,
      ) &&
      text.length < 250
    ) {
      shared.remove(block);
    }
  }
}

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const DATE_LIKE = new RegExp(
  `(?:\\b\\d{1,2}:\\d{2}\\b|\\b${MONTH}\\s+\\d{1,2}\\b|\\b\\d{1,2}\\s+${MONTH}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b|\\b(?:minutes?|hours?|days?) ago\\b)`,
  'i',
);

/** Quoted material (embedded posts, pull quotes) is content even when it looks like a dateline. */
function isQuoted(element: Element): boolean {
  return element.closest('blockquote') !== null;
}

/**
 * A cell of a data table (one with header cells): its text is a value of its row ("Email", "Monday to
 * Friday, 8:00 to 18:00"), not a share label or a dateline, whatever it looks like.
 */
function isDataCell(element: Element): boolean {
  const cell = element.closest('td, th');
  return cell !== null && cell.closest('table')?.querySelector('th') != null;
}

function removeDatelines(shared: SharedTextIndex, byline: string | undefined): void {
  const { root } = shared;
  const bylineText = byline ? comparable(byline) : '';
  const lengths = shared.get();
  for (const block of leafBlocks(root)) {
    const length = lengths.length(block);
    if (length === 0 || length > 140 || isQuoted(block) || isDataCell(block)) continue;
    const text = normalizedText(block);
    const startsLikeMeta =
      /^(?:\|?\s*)(?:by\s|published|updated|posted|last updated|written by|author|\d+ min read)/i.test(text);
    const isDateOnly = DATE_LIKE.test(text) && text.split(/\s+/).length <= 12;
    const isByline = bylineText.length > 3 && comparable(text).includes(bylineText) && text.length < 80;
    if ((startsLikeMeta && (isDateOnly || text.length < 80)) || isDateOnly || isByline) shared.remove(block);
  }
}

/** Inline elements: a label inside one of them is on the same line as the text beside that element. */
const INLINE_TAGS = new Set([
  'a',
  'span',
  'strong',
  'b',
  'em',
  'i',
  'u',
  's',
  'small',
  'mark',
  'label',
  'font',
  'sup',
  'sub',
  'abbr',
  'time',
]);

/**
 * Whether text runs beside an element on its line: a text node with words next to it or next to an inline
 * element holding it, up to its block. A card's controls ("Quick view", "Add to compare") sit beside other
 * elements, not beside words, even when the whole card is one list item.
 */
function isInSentence(element: Element): boolean {
  for (let node: Element | null = element; node; node = node.parentElement) {
    for (const sibling of [node.previousSibling, node.nextSibling]) {
      if (sibling?.nodeType === 3 && /[\p{L}\p{N}]/u.test(sibling.textContent ?? '')) return true;
    }
    if (!INLINE_TAGS.has(node.parentElement?.localName ?? '')) return false;
  }
  return false;
}

/**
 * Calls to action and account prompts that stand alone as a line: "Get started", "Sign up for free",
 * "Add to cart", "You must log in or register to reply here.". Pages that are not articles show them as
 * links styled as buttons, which the button pass does not see.
 */
const CALL_TO_ACTION =
  /^(?:get started(?: (?:for free|now|today))?|get (?:a|your) (?:free )?(?:quote|demo|estimate)|request (?:a )?(?:demo|quote)|book (?:a )?(?:demo|call|consultation)|start (?:a |your )?free trial|start for free|try (?:it )?(?:for )?free|try (?:it )?now|sign up(?: for free| now| today)?|log ?in|sign in|register|create (?:an )?account|learn more|shop now|buy now|order now|add to (?:cart|bag|basket|wish ?list)|contact us(?: today)?|click to expand\.*|you must (?:log in|sign in|be logged in)\b.*|(?:log in|sign in|register|sign up) to (?:reply|comment|answer|post)\b.*|similar threads|search forums)[.!]?$/i;

/** Where {@link removeStandaloneLines} looks for lines, and how long one may be. */
export interface StandaloneLineScope {
  /** Inline elements that can stand as a line of their own besides leaf blocks (`'a'`, `'a, span'`). */
  readonly inline: string;
  /** Longer blocks are text, not a label or a button. */
  readonly maxLength: number;
}

/**
 * Removes the leaf blocks and inline elements whose whole text `isLine` accepts, each standing alone as a
 * line: a label or a button, not a word in a sentence (see {@link isInSentence}).
 */
export function removeStandaloneLines(
  target: Element | SharedTextIndex,
  { inline, maxLength }: StandaloneLineScope,
  isLine: (text: string) => boolean,
): void {
  const shared = sharedIndexOf(target);
  const { root } = shared;
  const lengths = shared.get();
  for (const block of [...leafBlocks(root), ...Array.from(root.querySelectorAll(inline))]) {
    // The index (a snapshot) only rules out long blocks; a short one is read as it is now.
    if (lengths.length(block) > maxLength || !root.contains(block)) continue;
    const text = normalizedText(block);
    if (text.length === 0 || !isLine(text)) continue;
    // A label or link inside a sentence ("... learn more about the plans") is part of the sentence.
    if (isInSentence(block)) continue;
    shared.remove(block);
  }
}

/** Removes standalone calls to action from the content of a page that is not an article. */
export function removeCallsToAction(target: Element | SharedTextIndex): void {
  removeStandaloneLines(target, { inline: 'a', maxLength: 80 }, (text) => CALL_TO_ACTION.test(text));
}

/** Removes boilerplate blocks from the article element in place. */
export function removeBoilerplate(
  target: Element | SharedTextIndex,
  metadata: PageMetadata & { readonly readabilityTitle?: string },
  rules: readonly BoilerplateRule[] = BOILERPLATE_RULES,
): void {
  const shared = sharedIndexOf(target);
  for (const rule of rules) {
    if (rule === 'captions') removeCaptions(shared);
    else if (rule === 'headline') removeHeadline(shared, metadata.readabilityTitle ?? metadata.title);
    else if (rule === 'linkDense') removeLinkDense(shared);
    else if (rule === 'labels') removeLabels(shared);
    else removeDatelines(shared, metadata.byline);
  }
}
