/**
 * Pre-pass removing what a reader never sees, before Readability scores the page. Only inline signals are
 * visible here (attributes and `style=""`); text hidden by a stylesheet class is not detected.
 */
import { descendantElements } from './dom.ts';
import { collapsedTextLength, normalizedText } from './text-index.ts';

/**
 * Elements whose content is never rendered as page text (`svg` text is icon labels and chart ticks), besides
 * `<annotation>` inside `<math>` and a `<dialog>` without `open`.
 */
const NEVER_RENDERED_TAGS = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'link',
  'object',
  'embed',
  'iframe',
  'canvas',
  'svg',
]);

function isNeverRendered(element: Element, tag: string): boolean {
  return (
    NEVER_RENDERED_TAGS.has(tag) ||
    (tag === 'dialog' && !element.hasAttribute('open')) ||
    (tag === 'annotation' && element.closest('math') !== null)
  );
}

/**
 * Players whose content is the fallback for browsers without them ("Sorry, your browser doesn't support
 * embedded videos."): never shown where the player plays. Only their `<source>` and `<track>` are kept.
 */
const MEDIA_TAGS = new Set(['video', 'audio']);
const MEDIA_SOURCE_TAGS = new Set(['source', 'track']);

/**
 * Never-rendered elements of the document in document order, nested ones included, and its players (one
 * walk, no selector).
 */
function neverRenderedElements(document: Document): { neverRendered: Element[]; players: Element[] } {
  const neverRendered: Element[] = [];
  const players: Element[] = [];
  for (const element of descendantElements(document)) {
    const tag = element.localName;
    if (isNeverRendered(element, tag)) neverRendered.push(element);
    else if (MEDIA_TAGS.has(tag)) players.push(element);
  }
  return { neverRendered, players };
}

/** Removes a player's fallback content (text and elements other than its sources and tracks). */
function removeMediaFallback(media: Element): void {
  for (const child of Array.from(media.childNodes)) {
    const isSource = child.nodeType === 1 && MEDIA_SOURCE_TAGS.has((child as Element).localName);
    if (!isSource) child.remove();
  }
}

/** `style` declarations, lower-cased, later ones winning. */
function parseInlineStyle(style: string): Map<string, string> {
  const declarations = new Map<string, string>();
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon <= 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration
      .slice(colon + 1)
      .replace(/!important/i, '')
      .trim()
      .toLowerCase();
    if (property) declarations.set(property, value);
  }
  return declarations;
}

function lengthIsZero(value: string | undefined): boolean {
  return value !== undefined && /^-?0+(?:\.0+)?(?:[a-z%]+)?$/.test(value);
}

/** Parses `-9999px`, `-100em`...; returns px-ish magnitude (em/rem counted as 16px) or undefined. */
function lengthInPixels(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const match = /^(-?\d+(?:\.\d+)?)(px|em|rem|pt|vw|vh|%)?$/.exec(value);
  if (!match?.[1]) return undefined;
  const number = Number(match[1]);
  const unit = match[2] ?? 'px';
  if (unit === 'em' || unit === 'rem') return number * 16;
  if (unit === 'vw' || unit === 'vh' || unit === '%') return number * 10;
  return number;
}

const OFF_SCREEN_PX = -500;

/**
 * Transparent and moved (`opacity:0; transform:translateY(40px)`) is the first frame of a reveal-on-scroll
 * animation: a reader scrolling there sees the block fade in.
 */
function isRevealStart(css: ReadonlyMap<string, string>): boolean {
  const transform = css.get('transform');
  return transform !== undefined && transform !== 'none';
}

/** True when an inline style makes the element invisible to a reader. */
export function isHiddenByInlineStyle(style: string): boolean {
  const css = parseInlineStyle(style);
  if (css.get('display') === 'none') return true;
  const visibility = css.get('visibility');
  if (visibility === 'hidden' || visibility === 'collapse') return true;
  if (lengthIsZero(css.get('opacity')) && !isRevealStart(css)) return true;
  if (lengthIsZero(css.get('font-size'))) return true;
  if (lengthIsZero(css.get('max-height')) && css.get('overflow') === 'hidden') return true;
  const zeroWidth = lengthIsZero(css.get('width')) || lengthIsZero(css.get('max-width'));
  const zeroHeight = lengthIsZero(css.get('height')) || lengthIsZero(css.get('max-height'));
  if (zeroWidth && zeroHeight) return true;
  const position = css.get('position');
  if (position === 'absolute' || position === 'fixed') {
    for (const side of ['left', 'top', 'right', 'bottom']) {
      const offset = lengthInPixels(css.get(side));
      if (offset !== undefined && offset <= OFF_SCREEN_PX) return true;
    }
    // The "visually hidden" pattern: clip to nothing.
    const clip = css.get('clip')?.replace(/\s+/g, '');
    if (clip === 'rect(0,0,0,0)' || clip === 'rect(0000)' || clip === 'rect(1px,1px,1px,1px)') return true;
    if (css.get('clip-path')?.replace(/\s+/g, '') === 'inset(50%)') return true;
  }
  const indent = lengthInPixels(css.get('text-indent'));
  if (indent !== undefined && indent <= OFF_SCREEN_PX) return true;
  const transform = css.get('transform');
  if (transform && /scale\(\s*0(?:\.0+)?\s*\)/.test(transform)) return true;
  const color = css.get('color');
  if (color === 'transparent') return true;
  return false;
}

