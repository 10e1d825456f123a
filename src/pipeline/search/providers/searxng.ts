/**
 * SearXNG, the self-hosted metasearch engine, through its JSON output.
 *
 * Wire format follows the SearXNG documentation "Search API" (docs.searxng.org/dev/search_api.html) and
 * "settings.yml › search" (docs.searxng.org/admin/settings/settings_search.html):
 * `GET {base}/search?q=...&format=json[&categories=..&engines=..&language=..&safesearch=0|1|2&time_range=..&pageno=1]`
 * answers `{ query, number_of_results, results: [{ url, title, content, engine, score, publishedDate? }],
 * answers, suggestions, unresponsive_engines: [[engine, reason]] }`. An instance whose `search.formats` does
 * not list `json` answers 403 Forbidden to `format=json`.
 */
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { SearchProviderError } from './errors.ts';
import {
  DEFAULT_USER_AGENT,
  joinUrl,
  requireBaseUrl,
  requireOneOf,
  resolveHttpOptions,
  type HttpProviderOptions,
} from './http-options.ts';
import { parseJsonObject, sendProviderRequest } from './request.ts';
import { httpStatusError } from './http-errors.ts';
import { expectArray, mapResultsWithUrl, numberField, stringField } from './results.ts';
import { recencyOf, toIsoDate } from './dates.ts';
import { htmlToText } from './html-text.ts';
import { withSiteOperators } from '../filters.ts';

/** Options of {@link createSearxngProvider}. */
export interface SearxngProviderOptions extends HttpProviderOptions {
  /** Base URL of the instance, e.g. `http://localhost:8080` (a path prefix such as `/searx` is kept). */
  readonly baseUrl: string;
  /** Engines to query (`engines=`), e.g. `['google', 'bing']`. @default the instance's defaults */
  readonly engines?: readonly string[];
  /** Categories to query (`categories=`). @default ['general'] */
  readonly categories?: readonly string[];
  /** Search language (`language=`), e.g. `en`, `de-CH`; overrides `filters.language`. @default filters.language, else the instance default */
  readonly language?: string;
  /** Safe search level: 0 none, 1 moderate, 2 strict. @default the instance default */
  readonly safesearch?: 0 | 1 | 2;
  /** Extra request headers, e.g. `Authorization` for an instance behind an authenticating proxy. */
  readonly headers?: Readonly<Record<string, string>>;
  /** @default 'citewise/0.1' */
  readonly userAgent?: string;
  /**
   * Most result pages (`pageno=`) requested for one query. SearXNG has no result-count parameter: a page
   * holds what its engines returned (about 10 per engine). When the first page holds fewer results than
   * the query asks for (the pipeline asks for up to 40 when it reads deeper), pages 2…`pages` are requested
   * together. Each page is another request to the instance and to its engines. @default 1
   */
  readonly pages?: number;
}

const ID = 'searxng';
const LABEL = 'SearXNG';
/** SearXNG has no result-count parameter; one page holds about 10–20 results. */
const MAX_RESULTS = 100;
const MAX_PAGES = 10;

const JSON_DISABLED_MESSAGE =
  'SearXNG answered 403 Forbidden to format=json: JSON output is disabled on this instance. ' +
  'Add `json` to `search.formats` in settings.yml (search:\n  formats:\n    - html\n    - json) and restart SearXNG. ' +
  'If JSON is already enabled, the instance limiter/bot detection is refusing this client ' +
  '(set `server.limiter: false` or add this host to `botdetection` pass_ip).';

/** Defaults of {@link SearxngProviderOptions}. */
export const SEARXNG_DEFAULTS = { pages: 1 } as const;

/** Creates a {@link SearchProvider} backed by a SearXNG instance's JSON API. */
export function createSearxngProvider(options: SearxngProviderOptions): SearchProvider {
  const http = resolveHttpOptions(LABEL, options);
  const baseUrl = requireBaseUrl(LABEL, 'baseUrl', options.baseUrl);
  requireOneOf(LABEL, 'safesearch', options.safesearch, [0, 1, 2]);
  const pages = options.pages ?? SEARXNG_DEFAULTS.pages;
  if (!Number.isInteger(pages) || pages < 1 || pages > MAX_PAGES)
    throw new RangeError(`${LABEL}: pages must be an integer from 1 to ${MAX_PAGES}`);
  const engines = options.engines?.map((e) => e.trim()).filter(Boolean) ?? [];
  const categories = options.categories?.map((c) => c.trim()).filter(Boolean) ?? ['general'];
  const headers = {
    accept: 'application/json',
    'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
    ...options.headers,
  };

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const hits = await searchPage(query, 1, call);
      if (hits.length > 0 && hits.length < limit && pages > 1) {
        const more = await Promise.all(
          Array.from({ length: pages - 1 }, (_, i) =>
            // A later page that fails costs its results only; the first page already answered.
            searchPage(query, i + 2, call).catch((error: unknown) => {
              call.signal.throwIfAborted();
              if (error instanceof RangeError) throw error;
              return [];
            }),
          ),
        );
        hits.push(...more.flat());
      }
      return hits;
    },
  );

  async function searchPage(query: SearchQuery, page: number, call: CallOptions): Promise<SearchHit[]> {
    const url = joinUrl(baseUrl, 'search');
    url.searchParams.set('q', withSiteOperators(query.query, query.filters));
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', String(page));
    if (categories.length > 0) url.searchParams.set('categories', categories.join(','));
    if (engines.length > 0) url.searchParams.set('engines', engines.join(','));
    const language = options.language ?? query.filters?.language;
    if (language) url.searchParams.set('language', language);
    if (options.safesearch !== undefined) url.searchParams.set('safesearch', String(options.safesearch));
    // SearXNG's `time_range` takes the window names as they are.
    const timeRange = recencyOf(query.filters?.fromDate);
    if (timeRange) url.searchParams.set('time_range', timeRange);

    const response = await sendProviderRequest(http, {
      providerId: ID,
      label: LABEL,
      url,
      headers,
      signal: call.signal,
      describeError: (res) =>
        res.status === 403
          ? new SearchProviderError(ID, 'config', JSON_DISABLED_MESSAGE, { httpStatus: 403 })
          : // No API key here, so 401 means an auth proxy in front of the instance.
            res.status === 401
            ? httpStatusError(
                ID,
                LABEL,
                res,
                'the instance requires authentication (set the `headers` option)',
              )
            : undefined,
    });
    const body = parseJsonObject(ID, LABEL, response);
    const results = expectArray(ID, LABEL, body.results, 'results');

    const hits = mapResultsWithUrl(results, 'url', (record, url) => {
      const content = stringField(record, 'content');
      return {
        url,
        title: htmlToText(stringField(record, 'title') ?? url),
        snippet: content ? htmlToText(content) : undefined,
        publishedAt: toIsoDate(stringField(record, 'publishedDate')),
        score: numberField(record, 'score'),
        provider: ID,
      };
    });
    if (hits.length === 0 && page === 1) {
      // Every engine failing (CAPTCHA, timeouts) looks like "no results"; say what happened instead.
      const unresponsive = Array.isArray(body.unresponsive_engines) ? body.unresponsive_engines : [];
      if (unresponsive.length > 0) {
        const list = unresponsive
          .map((entry) => (Array.isArray(entry) ? entry.filter((x) => typeof x === 'string').join(': ') : ''))
          .filter(Boolean)
          .join(', ');
        throw new SearchProviderError(
          ID,
          'blocked',
          `SearXNG returned no results; its engines failed (${list})`,
        );
      }
    }
    return hits;
  }
}
