/**
 * DuckDuckGo's HTML endpoint (keyless, no JavaScript), parsed with our small DOM (extract/lite-dom.ts).
 *
 * There is no published API for this endpoint; the shape follows the page DuckDuckGo serves today at
 * `https://html.duckduckgo.com/html/` (form `POST q=..&kl=<region>&df=<d|w|m|y>`): each organic result is a
 * `.result` block (ads carry `.result--ad`) holding `a.result__a` whose `href` is a redirect
 * `//duckduckgo.com/l/?uddg=<percent-encoded target>&rut=..`, and `.result__snippet`. An empty search shows
 * `.no-results`. When DuckDuckGo suspects a bot it serves an "anomaly" page instead (`.anomaly-modal`,
 * "Unfortunately, bots use DuckDuckGo too", often with HTTP 202 or 403): that is reported as `blocked`.
 * Being an unofficial endpoint, it may change or block automated clients at any time; prefer it as a
 * fallback behind an API-backed provider.
 */
import { parseLiteDocument, type LiteDocument, type LiteElement } from '../../extract/lite-dom.ts';
import type { SearchHit, SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { SearchProviderError } from './errors.ts';
import {
  DEFAULT_USER_AGENT,
  joinUrl,
  requireBaseUrl,
  resolveHttpOptions,
  type HttpProviderOptions,
} from './http-options.ts';
import { sendProviderRequest } from './request.ts';
import { parseRetryAfter } from '../../../text/retry-after.ts';
import { recencyOf, type Recency } from './dates.ts';
import { withSiteOperators } from '../filters.ts';

/** Options of {@link createDuckDuckGoProvider}. */
export interface DuckDuckGoProviderOptions extends HttpProviderOptions {
  /** @default 'https://html.duckduckgo.com' */
  readonly baseUrl?: string;
  /** Region (`kl`), e.g. `us-en`, `de-de`, `wt-wt` (no region). @default DuckDuckGo's default */
  readonly region?: string;
  /** @default DuckDuckGo's default (moderate) */
  readonly safesearch?: 'strict' | 'moderate' | 'off';
  /** @default 'citewise/0.1' */
  readonly userAgent?: string;
}

const ID = 'duckduckgo';
const LABEL = 'DuckDuckGo';
/** One HTML page holds about 10 organic results (more pages need a session token). */
const MAX_RESULTS = 30;
const SAFESEARCH_PARAM = { strict: '1', moderate: '-1', off: '-2' } as const;

/** DuckDuckGo's coarse date filter `df` for each recency window. */
const DATE_FILTER_PARAM: Readonly<Record<Recency, string>> = { day: 'd', week: 'w', month: 'm', year: 'y' };

/**
 * The target of a DuckDuckGo result link: unwraps `//duckduckgo.com/l/?uddg=<encoded>`; returns undefined for
 * ads (`/y.js`) and anything that is not http(s).
 */
export function unwrapDuckDuckGoHref(href: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  if (/(^|\.)duckduckgo\.com$/.test(parsed.hostname)) {
    if (parsed.pathname !== '/l/') return undefined;
    const target = parsed.searchParams.get('uddg');
    return target && /^https?:\/\//i.test(target) ? target : undefined;
  }
  return /^https?:$/.test(parsed.protocol) ? parsed.href : undefined;
}

function isAnomalyPage(document: LiteDocument, html: string): boolean {
  return (
    document.querySelector(
      '.anomaly-modal, .anomaly-modal__title, #challenge-form, form[action*="anomaly"]',
    ) !== null || /bots use DuckDuckGo too|anomaly-modal|challenge-form/i.test(html)
  );
}

function textOf(node: LiteElement | null): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Parses a DuckDuckGo HTML results page into hits; throws `blocked` on the anomaly (bot challenge) page. */
export function parseDuckDuckGoHtml(html: string): SearchHit[] {
  const document = parseLiteDocument(html);
  if (isAnomalyPage(document, html)) {
    throw new SearchProviderError(
      ID,
      'blocked',
      `${LABEL} served its bot challenge (anomaly) page instead of results`,
    );
  }
  const blocks = [...document.querySelectorAll('.result')].filter(
    (block) => !block.matches('.result--ad') && block.querySelector('a.result__a') !== null,
  );
  const hits: SearchHit[] = [];
  for (const block of blocks) {
    const link = block.querySelector('a.result__a');
    const url = unwrapDuckDuckGoHref(link?.getAttribute('href') ?? '');
    if (!url) continue;
    const snippet = textOf(block.querySelector('.result__snippet'));
    hits.push({ url, title: textOf(link) || url, snippet: snippet || undefined, provider: ID });
  }
  if (
    hits.length === 0 &&
    document.querySelector('.no-results, .results, #links, form[name="x"], input[name="q"]') === null
  ) {
    throw new SearchProviderError(ID, 'bad_response', `${LABEL} answered a page that is not a results page`);
  }
  return hits;
}

/** Creates a keyless {@link SearchProvider} over DuckDuckGo's HTML endpoint. */
export function createDuckDuckGoProvider(options: DuckDuckGoProviderOptions = {}): SearchProvider {
  const http = resolveHttpOptions(LABEL, options);
  const baseUrl = requireBaseUrl(LABEL, 'baseUrl', options.baseUrl ?? 'https://html.duckduckgo.com');
  if (options.safesearch !== undefined && !(options.safesearch in SAFESEARCH_PARAM)) {
    throw new RangeError(`${LABEL}: safesearch must be 'strict', 'moderate' or 'off'`);
  }
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const form = new URLSearchParams({ q: withSiteOperators(query.query, query.filters) });
      if (options.region) form.set('kl', options.region);
      if (options.safesearch) form.set('kp', SAFESEARCH_PARAM[options.safesearch]);
      const recency = recencyOf(query.filters?.fromDate);
      if (recency) form.set('df', DATE_FILTER_PARAM[recency]);

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url: joinUrl(baseUrl, 'html/'),
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
          'user-agent': userAgent,
        },
        body: form.toString(),
        signal: call.signal,
        // Any 4xx from a keyless HTML endpoint means "not for you right now", not a bad key.
        describeError: (res) =>
          res.status >= 400 && res.status < 500
            ? new SearchProviderError(
                ID,
                'blocked',
                `${LABEL} refused the request (${res.status}); the client is likely blocked`,
                {
                  httpStatus: res.status,
                  retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
                },
              )
            : undefined,
      });
      const hits = parseDuckDuckGoHtml(response.text);
      return hits;
    },
  );
}
