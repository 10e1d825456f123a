/** Page metadata read before Readability mutates the document: meta tags, JSON-LD, `<time>`, `<link>`. */
import { mayLeadToAuthorPage, MONTH } from './byline.ts';
import { descendantElements } from './dom.ts';

/** Metadata found in a page's markup. */
export interface PageMetadata {
  readonly title?: string;
  readonly lang?: string;
  readonly publishedAt?: string;
  readonly canonicalUrl?: string;
  readonly byline?: string;
  readonly siteName?: string;
  /** `articleBody` of a JSON-LD article, when present. */
  readonly articleBody?: string;
  /** schema.org types named in JSON-LD and microdata `itemtype` (used to tell page types apart). */
  readonly schemaTypes: ReadonlySet<string>;
  /** `og:type`, lower-cased. */
  readonly ogType?: string;
  /**
   * Items typed `Product` or `ProductGroup` (top-level, `@graph` and `mainEntity` JSON-LD nodes, microdata
   * elements): one on a product page, one per card on a category page that marks its cards.
   */
  readonly productItems: number;
}

const ARTICLE_TYPES =
  /^(?:Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|ReportageNewsArticle|OpinionNewsArticle|ReviewNewsArticle|BackgroundNewsArticle|LiveBlogPosting|SocialMediaPosting|WebPage|Review)$/;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) return asText(value[0]);
  if (isObject(value)) return asText(value.name);
  return undefined;
}

function typesOf(node: JsonObject): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
}

const PRODUCT_TYPE = /^(?:Product|ProductGroup)$/;

/** The schema.org types of a page's structured-data items (JSON-LD nodes and microdata elements). */
class SchemaItems {
  readonly types = new Set<string>();
  /** Items typed `Product` or `ProductGroup`. */
  productItems = 0;

  /** Records one item's type names (without the schema.org prefix). */
  add(names: readonly string[]): void {
    for (const name of names) this.types.add(name);
    if (names.some((name) => PRODUCT_TYPE.test(name))) this.productItems++;
  }
}

/** Article-like JSON-LD objects, articles first, then web pages; every node's types are added to `items`. */
function jsonLdArticles(scripts: readonly Element[], items: SchemaItems): JsonObject[] {
  const found: JsonObject[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    if (!isObject(value)) return;
    const types = typesOf(value);
    items.add(types.map((type) => type.replace(/^(?:https?:\/\/schema\.org\/|schema:)/, '')));
    if (types.some((type) => ARTICLE_TYPES.test(type))) found.push(value);
    if ('@graph' in value) visit(value['@graph'], depth + 1);
    if (isObject(value.mainEntity)) visit(value.mainEntity, depth + 1);
  };
  for (const script of scripts) {
    try {
      // Some sites wrap JSON-LD in CDATA or comments.
      const json = (script.textContent ?? '').replace(
        /^\s*(?:<!--|\/\/<!\[CDATA\[)|(?:-->|\/\/\]\]>)\s*$/g,
        '',
      );
      visit(JSON.parse(json), 0);
    } catch {
      // Invalid JSON-LD is common; it simply contributes nothing.
    }
  }
  const rank = (node: JsonObject): number =>
    typesOf(node).some((t) => t !== 'WebPage' && t !== 'Review') ? 0 : 1;
  return found.sort((a, b) => rank(a) - rank(b));
}

/** Every `<meta>` content keyed by lower-cased `property`, `name`, `itemprop` and `http-equiv` (first wins). */
function collectMeta(metaElements: readonly Element[]): Map<string, string> {
  const meta = new Map<string, string>();
  for (const element of metaElements) {
    const content = element.getAttribute('content')?.trim();
    if (!content) continue;
    for (const attribute of ['property', 'name', 'itemprop', 'http-equiv']) {
      const key = element.getAttribute(attribute)?.trim().toLowerCase();
      if (key && !meta.has(key)) meta.set(key, content);
    }
  }
  return meta;
}

function firstOf(meta: ReadonlyMap<string, string>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = meta.get(key);
    if (value) return value;
  }
  return undefined;
}

/**
 * The time zone a date is written in, at its end: `Z`, `GMT` or `UTC` (0), or an offset such as `+02:00`,
 * `-0700` or `GMT+0200`, in minutes east of UTC.
 */
const TRAILING_ZONE = /(?:\b(?:GMT|UTC)|\dZ)$|(?:\b(?:GMT|UTC)|[\d\s])([+-])(\d{2}):?(\d{2})$/i;

