/**
 * Pruning before the parse. Parsing is the most expensive stage of extraction, and much of a page can never
 * be content: scripts, inline styles, SVG icons and comments are often most of its bytes, and the whitespace
 * between block tags is as many text nodes again as a pretty-printed page has elements, each one walked by
 * every later stage. One scan from tag to tag cuts both (one regular expression per kind rescans the whole
 * page each time; V8 is many times slower still over the pieced-together result of an earlier replace).
 */

import { nameTable } from './detached.ts';
import { HTML_VOID_TAGS } from './tag-sets.ts';

/** A start or end tag found at a position: where its name is and where it ends. */
interface TagAt {
  readonly isEnd: boolean;
  readonly name: string;
  /** Just past the tag's name. */
  readonly nameEnd: number;
  /** Just past the tag's `>`. */
  readonly end: number;
}

const isAsciiLetter = (code: number): boolean => (code | 32) >= 97 && (code | 32) <= 122;
const isDigit = (code: number): boolean => code >= 48 && code <= 57;
/** A character of a tag name: a letter, a digit or `-`. */
const isNameCharacter = (code: number): boolean => isAsciiLetter(code) || isDigit(code) || code === 45;
/** A word character of regular expressions (`\w`); NaN (past the end) is none. */
const isWordCharacter = (code: number): boolean => isAsciiLetter(code) || isDigit(code) || code === 95;

/** Tag names seen, in lower case (most are lower case already; the rest are few and repeated). */
const lowerCaseName = nameTable((written) => written.toLowerCase());

/**
 * The tag's name starting at `start` (a letter): the longest run of name characters followed by a character
 * `endsName` accepts, as a regular expression backtracking over the run would take it; undefined when none.
 */
function nameAt(html: string, start: number, endsName: (end: number) => boolean): number | undefined {
  let end = start + 1;
  while (end < html.length && isNameCharacter(html.charCodeAt(end))) end++;
  for (; end > start; end--) if (endsName(end)) return end;
  return undefined;
}

/**
 * The start or end tag at `at`, as `<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>` matches it (the name ends at a
 * word boundary, the tag at the first `>`), read character by character: a regular expression's match
 * (an array of three strings per tag) was most of this scan's time.
 */
function tagAt(html: string, at: number): TagAt | undefined {
  const isEnd = html.charCodeAt(at + 1) === 47;
  const start = at + (isEnd ? 2 : 1);
  if (!isAsciiLetter(html.charCodeAt(start))) return undefined;
  const close = html.indexOf('>', start);
  if (close === -1) return undefined;
  const nameEnd = nameAt(
    html,
    start,
    (end) => isWordCharacter(html.charCodeAt(end - 1)) !== isWordCharacter(html.charCodeAt(end)),
  );
  if (nameEnd === undefined) return undefined;
  return { isEnd, name: lowerCaseName(html.slice(start, nameEnd)), nameEnd, end: close + 1 };
}

/** Just the name of the tag at `at`, lower-cased: `<\/?([a-zA-Z][a-zA-Z0-9-]*)(?![\w])` (no `>` needed). */
function tagNameAt(html: string, at: number): string | undefined {
  if (html.charCodeAt(at) !== 60) return undefined;
  const start = at + (html.charCodeAt(at + 1) === 47 ? 2 : 1);
  if (!isAsciiLetter(html.charCodeAt(start))) return undefined;
  const nameEnd = nameAt(html, start, (end) => !isWordCharacter(html.charCodeAt(end)));
  return nameEnd === undefined ? undefined : lowerCaseName(html.slice(start, nameEnd));
}

/** Elements removed whole, start tag to end tag: never text (JSON-LD scripts are kept for metadata). */
const INERT_ENDS: ReadonlyMap<string, RegExp> = new Map([
  ['script', /<\/script\s*>/gi],
  ['style', /<\/style\s*>/gi],
  ['svg', /<\/svg\s*>/gi],
]);

/** Elements whose text keeps its whitespace: skipped whole. */
const PREFORMATTED_ENDS: ReadonlyMap<string, RegExp> = new Map([
  ['pre', /<\/pre\s*>/gi],
  ['textarea', /<\/textarea\s*>/gi],
]);

const JSON_LD = /\btype\s*=\s*["']?application\/ld\+json/i;

/** Block-level tags: whitespace between two of them never renders. */
const BLOCK_TAGS = new Set([
  'html',
  'head',
  'body',
  'title',
  'meta',
  'link',
  'div',
  'p',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'section',
  'article',
  'header',
  'footer',
  'nav',
  'aside',
  'main',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'form',
  'fieldset',
  'figure',
  'figcaption',
  'blockquote',
  'hr',
  'br',
  'option',
  'select',
]);

function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13 || code === 12;
}