/**
 * True when an element is hidden by attributes or its inline style; `aria-hidden` counts unless
 * `showsAriaHidden` (it hides from screen readers only: the page still shows it).
 */
export function isHiddenElement(element: Element, showsAriaHidden = false): boolean {
  const hidden = element.getAttribute('hidden');
  if (hidden !== null && hidden.toLowerCase() !== 'until-found') return true;
  if (!showsAriaHidden && element.getAttribute('aria-hidden')?.trim().toLowerCase() === 'true') return true;
  const style = element.getAttribute('style');
  return style !== null && style !== '' && isHiddenByInlineStyle(style);
}

/**
 * Some platforms serve their whole server-rendered page inside `<noscript>` and build the visible page with
 * JavaScript (forum software does this for crawlers). When a `<noscript>` holds more text than the rest of
 * the body, it is the page: it is unwrapped instead of removed.
 */
function unwrapContentNoscript(document: Document, neverRendered: readonly Element[]): void {
  const body = document.body;
  if (!body) return;
  const noscripts = neverRendered.filter(
    (element) => element.tagName.toUpperCase() === 'NOSCRIPT' && body.contains(element),
  );
  if (noscripts.length === 0) return;
  const lengths = noscripts.map(collapsedTextLength);
  const inside = lengths.reduce((most, length) => Math.max(most, length), 0);
  const largest = noscripts[lengths.indexOf(inside)]!;
  if (inside < 500) return;
  // Visible text of the rest of the page: body text minus every noscript, script and style.
  let outside = collapsedTextLength(body);
  for (const element of neverRendered) {
    if (!/^(?:NOSCRIPT|SCRIPT|STYLE)$/.test(element.tagName.toUpperCase()) || !body.contains(element))
      continue;
    if (!element.parentElement?.closest('noscript, script, style')) outside -= collapsedTextLength(element);
  }
  if (inside <= outside) return;
  largest.replaceWith(...Array.from(largest.childNodes));
}

/** Options of {@link removeHiddenContent}. */
export interface RemoveHiddenOptions {
  /**
   * Keep tab panels hidden by an attribute or inline style (product pages keep specifications and details in
   * tabs a reader opens with a click, documentation the same example in other languages).
   * @default false
   */
  readonly keepTabPanels?: boolean;
  /**
   * Keep accordion panels and carousel slides hidden by an attribute or inline style, not the copies a
   * carousel clones for its loop (service pages fold their offers, FAQs and testimonials in them, product
   * pages their description and dimensions).
   * @default false
   */
  readonly keepFoldedPanels?: boolean;
  /**
   * Keep accordion panels hidden by an attribute or inline style, not carousel slides (listings and
   * collections fold their descriptions and FAQs; their hidden slides are rows of other products).
   * @default false
   */
  readonly keepAccordionPanels?: boolean;
  /**
   * Keep elements hidden only by `aria-hidden` (collections show each card's rating and review count as
   * `aria-hidden` text beside a label for screen readers).
   * @default false
   */
  readonly keepAriaHidden?: boolean;
}

/**
 * Removes never-rendered elements (scripts, styles, SVG, closed dialogs...) and the fallback content of
 * players in place. Returns how many elements were removed (fallbacks not counted).
 */
export function removeNeverRendered(document: Document): number {
  const { neverRendered, players } = neverRenderedElements(document);
  for (const player of players) removeMediaFallback(player);
  unwrapContentNoscript(document, neverRendered);
  let removed = 0;
  for (const element of neverRendered) {
    // Already gone with an enclosing one, or the noscript unwrapped as the page.
    if (!element.isConnected) continue;
    element.remove();
    removed++;
  }
  return removed;
}

const TAB_PANEL = /(?:^|[\s_-])(?:tab-?pane|tab-?panel|tab-?content|tabs?-?body)(?:$|[\s_-])/i;

function isTabPanel(element: Element): boolean {
  return element.getAttribute('role') === 'tabpanel' || TAB_PANEL.test(element.getAttribute('class') ?? '');
}

/** Accordion panels (ARIA's pattern gives them role=region). */
const ACCORDION_PANEL = /accordion|collaps/i;
/** Carousel slides. */
const SLIDE = /carousel|(?:^|[\s_-])slide(?:$|[\s_-])/i;
/** Slides a carousel copies to loop around: the same text twice. */
const CLONED_SLIDE = /(?:^|[\s_-])(?:cloned|clone|duplicate)(?:$|[\s_-])/i;

function isFoldedPanel(element: Element): boolean {
  const className = element.getAttribute('class') ?? '';
  return (isAccordionPanel(element) || SLIDE.test(className)) && !CLONED_SLIDE.test(className);
}

