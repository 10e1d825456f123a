/**
 * Tavily Search.
 *
 * Wire format follows Tavily's API reference "Tavily Search" (docs.tavily.com/documentation/api-reference/
 * endpoint/search) and its error table: `POST https://api.tavily.com/search` with
 * `Authorization: Bearer tvly-...` and a JSON body `{ query, max_results (0..20), search_depth, topic,
 * include_domains, exclude_domains, start_date, end_date (YYYY-MM-DD), include_raw_content, include_answer }`.
 * Success: `{ query, results: [{ title, url, content, score, raw_content?, published_date? }], response_time }`.
 * Errors carry `{ "detail": { "error": "..." } }`: 400 bad request, 401 missing/invalid key, 429 rate limit,
 * 432 plan usage limit, 433 pay-as-you-go limit, 500 server error. The key historically also went in the body
 * as `api_key`; that is available through `sendKeyInBody` for old deployments and proxies.
 */
import type { SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { joinUrl, requireOneOf, resolveKeyedProvider, type HttpProviderOptions } from './http-options.ts';
import { jsonPost, parseJsonObject, sendProviderRequest } from './request.ts';
import { extractErrorDetail, quotaError, redact } from './http-errors.ts';
import { expectArray, mapResultsWithUrl, numberField, stringField } from './results.ts';
import { toDay, toIsoDate } from './dates.ts';

/** Options of {@link createTavilyProvider}. */
export interface TavilyProviderOptions extends HttpProviderOptions {
  /** Tavily API key (`tvly-...`), sent as `Authorization: Bearer <key>`. */
  readonly apiKey: string;
  /** @default 'https://api.tavily.com' */
  readonly baseUrl?: string;
  /** Latency/relevance trade-off; `advanced` costs 2 credits. @default 'basic' */
  readonly searchDepth?: 'basic' | 'advanced' | 'fast' | 'ultra-fast';
  /** @default 'general' */
  readonly topic?: 'general' | 'news' | 'finance';
  /**
   * Ask Tavily for each page's cleaned full text; it becomes the hit's `content` and the pipeline skips the fetch.
   * @default false
   */
  readonly includeRawContent?: boolean | 'markdown' | 'text';
  /** Also send the key as `api_key` in the body (legacy API). @default false */
  readonly sendKeyInBody?: boolean;
}

const ID = 'tavily';
const LABEL = 'Tavily';
/** Documented maximum of `max_results`. */
const MAX_RESULTS = 20;

/** Creates a {@link SearchProvider} backed by the Tavily Search API. */
export function createTavilyProvider(options: TavilyProviderOptions): SearchProvider {
  const { http, apiKey, baseUrl } = resolveKeyedProvider(LABEL, options, 'https://api.tavily.com');
  const searchDepth = options.searchDepth ?? 'basic';
  requireOneOf(LABEL, 'searchDepth', searchDepth, ['basic', 'advanced', 'fast', 'ultra-fast']);
  const topic = options.topic ?? 'general';
  requireOneOf(LABEL, 'topic', topic, ['general', 'news', 'finance']);
  const includeRawContent = options.includeRawContent ?? false;

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const filters = query.filters;
      const body: Record<string, unknown> = {
        query: query.query,
        max_results: limit,
        search_depth: searchDepth,
        topic,
        include_answer: false,
        include_images: false,
        include_raw_content: includeRawContent,
      };
      if (options.sendKeyInBody) body.api_key = apiKey;
      if (filters?.includeDomains?.length) body.include_domains = filters.includeDomains;
      if (filters?.excludeDomains?.length) body.exclude_domains = filters.excludeDomains;
      const from = toDay(filters?.fromDate);
      const to = toDay(filters?.toDate);
      if (from) body.start_date = from;
      if (to) body.end_date = to;

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url: joinUrl(baseUrl, 'search'),
        ...jsonPost(body, { authorization: `Bearer ${apiKey}` }),
        signal: call.signal,
        secrets: [apiKey],
        describeError: (res) => {
          if (res.status !== 432 && res.status !== 433) return undefined;
          const detail = extractErrorDetail(res.text);
          const what =
            res.status === 432 ? "the plan's usage limit is reached" : 'the pay-as-you-go limit is reached';
          return quotaError(ID, LABEL, what, res.status, detail && redact(detail, [apiKey]));
        },
      });
      const answer = parseJsonObject(ID, LABEL, response);
      const results = expectArray(ID, LABEL, answer.results, 'results');

      return mapResultsWithUrl(results, 'url', (record, url) => {
        return {
          url,
          title: stringField(record, 'title') ?? url,
          snippet: stringField(record, 'content'),
          content: includeRawContent ? stringField(record, 'raw_content') : undefined,
          publishedAt: toIsoDate(stringField(record, 'published_date')),
          score: numberField(record, 'score'),
          provider: ID,
        };
      });
    },
  );
}
