/**
 * Wikipedia full-text search through the MediaWiki Action API (keyless), in any language edition.
 *
 * Wire format follows mediawiki.org "API:Search" (list=search) and "API:Errors and warnings":
 * `GET https://{lang}.wikipedia.org/w/api.php?action=query&list=search&srsearch=..&srlimit=1..500
 * &srprop=snippet|timestamp&format=json&formatversion=2` answers `{ batchcomplete, query: { searchinfo:
 * { totalhits }, search: [{ ns, title, pageid, snippet, timestamp }] } }`; `snippet` is HTML with
 * `<span class="searchmatch">` highlights. API errors come with HTTP 200 as `{ error: { code, info } }`
 * (`maxlag` and `ratelimited` mean "slow down"); the Wikimedia edge answers 429 with `Retry-After` to
 * clients that send too much. Page URLs are `https://{lang}.wikipedia.org/wiki/<Title_with_underscores>`.
 * The Wikimedia User-Agent policy (meta.wikimedia.org/wiki/User-Agent_policy) asks every client for a
 * descriptive User-Agent with contact information: set `userAgent`.
 */
import type { SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { SearchProviderError } from './errors.ts';
import {
  DEFAULT_USER_AGENT,
  requireBaseUrl,
  resolveHttpOptions,
  type HttpProviderOptions,
} from './http-options.ts';
import { parseJsonObject, sendProviderRequest } from './request.ts';
import { parseRetryAfter } from '../../../text/retry-after.ts';
import { expectArray, expectObject, mapResults, stringField } from './results.ts';
import { htmlToText } from './html-text.ts';
import { applyDomainFilters } from '../filters.ts';

/** Options of {@link createWikipediaProvider}. */
export interface WikipediaProviderOptions extends HttpProviderOptions {
  /** Language edition (subdomain), e.g. `en`, `de`, `simple`, `zh-yue`. @default 'en' */
  readonly language?: string;
  /** Action API endpoint. @default `https://{language}.wikipedia.org/w/api.php` */
  readonly apiUrl?: string;
  /** Prefix of article URLs. @default `https://{language}.wikipedia.org/wiki/` */
  readonly articleBaseUrl?: string;
  /**
   * User-Agent sent to Wikimedia. Their policy asks for the tool's name and a way to contact its operator,
   * e.g. `my-agent/1.0 (https://example.com/contact; ops@example.com) citewise/0.1`.
   * @default 'citewise/0.1'
   */
  readonly userAgent?: string;
}

const ID = 'wikipedia';
const LABEL = 'Wikipedia';
const MAX_RESULTS = 50;
const LANGUAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/** Article URL for a page title: spaces become underscores, the rest is percent-encoded as MediaWiki does. */
export function wikipediaArticleUrl(articleBaseUrl: string, title: string): string {
  const encoded = encodeURIComponent(title.replace(/ /g, '_'))
    .replace(/%2F/g, '/')
    .replace(/%3A/g, ':')
    .replace(/%2C/g, ',');
  return `${articleBaseUrl}${encoded}`;
}

/** Creates a keyless {@link SearchProvider} over Wikipedia's search. */
export function createWikipediaProvider(options: WikipediaProviderOptions = {}): SearchProvider {
  const http = resolveHttpOptions(LABEL, options);
  const language = (options.language ?? 'en').trim().toLowerCase();
  if (!LANGUAGE_PATTERN.test(language)) {
    throw new RangeError(`${LABEL}: language must be a Wikipedia subdomain such as 'en' or 'zh-yue'`);
  }
  const apiUrl = requireBaseUrl(
    LABEL,
    'apiUrl',
    options.apiUrl ?? `https://${language}.wikipedia.org/w/api.php`,
  );
  const articleBaseUrl = options.articleBaseUrl ?? `https://${language}.wikipedia.org/wiki/`;
  requireBaseUrl(LABEL, 'articleBaseUrl', articleBaseUrl);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      // Domain filters that rule out Wikipedia make the request pointless.
      if (applyDomainFilters([{ url: articleBaseUrl, title: '' }], query.filters).length === 0) return [];

      const url = new URL(apiUrl);
      url.searchParams.set('action', 'query');
      url.searchParams.set('list', 'search');
      url.searchParams.set('srsearch', query.query);
      url.searchParams.set('srlimit', String(limit));
      url.searchParams.set('srprop', 'snippet|timestamp');
      url.searchParams.set('format', 'json');
      url.searchParams.set('formatversion', '2');
      url.searchParams.set('utf8', '1');

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url,
        headers: { accept: 'application/json', 'user-agent': userAgent, 'api-user-agent': userAgent },
        signal: call.signal,
      });
      const body = parseJsonObject(ID, LABEL, response);
      if (body.error !== undefined) {
        const error = expectObject(ID, LABEL, body.error);
        const code = stringField(error, 'code') ?? 'unknown';
        const info = stringField(error, 'info') ?? '';
        if (code === 'maxlag' || code === 'ratelimited') {
          const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
          throw new SearchProviderError(
            ID,
            'rate_limited',
            `${LABEL} asked to slow down (${code})${retryAfterMs === undefined ? '' : `; retry after ${Math.ceil(retryAfterMs / 1000)} s`}`,
            { retryAfterMs },
          );
        }
        throw new SearchProviderError(
          ID,
          'bad_request',
          `${LABEL} API error ${code}${info ? `: ${info}` : ''}`,
        );
      }
      const results = expectArray(ID, LABEL, expectObject(ID, LABEL, body.query).search, 'query.search');

      return mapResults(results, (record) => {
        const title = stringField(record, 'title');
        if (!title) return undefined;
        const snippet = stringField(record, 'snippet');
        return {
          url: wikipediaArticleUrl(articleBaseUrl, title),
          title,
          snippet: snippet ? htmlToText(snippet) : undefined,
          provider: ID,
        };
      });
    },
  );
}
