/**
 * URL canonicalisation: one key per page, so that the same page returned by several providers (or twice by
 * one) is counted once. The canonical form is a de-duplication key; hits keep the URL their provider gave.
 */

/** Query parameters that only track the click and never change the page. Compared lower-case. */
const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'fbclid',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'vero_conv',
  'wickedid',
  'rb_clickid',
  's_cid',
  'srsltid',
]);

/** Prefixes of tracking parameter families (Google Analytics `utm_*`, Piwik/Matomo `pk_*`, HubSpot `hsa_*`). */
const TRACKING_PREFIXES: readonly string[] = ['utm_', 'pk_', 'hsa_'];

/** True for a query parameter name that only tracks the visit. */
export function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return TRACKING_PARAMS.has(lower) || TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** True when `url` parses as an absolute `http:` or `https:` URL. */
export function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** RFC 3986 §6.2.2: upper-case percent-encodings and decode the ones that encode unreserved characters. */
function normalizePercentEncoding(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * Canonical form of an http(s) URL, used as a de-duplication key:
 * lower-case scheme and host (WHATWG parsing), no default port, no credentials, no fragment, no trailing dot on
 * the host, no tracking parameters (`utm_*`, `fbclid`, `gclid`, ...), remaining query parameters sorted by
 * name (stable, so repeated names keep their order), normalized percent-encoding, and no trailing slash
 * except for the root path. The path's case is kept: servers may treat it as significant.
 *
 * Anything that is not an absolute http(s) URL is returned trimmed but otherwise unchanged.
 *
 * @example canonicalizeUrl('HTTPS://Example.com:443/a/?utm_source=x&b=2&a=1#top') === 'https://example.com/a?a=1&b=2'
 */
export function canonicalizeUrl(url: string): string {
  const trimmed = url.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return trimmed;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return trimmed;

  parsed.hash = '';
  parsed.username = '';
  parsed.password = '';
  if (parsed.hostname.endsWith('.')) parsed.hostname = parsed.hostname.replace(/\.+$/, '');

  const params = parsed.searchParams;
  for (const name of [...params.keys()]) {
    if (isTrackingParam(name)) params.delete(name);
  }
  params.sort();
  // Assigning an empty string drops the bare "?" as well.
  parsed.search = params.size > 0 ? params.toString() : '';

  let path = normalizePercentEncoding(parsed.pathname);
  if (path.length > 1) path = path.replace(/\/+$/, '') || '/';
  parsed.pathname = path;
  return parsed.href;
}
