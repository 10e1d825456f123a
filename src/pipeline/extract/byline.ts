/**
 * The author's name out of a byline as pages write it: "By Jane Doe | Jan 2, 2025", "Written byJane Doe"
 * (the label and the name in elements side by side, their texts joined without a space), "Jane Doe\n\nUSA
 * TODAY", "Jane Doe, Staff WriterPublished on July 18". What is not a name ("The Author", "Full Bio",
 * "5 min read") is no byline.
 */

import { lowerCaseWords, siteOf } from './title.ts';

/** A label before the name: "By", "Written by", "Posted by", "Author:". */
const LABEL = /^(?:(?:written|posted|authored|reviewed|words)\s*by|by|author)(?::\s*|\s+)/i;
/** The same label glued to the name ("Written ByJane Doe"): followed by a capital, with no space. */
const GLUED_LABEL = /^(?:(?:Written|Posted|Authored|Reviewed|Words)\s*[Bb]y|By)(?=\p{Lu})/u;

/** A month's English name or abbreviation (a regular expression's source, no group). */
export const MONTH =
  '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?(?![a-z])';
const WEEKDAY =
  '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun)\\.?(?![a-z])';

/**
 * Where the name ends and the date or the story's details begin: a date ("Jan 2, 2025", "2025/4/29",
 * "12.03.2024"), "on <date>", "Published", "Updated", "Last updated", a reading time ("7 min read"),
 * "Advertiser Disclosure". Glued to the name ("PerumalPublished") or after a space or separator.
 */
const DETAILS = new RegExp(
  String.raw`(?:\s+on\s+(?=${MONTH}\s*\d)|[\s|•·,–—-]*(${WEEKDAY},?\s*(?=${MONTH}\s*\d|\d)|${MONTH}\s*\d{1,2}(?:st|nd|rd|th)?\b|\d{4}[/.-]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|(?:last\s+)?(?:published|updated|posted)\b|\d+\s*min(?:ute)?s?\s+read|advertiser disclosure))`,
  'giu',
);

/**
 * Where the details begin in `name`: the first {@link DETAILS} that starts a word, or that is glued to the
 * name as a new capitalised word ("PerumalPublished"), not one inside a word ("Montgomery 12").
 */
function detailsStart(name: string): number | undefined {
  for (const match of name.matchAll(DETAILS)) {
    const core = match[1];
    if (core === undefined) return match.index;
    const at = match.index + match[0].length - core.length;
    const before = name[at - 1] ?? ' ';
    const isGlued = /\p{Ll}/u.test(before) && /\p{Lu}/u.test(name[at] ?? '');
    if (!/\p{L}/u.test(before) || isGlued) return match.index;
  }
  return undefined;
}

/**
 * A role glued to the end of the name by the page's markup ("Stephen JesudunsinAI Writer", "Joe
 * KindnessFounder & CEO"): a lower-case letter, then, with no space, one of these words.
 */
const GLUED_ROLE =
  /(?<=\p{Ll})(?:AI|Senior|Junior|Staff|Contributing|Managing|Trending|Guest|Chief|Social|Writer|Editor|Author|Reporter|Contributor|Columnist|Expert|Founder|Verified|Journalist|Correspondent|Specialist|Strategist|Manager|Director|Analyst)\b/u;

/** Texts in the byline's place that name nobody. */
const NOT_A_NAME =
  /^(?:(?:the\s+)?author|about the author|full bio|profile|author'?s profile|by|\d+\s*min(?:ute)?s?(?:\s+read)?)$/i;

/** Characters a byline may have at most (eight authors fit): a longer text is a paragraph about one. */
const MAX_BYLINE_CHARACTERS = 200;

/** The author's name in `byline`, or undefined when it names nobody. */
export function authorName(byline: string | undefined): string | undefined {
  if (!byline) return undefined;
  let name = byline.trim().replace(LABEL, '').replace(GLUED_LABEL, '').trim();
  // The name's line, and the lines that go on with more names ("and Jonas Jaegermeyer").
  const lines = name
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  name = lines[0] ?? '';
  for (const line of lines.slice(1)) {
    if (!/^(?:and|&|,)\s/i.test(line)) break;
    name += ` ${line}`;
  }
  const details = detailsStart(name);
  // Starting with a date: the byline's place held the date, not a name.
  if (details === 0) return undefined;
  if (details !== undefined) name = name.slice(0, details);
  const role = GLUED_ROLE.exec(name);
  if (role) name = name.slice(0, role.index);
  name = name
    .replace(/[\s|•·,–—-]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (name === '' || name.length > MAX_BYLINE_CHARACTERS || NOT_A_NAME.test(name)) return undefined;
  // A profile link in the byline's place.
  if (/^https?:\/\//.test(name)) return undefined;
  return name;
}

/** Path segments under which sites keep their authors' pages. */
const AUTHOR_PAGES = '(?:authors?|writers?|people|staff|contributors?|profiles?|team)';
/** The path of an author's page on a site: `/authors/jane-doe`, `/people/jane-doe/`. */
const AUTHOR_PAGE_PATH = new RegExp(String.raw`/${AUTHOR_PAGES}/([^/?#]+)/?$`, 'i');
const AUTHOR_PAGES_IN_ADDRESS = new RegExp(String.raw`/${AUTHOR_PAGES}/`, 'i');

/** Whether a link's address may lead to an author's page (a cheap first look; see {@link authorFromProfileLink}). */
export function mayLeadToAuthorPage(href: string): boolean {
  return AUTHOR_PAGES_IN_ADDRESS.test(href);
}

/** A name has a few words; a longer link text is a sentence. */
const MAX_NAME_WORDS = 5;

/** Lower-cased words without accents: "López" is `lopez` in an address. */
function nameWords(text: string): string[] {
  return lowerCaseWords(text.normalize('NFD').replace(/\p{M}/gu, ''));
}

/**
 * The author named by a link to their page on the site, for an article without a byline: the first of
 * `links` (in document order) that leads to a page of the same site under an author path
 * ({@link AUTHOR_PAGE_PATH}) and whose text is the name in that URL ("Trevor Jackins" →
 * `/authors/trevor-jackins`: every word of the text in the last segment). Links to the author's page that
 * say something else ("View more posts", "Articles by Jane") name no one.
 */
export function authorFromProfileLink(links: readonly Element[], pageUrl: string): string | undefined {
  if (!URL.canParse(pageUrl)) return undefined;
  const site = siteOf(new URL(pageUrl).hostname);
  for (const link of links) {
    const href = link.getAttribute('href');
    if (!href || !URL.canParse(href, pageUrl)) continue;
    const target = new URL(href, pageUrl);
    const slug = AUTHOR_PAGE_PATH.exec(target.pathname)?.[1];
    if (!slug || siteOf(target.hostname) !== site) continue;
    let slugWords: Set<string>;
    try {
      slugWords = new Set(nameWords(decodeURIComponent(slug)));
    } catch {
      continue; // a malformed escape in the URL
    }
    const text = link.textContent ?? '';
    const words = nameWords(text);
    if (words.length === 0 || words.length > MAX_NAME_WORDS || !words.every((word) => slugWords.has(word)))
      continue;
    const name = authorName(text.replace(/\s+/g, ' ').trim());
    if (name) return name;
  }
  return undefined;
}
