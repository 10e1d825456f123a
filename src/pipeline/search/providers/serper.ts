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
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../../types.ts';
import { SearchProviderError } from './errors.ts';
import {
  applyDomainFilters,
  clampLimit,
  expectArray,
  expectObject,
  extractErrorDetail,
  finalizeHits,
  joinUrl,
  parseJsonBody,
  redact,
  requireApiKey,
  requireBaseUrl,
  resolveHttpOptions,
  sendProviderRequest,
  stringField,
  toIsoDate,
  withSiteOperators,
  type HttpProviderOptions,
} from './http.ts';

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
  const http = resolveHttpOptions(LABEL, options);
  const apiKey = requireApiKey(LABEL, options.apiKey);
  const baseUrl = requireBaseUrl(LABEL, 'baseUrl', options.baseUrl ?? 'https://google.serper.dev');

  return {
    id: ID,
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      const limit = clampLimit(LABEL, query, MAX_RESULTS);
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
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(body),
        signal: call.signal,
        secrets: [apiKey],
        describeError: (res) => {
          const detail = extractErrorDetail(res.text);
          if (res.status === 400 && detail && /credit/i.test(detail)) {
            return new SearchProviderError(
              ID,
              'quota',
              `${LABEL} refused the request: credits exhausted (400): ${redact(detail, [apiKey])}`,
              { httpStatus: 400 },
            );
          }
          return undefined;
        },
      });
      const answer = expectObject(ID, LABEL, parseJsonBody(ID, LABEL, response));
      // Serper omits `organic` when Google has no organic results; `searchParameters` is always echoed.
      const organic =
        answer.organic === undefined && answer.searchParameters !== undefined
          ? []
          : expectArray(ID, LABEL, answer.organic, 'organic');

      const hits: SearchHit[] = [];
      for (const item of organic) {
        if (item === null || typeof item !== 'object') continue;
        const record = item as Record<string, unknown>;
        const url = stringField(record, 'link');
        if (!url) continue;
        hits.push({
          url,
          title: stringField(record, 'title') ?? url,
          snippet: stringField(record, 'snippet'),
          publishedAt: toIsoDate(stringField(record, 'date')),
          provider: ID,
        });
      }
      return finalizeHits(applyDomainFilters(hits, filters), limit);
    },
  };
}
