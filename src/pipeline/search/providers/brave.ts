/**
 * Brave Search API, web search.
 *
 * Wire format follows Brave's API reference "Web search" (api-dashboard.search.brave.com/app/documentation/
 * web-search/get-started and /api-reference/web/search/get):
 * `GET https://api.search.brave.com/res/v1/web/search?q=..&count=1..20&country=..&search_lang=..&safesearch=..
 * &freshness=pd|pw|pm|py|YYYY-MM-DDtoYYYY-MM-DD&extra_snippets=true` with headers `Accept: application/json`
 * and `X-Subscription-Token: <key>`. Success: `{ type: "search", query, web?: { results: [{ title, url,
 * description, age?, page_age?, extra_snippets? }] } }` (`web` is absent when there are no web results).
 * Errors: `{ type: "ErrorResponse", error: { id, status, code, detail, meta } }` (the reference's examples also
 * show `errors: [...]`, both are read); an invalid key is a 422 with code `SUBSCRIPTION_TOKEN_INVALID`, limits
 * are 429 with code `RATE_LIMITED` (per-second) or `QUOTA_LIMITED` (monthly) and `X-RateLimit-Reset` giving
 * seconds until each window resets, e.g. `1, 1419704`.
 */
import type { SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { SearchProviderError } from './errors.ts';
import { joinUrl, requireOneOf, resolveKeyedProvider, type HttpProviderOptions } from './http-options.ts';
import { parseJsonObject, sendProviderRequest, type ProviderResponse } from './request.ts';
import { parseRetryAfter } from '../../../text/retry-after.ts';
import { quotaError, rateLimitedError, redact } from './http-errors.ts';
import { expectArray, expectObject, mapResultsWithUrl, stringField } from './results.ts';
import { toDay, toIsoDate } from './dates.ts';
import { htmlToText } from './html-text.ts';
import { withSiteOperators } from '../filters.ts';

/** Options of {@link createBraveProvider}. */
export interface BraveProviderOptions extends HttpProviderOptions {
  /** Brave Search API subscription token (sent as `X-Subscription-Token`). */
  readonly apiKey: string;
  /** @default 'https://api.search.brave.com' */
  readonly baseUrl?: string;
  /** Two-letter country of the results (`country=`); overrides `filters.country`. @default filters.country, else Brave's default (US) */
  readonly country?: string;
  /** Language of the results (`search_lang=`); overrides `filters.language`. @default filters.language, else Brave's default (en) */
  readonly searchLang?: string;
  /** @default Brave's default ('moderate') */
  readonly safesearch?: 'off' | 'moderate' | 'strict';
  /** Ask for up to 5 extra excerpts per result (plan-dependent); they are appended to the snippet. @default true */
  readonly extraSnippets?: boolean;
}

const ID = 'brave';
const LABEL = 'Brave Search';
/** Documented maximum of `count` for web search. */
const MAX_RESULTS = 20;

interface BraveError {
  readonly code?: string;
  readonly detail?: string;
}

function readBraveError(text: string): BraveError {
  try {
    const body = JSON.parse(text) as { error?: BraveError; errors?: BraveError[] };
    return body.error ?? body.errors?.[0] ?? {};
  } catch {
    return {};
  }
}

/** `X-RateLimit-Reset: 1, 1419704` → ms until the shortest window resets. */
function rateLimitResetMs(headers: Headers): number | undefined {
  const value = headers.get('x-ratelimit-reset');
  if (!value) return undefined;
  const seconds = value
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((n) => Number.isFinite(n) && n >= 0);
  return seconds.length > 0 ? Math.min(...seconds) * 1000 : undefined;
}

function describeBraveError(
  response: ProviderResponse,
  secrets: readonly string[],
): SearchProviderError | undefined {
  const { code, detail } = readBraveError(response.text);
  const suffix = [code, detail && redact(detail, secrets)].filter(Boolean).join(': ');
  const tail = suffix ? `: ${suffix}` : '';
  if (
    code === 'SUBSCRIPTION_TOKEN_INVALID' ||
    code === 'SUBSCRIPTION_TOKEN_MISSING' ||
    response.status === 401 ||
    response.status === 403
  ) {
    return new SearchProviderError(ID, 'auth', `${LABEL} rejected the API key (${response.status})${tail}`, {
      httpStatus: response.status,
    });
  }
  if (response.status === 429 && code === 'QUOTA_LIMITED') {
    return quotaError(
      ID,
      LABEL,
      "the plan's monthly quota is used up",
      429,
      suffix,
      rateLimitResetMs(response.headers),
    );
  }
  if (response.status === 429) {
    const retryAfterMs =
      parseRetryAfter(response.headers.get('retry-after')) ?? rateLimitResetMs(response.headers);
    return rateLimitedError(ID, LABEL, response, tail, retryAfterMs);
  }
  return undefined;
}

/** Creates a {@link SearchProvider} backed by the Brave Search API. */
export function createBraveProvider(options: BraveProviderOptions): SearchProvider {
  const { http, apiKey, baseUrl } = resolveKeyedProvider(LABEL, options, 'https://api.search.brave.com');
  requireOneOf(LABEL, 'safesearch', options.safesearch, ['off', 'moderate', 'strict']);
  const extraSnippets = options.extraSnippets ?? true;

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const filters = query.filters;
      const url = joinUrl(baseUrl, 'res/v1/web/search');
      url.searchParams.set('q', withSiteOperators(query.query, filters));
      url.searchParams.set('count', String(limit));
      const country = options.country ?? filters?.country;
      if (country) url.searchParams.set('country', country.toUpperCase());
      // Brave's search_lang is an enum (en, de, zh-hans, pt-br, ...): a filter such as `en-US` is reduced to
      // its primary subtag; the explicit option is sent as given.
      const searchLang = options.searchLang ?? filters?.language?.split(/[-_]/)[0];
      if (searchLang) url.searchParams.set('search_lang', searchLang.toLowerCase());
      if (options.safesearch) url.searchParams.set('safesearch', options.safesearch);
      const from = toDay(filters?.fromDate);
      const to = toDay(filters?.toDate);
      if (from || to) {
        url.searchParams.set(
          'freshness',
          `${from ?? '1970-01-01'}to${to ?? new Date().toISOString().slice(0, 10)}`,
        );
      }
      if (extraSnippets) url.searchParams.set('extra_snippets', 'true');

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url,
        headers: { accept: 'application/json', 'x-subscription-token': apiKey },
        signal: call.signal,
        secrets: [apiKey],
        describeError: (res) => describeBraveError(res, [apiKey]),
      });
      const body = parseJsonObject(ID, LABEL, response);
      if (body.web === undefined) {
        if (body.type === 'search') return [];
        throw new SearchProviderError(ID, 'bad_response', `${LABEL} answered without a web section`);
      }
      const web = expectObject(ID, LABEL, body.web);
      const results = expectArray(ID, LABEL, web.results, 'web.results');

      return mapResultsWithUrl(results, 'url', (record, url) => {
        const description = stringField(record, 'description');
        const extras = Array.isArray(record.extra_snippets)
          ? record.extra_snippets.filter((s): s is string => typeof s === 'string')
          : [];
        const snippet = [description, ...extras]
          .filter((s): s is string => Boolean(s))
          .map(htmlToText)
          .join('\n');
        return {
          url,
          title: htmlToText(stringField(record, 'title') ?? url),
          snippet: snippet || undefined,
          // `page_age` is a date; `age` is often relative ("3 days ago") and then ignored.
          publishedAt: toIsoDate(stringField(record, 'page_age')) ?? toIsoDate(stringField(record, 'age')),
          provider: ID,
        };
      });
    },
  );
}
