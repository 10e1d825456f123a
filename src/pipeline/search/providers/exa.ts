/**
 * Exa neural/keyword web search.
 *
 * Wire format follows Exa's API reference "Search" (exa.ai/docs/reference/search) and "Error Codes"
 * (exa.ai/docs/reference/error-codes): `POST https://api.exa.ai/search` with header `x-api-key: <key>` and a
 * JSON body `{ query, type: "auto"|"neural"|"keyword"|"fast", numResults, includeDomains?, excludeDomains?,
 * startPublishedDate?, endPublishedDate?, contents?: { text: { maxCharacters } } }`. Success:
 * `{ requestId, resolvedSearchType, results: [{ id, url, title, publishedDate?, author?, score?, text? }] }`
 * (`text` only when contents were requested). Errors are JSON `{ requestId, error, tag }` with 400 invalid
 * request, 401 missing/invalid key, 402 credits exhausted (`NO_MORE_CREDITS`, `API_KEY_BUDGET_EXCEEDED`),
 * 403 forbidden, 429 rate limited, 5xx server error.
 */
import type { SearchProvider } from '../../types.ts';
import { defineSearchProvider } from './base.ts';
import { joinUrl, requireOneOf, resolveKeyedProvider, type HttpProviderOptions } from './http-options.ts';
import { jsonPost, parseJsonObject, sendProviderRequest } from './request.ts';
import { expectArray, mapResultsWithUrl, numberField, stringField } from './results.ts';
import { toIsoDate } from './dates.ts';

/** Options of {@link createExaProvider}. */
export interface ExaProviderOptions extends HttpProviderOptions {
  /** Exa API key, sent as `x-api-key`. */
  readonly apiKey: string;
  /** @default 'https://api.exa.ai' */
  readonly baseUrl?: string;
  /** @default 'auto' */
  readonly type?: 'auto' | 'neural' | 'keyword' | 'fast';
  /**
   * Ask Exa for each page's text (costs extra); it becomes the hit's `content` and the pipeline skips the
   * fetch. `false` returns titles and URLs only. A number caps the characters per page.
   * @default false
   */
  readonly includeText?: boolean | number;
}

const ID = 'exa';
const LABEL = 'Exa';
const MAX_RESULTS = 100;
const DEFAULT_TEXT_CHARACTERS = 10_000;
const SNIPPET_CHARACTERS = 300;

/** Creates a {@link SearchProvider} backed by the Exa search API. */
export function createExaProvider(options: ExaProviderOptions): SearchProvider {
  const { http, apiKey, baseUrl } = resolveKeyedProvider(LABEL, options, 'https://api.exa.ai');
  const type = options.type ?? 'auto';
  requireOneOf(LABEL, 'type', type, ['auto', 'neural', 'keyword', 'fast']);
  const includeText = options.includeText ?? false;
  if (typeof includeText === 'number' && (!Number.isInteger(includeText) || includeText <= 0)) {
    throw new RangeError(`${LABEL}: includeText must be a boolean or a positive integer`);
  }
  const maxCharacters = typeof includeText === 'number' ? includeText : DEFAULT_TEXT_CHARACTERS;

  return defineSearchProvider(
    { id: ID, label: LABEL, maxResults: MAX_RESULTS },
    async (query, limit, call) => {
      const filters = query.filters;
      const body: Record<string, unknown> = { query: query.query, type, numResults: limit };
      if (filters?.includeDomains?.length) body.includeDomains = filters.includeDomains;
      if (filters?.excludeDomains?.length) body.excludeDomains = filters.excludeDomains;
      const from = toIsoDate(filters?.fromDate);
      const to = toIsoDate(filters?.toDate);
      if (from) body.startPublishedDate = from;
      if (to) body.endPublishedDate = to;
      if (includeText !== false) body.contents = { text: { maxCharacters } };

      const response = await sendProviderRequest(http, {
        providerId: ID,
        label: LABEL,
        url: joinUrl(baseUrl, 'search'),
        ...jsonPost(body, { 'x-api-key': apiKey }),
        signal: call.signal,
        secrets: [apiKey],
      });
      const answer = parseJsonObject(ID, LABEL, response);
      const results = expectArray(ID, LABEL, answer.results, 'results');

      return mapResultsWithUrl(results, 'url', (record, url) => {
        const text = stringField(record, 'text');
        return {
          url,
          title: stringField(record, 'title') ?? url,
          snippet: text ? text.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARACTERS) : undefined,
          content: text,
          publishedAt: toIsoDate(stringField(record, 'publishedDate')),
          score: numberField(record, 'score'),
          provider: ID,
        };
      });
    },
  );
}