/** Minutes east of UTC of the zone written at the end of `date`, or undefined when it names none. */
export function writtenZoneOffset(date: string): number | undefined {
  // A zone's name in parentheses after it, as JavaScript writes dates: "GMT+0200 (Central European Summer Time)".
  const match = TRAILING_ZONE.exec(date.replace(/\s*\([^()]*\)$/, ''));
  if (!match) return undefined;
  if (!match[1]) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/** Years a web page's date can be in: others are placeholders (1970, 0001) or typos. */
function isPlausibleYear(year: number): boolean {
  return year >= 1990 && year <= 2100;
}

/** `+02:00` for 120 minutes east of UTC, `Z` for none. */
function offsetSuffix(minutes: number): string {
  if (minutes === 0) return 'Z';
  const absolute = Math.abs(minutes);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/**
 * ISO 8601 when the date parses; otherwise undefined (never a guess). The date and time stay the ones the page
 * wrote, in its own zone (`2023-05-02T22:00:00-07:00` is May 2 where it was published, May 3 in UTC): with
 * that zone's offset, `Z` for UTC, and without a zone when the page gave none, rather than one invented.
 */
export function normalizeDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const time = Date.parse(trimmed);
  if (Number.isNaN(time)) return undefined;
  // A date alone stays a date: no time or zone is invented.
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed))
    return isPlausibleYear(Number(trimmed.slice(0, 4))) ? trimmed : undefined;
  const offset = writtenZoneOffset(trimmed);
  // A date without a zone is parsed as this machine's local time: its local fields are the ones written.
  const wallClock = new Date(
    offset === undefined ? time - new Date(time).getTimezoneOffset() * 60_000 : time + offset * 60_000,
  );
  if (!isPlausibleYear(wallClock.getUTCFullYear())) return undefined;
  const iso = wallClock.toISOString().slice(0, -1);
  return offset === undefined ? iso : iso + offsetSuffix(offset);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME = `(${MONTH})`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
