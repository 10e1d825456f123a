/**
 * Sitemaps (sitemaps.org protocol 0.9): `<urlset>` lists pages, `<sitemapindex>` lists further sitemaps.
 * Gzip-compressed sitemaps (`.xml.gz`) are inflated with a cap on the inflated size.
 */
import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';

/** A parsed sitemap. */
export interface Sitemap {
  readonly kind: 'urlset' | 'sitemapindex';
  /** `<loc>` values (trimmed, absolute http(s) only), in document order. */
  readonly urls: readonly string[];
}

/** The protocol's limit on an uncompressed sitemap. */
export const MAX_SITEMAP_BYTES = 52_428_800;

const GZIP_MAGIC = [0x1f, 0x8b];

/** True when the bytes start with the gzip signature. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

/**
 * Inflates gzip bytes, refusing output over `maxBytes`.
 * @throws RangeError when the inflated size exceeds `maxBytes`; Error when the data is corrupt.
 */
export function gunzipCapped(bytes: Uint8Array, maxBytes = MAX_SITEMAP_BYTES): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new RangeError(`gzip content inflates beyond ${maxBytes} bytes`, { cause: error });
    throw error;
  }
}

/** Cheap check on the first KiB: does this text open a `<urlset>` or `<sitemapindex>` document? */
export function looksLikeSitemap(text: string): boolean {
  const head = text
    .slice(0, 1024)
    .replace(/<\?xml[^>]*\?>/, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  return /^\s*<(?:[\w-]+:)?(?:urlset|sitemapindex)[\s>]/.test(head);
}

/** An XML element's name in lower case, without its namespace prefix (`image:loc` → `loc`). */
function bareName(name: string): string {
  return name.toLowerCase().replace(/^.*:/, '');
}

/**
 * The text of the first `<loc>` child of each entry (`<url>` or `<sitemap>`, by `kind`) of the document's root
 * element, in document order, read from htmlparser2's events in XML mode (entities decoded, CDATA sections
 * kept as text). `kind` is undefined when the root is neither `<urlset>` nor `<sitemapindex>`.
 */
function readLocs(text: string): { kind: Sitemap['kind'] | undefined; locs: string[] } {
  let kind: Sitemap['kind'] | undefined;
  let rootSeen = false;
  let rootClosed = false;
  let depth = 0;
  let inEntry = false;
  let locFound = false;
  let loc: string[] | undefined;
  const locs: string[] = [];
  const parser = new Parser(
    {
      onopentag(name) {
        depth++;
        if (depth === 1) {
          if (!rootSeen) {
            const rootName = bareName(name);
            if (rootName === 'urlset' || rootName === 'sitemapindex') kind = rootName;
          }
          rootSeen = true;
          return;
        }
        if (rootClosed || kind === undefined) return;
        if (depth === 2) {
          inEntry = bareName(name) === (kind === 'urlset' ? 'url' : 'sitemap');
          locFound = false;
        } else if (depth === 3 && inEntry && !locFound && bareName(name) === 'loc') {
          locFound = true;
          loc = [];
        }
      },
      ontext(data) {
        loc?.push(data);
      },
      onclosetag() {
        if (depth === 3 && loc) {
          locs.push(loc.join(''));
          loc = undefined;
        }
        if (depth === 1) rootClosed = true;
        depth--;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: true },
  );
  parser.write(text);
  parser.end();
  return { kind, locs };
}

/**
 * Parses a sitemap or sitemap index; `null` when the text is not one. Relative or non-http(s) `<loc>`
 * values are dropped (the protocol requires absolute URLs).
 */
export function parseSitemap(text: string): Sitemap | null {
  if (!looksLikeSitemap(text)) return null;
  const { kind, locs } = readLocs(text);
  if (kind === undefined) return null;
  const urls: string[] = [];
  for (const loc of locs) {
    const value = loc.trim();
    if (!URL.canParse(value)) continue;
    const { protocol } = new URL(value);
    if (protocol === 'http:' || protocol === 'https:') urls.push(value);
  }
  return { kind, urls };
}
