/**
 * What a crawler needs from an HTML page besides its content: the links it may follow, and the page's
 * own robots directives (`<meta name="robots">`, `X-Robots-Tag`).
 */
import { parseLiteDocument } from '../pipeline/extract/lite-dom.ts';

/** Links and robots directives of one page. */
export interface PageLinks {
  /** Absolute http(s) URLs of `<a href>` / `<area href>` without `rel="nofollow"`, fragments removed, in order. */
  readonly links: readonly string[];
  /** The page asks not to be indexed (`noindex` or `none`). */
  readonly noindex: boolean;
  /** The page asks that its links not be followed (`nofollow` or `none`). */
  readonly nofollow: boolean;
}

/** Directives of a robots meta tag or `X-Robots-Tag` value that apply to every crawler or to ours. */
function parseRobotsDirectives(values: readonly string[], userAgentToken: string): Set<string> {
  const directives = new Set<string>();
  for (const value of values) {
    for (const part of value.toLowerCase().split(',')) {
      let directive = part.trim();
      // `X-Robots-Tag: otherbot: noindex` applies only to that bot.
      const scoped = /^([a-z0-9_-]+)\s*:\s*(.+)$/.exec(directive);
      if (
        scoped &&
        !['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'].includes(scoped[1]!)
      ) {
        if (scoped[1] !== userAgentToken) continue;
        directive = scoped[2]!.trim();
      }
      directives.add(directive);
    }
  }
  return directives;
}

/**
 * Reads links and robots directives from decoded HTML.
 *
 * @param html decoded page text
 * @param pageUrl final URL of the page (a `<base href>` in the page wins for resolving links)
 * @param robotsHeader the `X-Robots-Tag` response header, if any
 * @param userAgentToken lower-case product token of our user agent, for meta tags addressed to a bot by name
 */
export function readPageLinks(
  html: string,
  pageUrl: string,
  robotsHeader = '',
  userAgentToken = 'citewise',
): PageLinks {
  const document = parseLiteDocument(html);
  const metaValues = [...document.querySelectorAll('meta[name]')]
    .filter((meta) => {
      const name = (meta.getAttribute('name') ?? '').trim().toLowerCase();
      return name === 'robots' || name === userAgentToken;
    })
    .map((meta) => meta.getAttribute('content') ?? '');
  const directives = parseRobotsDirectives([...metaValues, robotsHeader], userAgentToken);
  const noindex = directives.has('noindex') || directives.has('none');
  const nofollow = directives.has('nofollow') || directives.has('none');

  let base = pageUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref && URL.canParse(baseHref, pageUrl)) base = new URL(baseHref, pageUrl).href;

  const links: string[] = [];
  const seen = new Set<string>();
  if (!nofollow) {
    for (const anchor of document.querySelectorAll('a[href], area[href]')) {
      const rel = (anchor.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('nofollow')) continue;
      const href = (anchor.getAttribute('href') ?? '').trim();
      if (href === '' || href.startsWith('#') || !URL.canParse(href, base)) continue;
      const url = new URL(href, base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      links.push(url.href);
    }
  }
  return { links, noindex, nofollow };
}
