/**
 * Serper: Google results as JSON.
 *
 * Wire format follows serper.dev's API playground/documentation (serper.dev/playground, "Search" endpoint):
 * `POST https://google.serper.dev/search` with header `X-API-KEY: <key>` and a JSON body
 * `{ q, num, gl?, hl?, tbs? }`. Success: `{ searchParameters, organic: [{ title, link, snippet, date?,
 * position, sitelinks? }], answerBox?, knowledgeGraph?, peopleAlsoAsk?, relatedSearches? }`.
 * Errors are JSON `{ "message": "...", "statusCode": n }`: 401/403 for a missing or invalid key,
 * 400 "Not enough credits" when the balance is used up, 429 when rate limited, 5xx on server errors.
 */
import type { SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { joinUrl, resolveKeyedProvider, type HttpProviderOptions } from './http-options.ts';
import { jsonPost, parseJsonObject, sendProviderRequest } from './request.ts';
import { extractErrorDetail, quotaError, redact } from './http-errors.ts';
import { expectArray, mapResultsWithUrl, stringField } from './results.ts';
import { toIsoDate } from './dates.ts';
import { withSiteOperators } from '../filters.ts';

/** Options of {@link createSerperProvider}. */
export interface SerperProviderOptions extends HttpProviderOptions {
  /** Serper API key, sent as `X-API-KEY`. */
  readonly apiKey: string;
  /** @default 'https://google.serper.dev' */
  readonly baseUrl?: string;
  /** Google country code (`gl`), e.g. `us`; overrides `filters.country`. @default filters.country, else Google's default */
  readonly gl?: string;
  /** Google interface language (`hl`), e.g. `en`; overrides `filters.language`. @default filters.language, else Google's default */
  readonly hl?: string;
}

const ID = 'serper';
const LABEL = 'Serper';
const MAX_RESULTS = 100;

/** `YYYY-MM-DD` → Google's `M/D/YYYY` for custom date ranges. */
function googleDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return undefined;
  const date = new Date(time);
  return `${date.getUTCMonth() + 1}/${date.getUTCDate()}/${date.getUTCFullYear()}`;
}

/** Creates a {@link SearchProvider} backed by the Serper Google Search API. */
export function createSerperProvider(options: SerperProviderOptions): SearchProvider {
  const { http, apiKey, baseUrl } = resolveKeyedProvider(LABEL, options, 'https://google.serper.dev');

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const filters = query.filters;
      const body: Record<string, unknown> = { q: withSiteOperators(query.query, filters), num: limit };
      const gl = options.gl ?? filters?.country;
      if (gl) body.gl = gl.toLowerCase();
      const hl = options.hl ?? filters?.language;
      if (hl) body.hl = hl.toLowerCase();
      const from = googleDate(filters?.fromDate);
      const to = googleDate(filters?.toDate);
      if (from || to) body.tbs = `cdr:1,cd_min:${from ?? ''},cd_max:${to ?? ''}`;

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url: joinUrl(baseUrl, 'search'),
        ...jsonPost(body, { 'x-api-key': apiKey }),
        signal: call.signal,
        secrets: [apiKey],
        describeError: (res) => {
          const detail = extractErrorDetail(res.text);
          if (res.status === 400 && detail && /credit/i.test(detail)) {
            return quotaError(ID, LABEL, 'credits exhausted', 400, redact(detail, [apiKey]));
          }
          return undefined;
        },
      });
      const answer = parseJsonObject(ID, LABEL, response);
      // Serper omits `organic` when Google has no organic results; `searchParameters` is always echoed.
      const organic =
        answer.organic === undefined && answer.searchParameters !== undefined
          ? []
          : expectArray(ID, LABEL, answer.organic, 'organic');

      return mapResultsWithUrl(organic, 'link', (record, url) => {
        return {
          url,
          title: stringField(record, 'title') ?? url,
          snippet: stringField(record, 'snippet'),
          publishedAt: toIsoDate(stringField(record, 'date')),
          provider: ID,
        };
      });
    },
  );
}
