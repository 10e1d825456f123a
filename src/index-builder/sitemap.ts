/**
 * Sitemaps (sitemaps.org protocol 0.9): `<urlset>` lists pages, `<sitemapindex>` lists further sitemaps.
 * Gzip-compressed sitemaps (`.xml.gz`) are inflated with a cap on the inflated size.
 */
import { gunzipSync } from 'node:zlib';
import { DOMParser } from 'linkedom';

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

/**
 * Parses a sitemap or sitemap index; `null` when the text is not one. Relative or non-http(s) `<loc>`
 * values are dropped (the protocol requires absolute URLs).
 */
export function parseSitemap(text: string): Sitemap | null {
  if (!looksLikeSitemap(text)) return null;
  // linkedom's DOMParser is typed loosely; its XML documents are standard DOM documents.
  const document = new DOMParser().parseFromString(text, 'text/xml') as unknown as Document;
  const root: Element | null = document.documentElement;
  if (root === null) return null;
  const rootName = root.localName.toLowerCase().replace(/^.*:/, '');
  if (rootName !== 'urlset' && rootName !== 'sitemapindex') return null;
  const entryName = rootName === 'urlset' ? 'url' : 'sitemap';
  const urls: string[] = [];
  for (const entry of root.children) {
    if (entry.localName.toLowerCase().replace(/^.*:/, '') !== entryName) continue;
    const loc = [...entry.children].find(
      (child) => child.localName.toLowerCase().replace(/^.*:/, '') === 'loc',
    );
    const value = loc?.textContent?.trim() ?? '';
    if (!URL.canParse(value)) continue;
    const { protocol } = new URL(value);
    if (protocol === 'http:' || protocol === 'https:') urls.push(value);
  }
  return { kind: rootName, urls };
}
