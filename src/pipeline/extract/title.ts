/**
 * The page's own title without its site's name, or the headline the page shows. `<title>` and `og:title`
 * usually carry the site's name before or after the page's ("How to X | Acme", "Acme - How to X"): a source
 * list then shows the site twice and the page's title cut short. The name is recognised only when it is the
 * site's: its `og:site_name` (or JSON-LD publisher), or its host name. The document title is often written for
 * search engines ("Best Movers 2026 | Top 19 Companies") while the page shows its reader another headline: the
 * page's one `<h1>`, when it names the same thing, is the title a reader knows the page by.
 */

/** A separator between the page's title and the site's name: `|`, `-`, `–`, `—`, `·`, `•`, `»`, `/`, `::`. */
const SEPARATOR = /\s+(?:[|\-–—·•»/]|::)\s+/g;

/** Letters and digits only, lower-cased: "Accounting.com" and "accounting com" compare equal. */
function letters(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Lower-cased words (letters and digits). */
export function lowerCaseWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A site's host name without `www.`: `www.acme.com` and `acme.com` are one site. */
export function siteOf(host: string): string {
  return host.replace(/^www\./, '');
}

/** Second-level labels under which sites register their names (`example.co.uk`, `example.com.au`). */
const SHARED_SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu']);

/** A shorter name is too likely to be a word of the title itself. */
const MIN_NAME_LETTERS = 3;

/** The site's names as {@link letters}: its declared name, its host, and its host's registered label. */
function siteNames(siteName: string | undefined, host: string | undefined): string[] {
  const names: string[] = [];
  if (siteName) names.push(letters(siteName));
  if (host) {
    const labels = siteOf(host).split('.');
    names.push(letters(labels.join('.')));
    const registered = labels.length - (SHARED_SECOND_LEVEL.has(labels.at(-2) ?? '') ? 3 : 2);
    if (registered >= 0) names.push(letters(labels[registered]!));
  }
  return names.filter((name) => name.length >= MIN_NAME_LETTERS);
}

/**
 * `title` without the site's name and the separator next to it: from the first separator after which the
 * rest starts with the site's name ("Title | Acme", "Title — Acme Group - Consulting"), or the part before
 * the first separator when it is the site's name ("Acme | Title"). Unchanged on the site's home page, and
 * when neither holds or nothing would be left.
 */
export function titleWithoutSiteName(title: string, siteName: string | undefined, url: string): string {
  // Not a URL (a library caller's label): the declared name only.
  const page = URL.canParse(url) ? new URL(url) : undefined;
  // A site's home page, whose title is the site's own ("Acme - Online Therapy").
  if (page?.pathname === '/') return title;
  const names = siteNames(siteName, page?.hostname);
  if (names.length === 0) return title;
  const separators = [...title.matchAll(SEPARATOR)];
  for (const separator of separators) {
    const before = title.slice(0, separator.index).trim();
    const rest = letters(title.slice(separator.index + separator[0].length));
    if (letters(before) !== '' && names.some((name) => rest.startsWith(name))) return before;
  }
  const first = separators[0];
  if (first && names.includes(letters(title.slice(0, first.index)))) {
    const after = title.slice(first.index + first[0].length).trim();
    if (letters(after) !== '') return after;
  }
  return title;
}

/** A longer first-level heading is a paragraph set as a heading, not a headline. */
const MAX_HEADLINE_CHARACTERS = 200;

/**
 * A headline sharing fewer of its words with the document title is about something else: a section's
 * heading, a slogan, a greeting ("Welcome!").
 */
const MIN_HEADLINE_WORDS_IN_TITLE = 0.5;

/**
 * The page's headline, to be its title: its only first-level heading with text (`headlines`, whitespace
 * collapsed), when at most {@link MAX_HEADLINE_CHARACTERS} long, not the site's name (a logo set as `<h1>`),
 * and at least {@link MIN_HEADLINE_WORDS_IN_TITLE} of its words in the document `title` (already without the
 * site's name), or any headline when the page has no title. Undefined otherwise: pages with several `<h1>`
 * (one per card or section) keep their title.
 */
export function headlineTitle(
  headlines: readonly string[],
  title: string,
  siteName: string | undefined,
  url: string,
): string | undefined {
  const shown = headlines.filter((headline) => letters(headline) !== '');
  if (shown.length !== 1) return undefined;
  const headline = shown[0]!;
  if (headline.length > MAX_HEADLINE_CHARACTERS) return undefined;
  const host = URL.canParse(url) ? new URL(url).hostname : undefined;
  if (siteNames(siteName, host).includes(letters(headline))) return undefined;
  const titleWords = new Set(lowerCaseWords(title));
  if (titleWords.size === 0) return headline;
  const headlineWords = lowerCaseWords(headline);
  const shared = headlineWords.filter((word) => titleWords.has(word)).length;
  return shared >= MIN_HEADLINE_WORDS_IN_TITLE * headlineWords.length ? headline : undefined;
}