/** "October 8, 2025", "Aug 04, 2025", "February 9th, 2024". */
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH_NAME}\\s+${DAY},?\\s+(\\d{4})\\b`, 'i');
/** "22 June 2020", "18th Dec 2025". */
const DAY_MONTH_YEAR = new RegExp(`\\b${DAY}\\s+${MONTH_NAME},?\\s+(\\d{4})\\b`, 'i');
/** "2025-04-29", "2025/4/29": year first, so never ambiguous between days and months. */
const YEAR_MONTH_DAY = /\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b/;

/** `YYYY-MM-DD` when the day exists in that month of a plausible year. */
function calendarDate(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (!isPlausibleYear(year) || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  return date.toISOString().slice(0, 10);
}

/**
 * The first date written out in a text, as `YYYY-MM-DD`: with an English month name ("Published on June 4,
 * 2025", "18th Dec 2025") or year first ("2025/4/29"). A `<time>` element without `datetime` gives its date
 * this way (HTML reads its text as its value). Numeric dates with the day or month first are not read:
 * "04/05/2025" is April or May depending on the site.
 */
export function writtenDate(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const monthFirst = MONTH_DAY_YEAR.exec(text);
  const dayFirst = DAY_MONTH_YEAR.exec(text);
  const named = [monthFirst, dayFirst]
    .filter((match): match is RegExpExecArray => match !== null)
    .sort((a, b) => a.index - b.index)[0];
  const numeric = YEAR_MONTH_DAY.exec(text);
  if (numeric && (!named || numeric.index < named.index)) {
    return calendarDate(Number(numeric[1]), Number(numeric[2]), Number(numeric[3]));
  }
  if (!named) return undefined;
  const [monthName, day] = named === monthFirst ? [named[1]!, named[2]!] : [named[2]!, named[1]!];
  const month = MONTHS.indexOf(monthName.slice(0, 3).toLowerCase()) + 1;
  return calendarDate(Number(named[3]), month, Number(day));
}

function resolveUrl(value: string | undefined | null, base: string): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The elements metadata is read from, found in one walk over the document (cheaper than a query each). */
interface MetadataElements {
  readonly jsonLdScripts: Element[];
  readonly metas: Element[];
  /** Elements with an `itemtype` (microdata items). */
  readonly items: Element[];
  /** The `<h1>` elements: the page's headline is among them (see {@link readMetadata}). */
  readonly headlines: Element[];
  /** Links whose address mentions an author's page (`/author`, `/people/`...): the byline may be one. */
  readonly authorLinks: Element[];
  /** The first of each: `<base href>`, `<title>`, `<time datetime>`, `[itemprop=datePublished][datetime]`, `<link rel=canonical href>`. */
  base?: Element;
  title?: Element;
  time?: Element;
  datePublished?: Element;
  canonical?: Element;
  /** The first `<time>` without `datetime`: its text is its date. */
  writtenTime?: Element;
}

const CANONICAL_REL = /(?:^|\s)canonical(?:\s|$)/i;

function metadataElements(document: Document): MetadataElements {
  const found: MetadataElements = {
    jsonLdScripts: [],
    metas: [],
    items: [],
    headlines: [],
    authorLinks: [],
  };
  for (const element of descendantElements(document)) {
    switch (element.localName) {
      case 'script':
        if (element.getAttribute('type')?.trim().toLowerCase() === 'application/ld+json')
          found.jsonLdScripts.push(element);
        break;
      case 'meta':
        found.metas.push(element);
        break;
      case 'base':
        if (element.hasAttribute('href')) found.base ??= element;
        break;
      case 'title':
        found.title ??= element;
        break;
      case 'h1':
        found.headlines.push(element);
        break;
      case 'a':
        if (mayLeadToAuthorPage(element.getAttribute('href') ?? '')) found.authorLinks.push(element);
        break;
      case 'time':
        if (element.hasAttribute('datetime')) found.time ??= element;
        else found.writtenTime ??= element;
        break;
      case 'link':
        if (element.hasAttribute('href') && CANONICAL_REL.test(element.getAttribute('rel') ?? ''))
          found.canonical ??= element;
        break;
    }
    if (element.hasAttribute('itemtype')) found.items.push(element);
    if (element.getAttribute('itemprop') === 'datePublished' && element.hasAttribute('datetime'))
      found.datePublished ??= element;
  }
  return found;
}

/** The base URL for resolving links: `<base href>` resolved against the page URL. */
function baseUrlOf(base: Element | undefined, pageUrl: string): string {
  return resolveUrl(base?.getAttribute('href'), pageUrl) ?? pageUrl;
}

/**
 * Reads title, language, dates, canonical URL, byline, site name and JSON-LD article body, and the base
 * URL for resolving links (`<base href>` resolved against the page URL). `headlines` are the page's `<h1>`
 * elements and `authorLinks` its links to what may be an author's page, found in the same walk: they are read
 * once hidden ones are removed.
 */
export function readMetadata(
  document: Document,
  pageUrl: string,
): { metadata: PageMetadata; baseUrl: string; headlines: Element[]; authorLinks: Element[] } {
  const elements = metadataElements(document);
  const items = new SchemaItems();
  const articles = jsonLdArticles(elements.jsonLdScripts, items);
  for (const element of elements.items) {
    items.add(
      (element.getAttribute('itemtype') ?? '')
        .split(/\s+/)
        .flatMap((type) => /schema\.org\/([A-Za-z]+)/.exec(type)?.[1] ?? []),
    );
  }
  const meta = collectMeta(elements.metas);
  const fromJsonLd = (key: string): unknown =>
    articles.map((article) => article[key]).find((v) => v !== undefined);
  const html = document.documentElement;
  const lang =
    html?.getAttribute('lang')?.trim() ||
    html?.getAttribute('xml:lang')?.trim() ||
    firstOf(meta, ['content-language', 'og:locale'])?.replace('_', '-') ||
    undefined;
  const publishedAt =
    normalizeDate(
      firstOf(meta, [
        'article:published_time',
        'datepublished',
        'og:published_time',
        'pubdate',
        'publishdate',
        'dc.date',
        'dcterms.created',
        'date',
      ]),
    ) ??
    normalizeDate(asText(fromJsonLd('datePublished'))) ??
    normalizeDate(elements.datePublished?.getAttribute('datetime') ?? undefined) ??
    normalizeDate(elements.time?.getAttribute('datetime') ?? undefined) ??
    writtenDate(elements.writtenTime?.textContent);
  const canonicalUrl =
    resolveUrl(elements.canonical?.getAttribute('href'), pageUrl) ?? resolveUrl(meta.get('og:url'), pageUrl);
  const byline = firstOf(meta, ['author', 'article:author']) ?? asText(fromJsonLd('author'));
  const siteName = firstOf(meta, ['og:site_name', 'application-name']) ?? asText(fromJsonLd('publisher'));
  const title =
    firstOf(meta, ['og:title', 'twitter:title']) ??
    asText(fromJsonLd('headline')) ??
    (elements.title?.textContent?.trim() || undefined);
  const body = fromJsonLd('articleBody');
  const result: { -readonly [K in keyof PageMetadata]: PageMetadata[K] } = {
    schemaTypes: items.types,
    productItems: items.productItems,
  };
  const ogType = meta.get('og:type')?.trim().toLowerCase();
  if (ogType) result.ogType = ogType;
  if (title) result.title = title;
  if (lang) result.lang = lang;
  if (publishedAt) result.publishedAt = publishedAt;
  if (canonicalUrl) result.canonicalUrl = canonicalUrl;
  if (byline && !/^https?:/.test(byline)) result.byline = byline;
  if (siteName) result.siteName = siteName;
  if (typeof body === 'string' && body.trim()) result.articleBody = body.trim();
  return {
    metadata: result,
    baseUrl: baseUrlOf(elements.base, pageUrl),
    headlines: elements.headlines,
    authorLinks: elements.authorLinks,
  };
}