/** Whether a block tag, `<pre>`, or markup cut anyway (a comment, script, style, SVG) starts at `at`. */
function startsBlock(html: string, at: number): boolean {
  if (html.startsWith('<!--', at)) return true;
  const name = tagNameAt(html, at);
  return name !== undefined && (BLOCK_TAGS.has(name) || INERT_ENDS.has(name) || name === 'pre');
}

const NAVIGATION_ROLE = /\brole\s*=\s*["']?navigation["'\s/>]/i;
const MAIN_ROLE = /\brole\s*=\s*["']?main["'\s/>]/i;

/**
 * A navigation block being cut: a `<nav>` or an element with `role="navigation"`, which every profile removes
 * as chrome. Cut before the parse, its menus (often a fifth of a large page's nodes) cost nothing later.
 */
interface NavigationCut {
  /** How many parts of the result precede the block. */
  readonly partsBefore: number;
  /** Elements open inside the block, the block itself first. */
  readonly open: string[];
}

/**
 * Whether a tag inside a navigation block makes it no cut: the page's main landmark inside it (a site
 * wrapping its page in navigation; the later stages keep such a block too).
 */
function holdsMain(name: string, text: () => string): boolean {
  return name === 'main' || MAIN_ROLE.test(text());
}

/**
 * The HTML without scripts (other than JSON-LD), styles, SVG, comments and navigation blocks, and without
 * whitespace between block tags (`<pre>` and `<textarea>` keep theirs). Each element ends where an HTML
 * parser ends it (`</script`, `</style`, `-->`), and whichever starts first wins, as in a parser: a `<!--`
 * inside a script is script text, a `<style>` inside a comment is comment text. A navigation block is kept
 * whole when it holds the main landmark, when an end tag inside it closes an element opened before it (the
 * parser would end the block there, and what follows is not navigation), or when it never ends.
 */
export function withoutInertMarkup(html: string): string {
  const parts: string[] = [];
  let copiedUpTo = 0;
  let navigation: NavigationCut | undefined;
  const copy = (until: number): void => {
    if (until > copiedUpTo) parts.push(html.slice(copiedUpTo, until));
  };
  let at = html.indexOf('<');
  while (at !== -1) {
    if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      if (end !== -1) {
        copy(at);
        copiedUpTo = end + 3;
      }
      at = html.indexOf('<', end === -1 ? at + 1 : copiedUpTo);
      continue;
    }
    const tag = tagAt(html, at);
    if (!tag) {
      at = html.indexOf('<', at + 1);
      continue;
    }
    const name = tag.name;
    let next = tag.end;
    const isStart = !tag.isEnd;
    /** The whole tag's text, read only by the few rules that look at its attributes. */
    const text = (): string => html.slice(at, tag.end);
    const inertEnd = isStart ? INERT_ENDS.get(name) : undefined;
    const preformattedEnd = isStart ? PREFORMATTED_ENDS.get(name) : undefined;
    const end = inertEnd ?? preformattedEnd;
    if (navigation) {
      if (isStart ? holdsMain(name, text) : !closesInside(navigation.open, name)) navigation = undefined;
      else if (isStart && !end && !HTML_VOID_TAGS.has(name) && html.charCodeAt(tag.end - 2) !== 47) {
        navigation.open.push(name);
      } else if (navigation.open.length === 0) {
        parts.length = navigation.partsBefore;
        copiedUpTo = next;
        navigation = undefined;
      }
    } else if (isStart && !end && (name === 'nav' || NAVIGATION_ROLE.test(text()))) {
      if (!HTML_VOID_TAGS.has(name)) {
        copy(at);
        copiedUpTo = at;
        navigation = { partsBefore: parts.length, open: [name] };
      }
    }
    if (end) {
      end.lastIndex = next;
      const close = end.exec(html);
      if (close) {
        next = close.index + close[0].length;
        if (inertEnd && !(name === 'script' && JSON_LD.test(text()))) {
          copy(at);
          copiedUpTo = next;
        }
      }
    } else if (BLOCK_TAGS.has(name)) {
      let gapEnd = next;
      while (gapEnd < html.length && isWhitespace(html.charCodeAt(gapEnd))) gapEnd++;
      if (gapEnd > next && startsBlock(html, gapEnd)) {
        copy(next);
        copiedUpTo = gapEnd;
      }
      next = gapEnd;
    }
    at = html.indexOf('<', next);
  }
  copy(html.length);
  return parts.join('');
}

/**
 * Closes the innermost element named `name` among those open inside a navigation block (and the ones opened
 * after it, left open). False when none is: the end tag belongs to an element opened before the block.
 */
function closesInside(open: string[], name: string): boolean {
  const index = open.lastIndexOf(name);
  if (index === -1) return false;
  open.length = index;
  return true;
}