/** Accordion panels: ARIA's `role=region`, accordion class names, the folded answer of a question. */
function isAccordionPanel(element: Element): boolean {
  return (
    element.getAttribute('role') === 'region' ||
    ACCORDION_PANEL.test(element.getAttribute('class') ?? '') ||
    isFoldedAnswer(element)
  );
}

/** The close button of a popup. */
const CLOSE_CONTROL = '[aria-label="Close"], [aria-label="close"], .close';

/** A question that a folded answer follows is at most this long. */
const MAX_TOGGLE_CHARACTERS = 200;

/**
 * The answer of a folded question ("How long does it take?" followed by its hidden answer): the accordions of
 * FAQs whose class names say nothing.
 */
function isFoldedAnswer(element: Element): boolean {
  const toggle = element.previousElementSibling;
  if (!toggle) return false;
  const text = normalizedText(toggle);
  // A panel with its own close button is a popup opened by a question ("Need help?"), not an answer.
  return text.length <= MAX_TOGGLE_CHARACTERS && text.endsWith('?') && !element.querySelector(CLOSE_CONTROL);
}

/** Whether an option keeps this hidden element (tab panels, folded panels). */
function isKept(element: Element, options: RemoveHiddenOptions): boolean {
  return (
    (options.keepTabPanels === true && isTabPanel(element)) ||
    (options.keepFoldedPanels === true && isFoldedPanel(element)) ||
    (options.keepAccordionPanels === true && isAccordionPanel(element))
  );
}

/** Removes never-rendered and hidden elements from the document in place. Returns how many were removed. */
export function removeHiddenContent(document: Document, options: RemoveHiddenOptions = {}): number {
  return removeNeverRendered(document) + removeHiddenElements(document, options);
}

/**
 * A hidden element holding more than this share of the page's text is the page itself, hidden until a script
 * reveals it (fade-in animations start at `opacity:0`, streaming renderers park the page in a `hidden` div
 * and move it into place): it is shown, not removed.
 */
const REVEALED_PAGE_SHARE = 0.5;

/**
 * An `aria-hidden` element with at most this many characters is shown content that screen readers skip (a
 * card's rating and review count, a second link around its teaser); longer ones are closed drawers, menus
 * and dialogs that scripts hide with the same attribute. Carousel slides marked so are off screen.
 */
const MAX_SHOWN_ARIA_HIDDEN = 300;

/** Whether an option keeps this element although it is `aria-hidden` (see {@link MAX_SHOWN_ARIA_HIDDEN}). */
function showsAriaHidden(element: Element, options: RemoveHiddenOptions): boolean {
  return (
    options.keepAriaHidden === true &&
    element.hasAttribute('aria-hidden') &&
    !SLIDE.test(element.getAttribute('class') ?? '') &&
    collapsedTextLength(element) <= MAX_SHOWN_ARIA_HIDDEN
  );
}

/** Removes elements hidden by attributes or inline style (the never-rendered pass has run). Returns how many. */
export function removeHiddenElements(document: Document, options: RemoveHiddenOptions = {}): number {
  let removed = 0;
  let pageLength: number | undefined;
  // One walk over all elements: a walk is much cheaper than attribute selectors.
  for (const element of descendantElements(document)) {
    const hasHidden = element.hasAttribute('hidden');
    const isHiddenInput =
      element.localName === 'input' && element.getAttribute('type')?.toLowerCase() === 'hidden';
    if (
      !isHiddenInput &&
      !hasHidden &&
      !element.hasAttribute('aria-hidden') &&
      !element.hasAttribute('style')
    )
      continue;
    if (!element.isConnected) continue;
    if (isHiddenInput) {
      element.remove();
      removed++;
    } else if (isHiddenElement(element, showsAriaHidden(element, options)) && !isKept(element, options)) {
      pageLength ??= document.body ? collapsedTextLength(document.body) : 0;
      if (pageLength > 0 && collapsedTextLength(element) > REVEALED_PAGE_SHARE * pageLength) {
        element.removeAttribute('hidden');
        element.removeAttribute('aria-hidden');
        element.removeAttribute('style');
        continue;
      }
      element.remove();
      removed++;
    } else if (hasHidden) {
      // hidden="until-found" content is revealed by find-in-page (and kept tab panels by a click);
      // Readability would drop any [hidden].
      element.removeAttribute('hidden');
    }
  }
  return removed;
}

/**
 * Invisible formatting characters: zero-width space, word joiner, BOM, soft hyphen, Mongolian vowel separator,
 * and every bidi control (marks, embeddings, overrides, isolates).
 */
const INVISIBLE_CHARACTERS =
  /[\u00AD\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u061C]/g;
/** ZWJ/ZWNJ are kept between two non-ASCII characters (emoji sequences, Persian, Indic scripts). */
const JOINERS_OUTSIDE_SCRIPTS = /(?<![^\p{ASCII}])[\u200C\u200D]|[\u200C\u200D](?![^\p{ASCII}])/gu;

/** Strips zero-width and bidi-control characters that can hide or disguise text. */
export function stripInvisibleCharacters(text: string): string {
  return text.replace(INVISIBLE_CHARACTERS, '').replace(JOINERS_OUTSIDE_SCRIPTS, '');
}
