/**
 * Pruning before the parse. Parsing is the most expensive stage of extraction, and much of a page can never
 * be content: scripts, inline styles, SVG icons and comments are often most of its bytes, and the whitespace
 * between block tags is as many text nodes again as a pretty-printed page has elements, each one walked by
 * every later stage. One scan from tag to tag cuts both (one regular expression per kind rescans the whole
 * page each time; V8 is many times slower still over the pieced-together result of an earlier replace).
 */

/** A start or end tag: `$1` is `/` for an end tag, `$2` the name. */
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>/y;

/** Just the name of the tag at a position. */
const TAG_NAME = /<\/?([a-zA-Z][a-zA-Z0-9-]*)(?![\w])/y;

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
  TAG_NAME.lastIndex = at;
  const name = TAG_NAME.exec(html)?.[1]?.toLowerCase();
  return name !== undefined && (BLOCK_TAGS.has(name) || INERT_ENDS.has(name) || name === 'pre');
}

/** Elements without an end tag: never open inside a navigation block. */
const VOID_TAGS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

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
function holdsMain(name: string, tag: string): boolean {
  return name === 'main' || MAIN_ROLE.test(tag);
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
    TAG.lastIndex = at;
    const tag = TAG.exec(html);
    if (!tag) {
      at = html.indexOf('<', at + 1);
      continue;
    }
    const name = tag[2]!.toLowerCase();
    let next = at + tag[0].length;
    const isStart = tag[1] === '';
    const inertEnd = isStart ? INERT_ENDS.get(name) : undefined;
    const preformattedEnd = isStart ? PREFORMATTED_ENDS.get(name) : undefined;
    const end = inertEnd ?? preformattedEnd;
    if (navigation) {
      if (isStart ? holdsMain(name, tag[0]) : !closesInside(navigation.open, name)) navigation = undefined;
      else if (isStart && !end && !VOID_TAGS.has(name) && !tag[0].endsWith('/>')) navigation.open.push(name);
      else if (navigation.open.length === 0) {
        parts.length = navigation.partsBefore;
        copiedUpTo = next;
        navigation = undefined;
      }
    } else if (isStart && !end && (name === 'nav' || NAVIGATION_ROLE.test(tag[0]))) {
      if (!VOID_TAGS.has(name)) {
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
        if (inertEnd && !(name === 'script' && JSON_LD.test(tag[0]))) {
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
