/**
 * Tavily-compatible routes, `POST {prefix}/search` and `POST {prefix}/extract` (prefix `/compat/tavily` by
 * default): clients written for Tavily (LangChain's `TavilySearch` / `TavilyExtract` with `apiBaseUrl`, or
 * plain HTTP) switch by changing the base URL. A thin translation onto `/v1/search` and `/v1/extract`: same
 * keys, credits, rate limits and idempotency; errors in Tavily's shape, `{"detail": {"error": "…"}}`.
 */
import { z } from 'zod';
import { CitewiseError } from '../../errors.ts';
import type { ExtractResponse, NormalizedExtractRequest } from '../../contract/extract.ts';
import { extractUrlProblem, MAX_EXTRACT_URL_CHARS, MAX_EXTRACT_URLS } from '../../contract/extract.ts';
import {
  parseBody,
  parseSearchRequest,
  type NormalizedSearchRequest,
  type SearchResponse,
} from '../../contract/search.ts';

/**
 * Checks a mount path for the Tavily-compatible routes and drops a trailing slash: an absolute path of URL
 * path characters, outside `/v1`, `/docs` and `/mcp` (whose routes it would shadow). Throws RangeError.
 */
export function normalizeTavilyPrefix(value: string): string {
  const prefix = value.replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    throw new RangeError(`tavilyPrefix must be a path such as /compat/tavily, got ${JSON.stringify(value)}`);
  }
  if (['/v1', '/docs', '/mcp'].some((taken) => prefix === taken || prefix.startsWith(`${taken}/`))) {
    throw new RangeError(`tavilyPrefix must not be under /v1, /docs or /mcp, got ${JSON.stringify(value)}`);
  }
  return prefix;
}

const TIME_RANGES = {
  day: 'day',
  d: 'day',
  week: 'week',
  w: 'week',
  month: 'month',
  m: 'month',
  year: 'year',
  y: 'year',
} as const;

/**
 * Tavily's search request. Fields citewise does not use are accepted and ignored (see the migration guide):
 * `topic`, `days`, `chunks_per_source`, `include_images`, `include_image_descriptions`, `include_favicon`,
 * `include_usage`, `country`, `auto_parameters`, `client_source`.
 */
const tavilySearchSchema = z.object(
  {
    query: z.string({ error: 'is required and must be a string' }),
    search_depth: z
      .enum(['basic', 'advanced', 'fast', 'ultra-fast'], {
        error: 'must be basic, advanced, fast or ultra-fast',
      })
      .optional(),
    max_results: z
      .number({ error: 'must be an integer from 0 to 20' })
      .int('must be an integer from 0 to 20')
      .min(0, 'must be an integer from 0 to 20')
      .max(20, 'must be an integer from 0 to 20')
      .optional(),
    include_answer: z
      .union([z.boolean(), z.enum(['basic', 'advanced'])], {
        error: 'must be true, false, basic or advanced',
      })
      .optional(),
    include_raw_content: z
      .union([z.boolean(), z.enum(['markdown', 'text'])], {
        error: 'must be true, false, markdown or text',
      })
      .optional(),
    include_domains: z.array(z.string(), { error: 'must be an array of domains' }).optional(),
    exclude_domains: z.array(z.string(), { error: 'must be an array of domains' }).optional(),
    time_range: z
      .enum(Object.keys(TIME_RANGES) as [keyof typeof TIME_RANGES], {
        error: 'must be day, week, month or year',
      })
      .nullable()
      .optional(),
    api_key: z.string().optional(),
  },
  { error: 'must be a JSON object' },
);

const tavilyExtractSchema = z.object(
  {
    urls: z.union([z.string(), z.array(z.string())], { error: 'must be a URL or an array of URLs' }),
    format: z.enum(['markdown', 'text'], { error: 'must be markdown or text' }).optional(),
    api_key: z.string().optional(),
  },
  { error: 'must be a JSON object' },
);

/** The legacy `api_key` body field, for clients that do not send `Authorization: Bearer`. */
export function tavilyBodyKey(body: unknown): string | undefined {
  const key = (body as { api_key?: unknown } | null)?.api_key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** What a Tavily search asks of citewise: the `/v1/search` request, and how to shape the answer. */
export interface TavilySearchPlan {
  readonly search: NormalizedSearchRequest;
  readonly query: string;
  readonly includeAnswer: boolean;
  readonly includeRawContent: boolean;
  /** `max_results: 0`: no results wanted (the answer only). */
  readonly maxResults: number;
}

/** Tavily's defaults of the fields a request may leave out. */
export const TAVILY_DEFAULTS = { maxResults: 5 } as const;

/** Translates a Tavily search body; a 400 names the offending Tavily field. */
export function parseTavilySearch(body: unknown): TavilySearchPlan {
  const data = parseBody(tavilySearchSchema, body);
  const maxResults = data.max_results ?? TAVILY_DEFAULTS.maxResults;
  const depth =
    data.search_depth === 'advanced'
      ? 'deep'
      : data.search_depth === 'fast' || data.search_depth === 'ultra-fast'
        ? 'fast'
        : 'standard';
  const search = parseSearchRequest({
    prompt: data.query,
    response_type: 'text',
    depth,
    max_sources: Math.max(1, maxResults),
    include: ['search_results'],
    ...(data.include_domains?.length ? { include_domains: data.include_domains } : {}),
    ...(data.exclude_domains?.length ? { exclude_domains: data.exclude_domains } : {}),
    ...(data.time_range ? { time_range: TIME_RANGES[data.time_range] } : {}),
  });
  return {
    search,
    query: data.query,
    includeAnswer: data.include_answer !== undefined && data.include_answer !== false,
    includeRawContent: data.include_raw_content !== undefined && data.include_raw_content !== false,
    maxResults,
  };
}

/** One result of Tavily's search response. */
export interface TavilyResult {
  readonly title: string;
  readonly url: string;
  /** The passage of the page that the answer used. */
  readonly content: string;
  /** Decreasing with the source's rank (1 for the first); not a relevance probability. */
  readonly score: number;
  /** With `include_raw_content`: the passages selected from the page (not the whole page); else null. */
  readonly raw_content: string | null;
}

/** Tavily's search response. */
export interface TavilySearchResponse {
  readonly query: string;
  readonly answer: string | null;
  readonly results: readonly TavilyResult[];
  readonly images: readonly never[];
  readonly follow_up_questions: null;
  /** Seconds, as Tavily reports it. */
  readonly response_time: number;
  readonly request_id: string;
}

/** Shapes citewise's search response (with `search_results`) as Tavily's. */
export function tavilySearchResponse(
  plan: TavilySearchPlan,
  response: SearchResponse,
  requestId: string,
): TavilySearchResponse {
  const sources = response.search_results ?? [];
  const results = sources.slice(0, plan.maxResults).map((source, rank): TavilyResult => ({
    title: source.title,
    url: source.url,
    content: source.snippet,
    score: Math.round((1 / (1 + rank * 0.25)) * 1000) / 1000,
    raw_content: plan.includeRawContent ? source.snippet : null,
  }));
  return {
    query: plan.query,
    answer: plan.includeAnswer ? response.answer : null,
    results,
    images: [],
    follow_up_questions: null,
    response_time: Math.round(response.response_time) / 1000,
    request_id: requestId,
  };
}

/** Translates a Tavily extract body (`urls` may be one URL) onto `/v1/extract`'s request. */
export function parseTavilyExtract(body: unknown): NormalizedExtractRequest {
  const data = parseBody(tavilyExtractSchema, body);
  const urls = typeof data.urls === 'string' ? [data.urls] : data.urls;
  if (urls.length === 0 || urls.length > MAX_EXTRACT_URLS) {
    throw parseBodyError(`urls must have 1 to ${MAX_EXTRACT_URLS} URLs`);
  }
  for (const [index, url] of urls.entries()) {
    const problem = extractUrlProblem(url);
    if (problem === 'too long')
      throw parseBodyError(`urls[${index}] must be at most ${MAX_EXTRACT_URL_CHARS} characters`);
    if (problem) throw parseBodyError(`urls[${index}] must be an http(s) URL`);
  }
  return { urls, format: data.format ?? 'markdown' };
}

/** Tavily's extract response. */
export interface TavilyExtractResponse {
  readonly results: readonly {
    readonly url: string;
    readonly raw_content: string;
    readonly images: readonly never[];
  }[];
  readonly failed_results: readonly { readonly url: string; readonly error: string }[];
  readonly response_time: number;
  readonly request_id: string;
}

/** Shapes citewise's extract response as Tavily's. */
export function tavilyExtractResponse(response: ExtractResponse, requestId: string): TavilyExtractResponse {
  const results: { url: string; raw_content: string; images: never[] }[] = [];
  const failed: { url: string; error: string }[] = [];
  for (const page of response.results) {
    if ('error' in page) failed.push({ url: page.url, error: page.error.message });
    else results.push({ url: page.url, raw_content: page.content, images: [] });
  }
  return {
    results,
    failed_results: failed,
    response_time: Math.round(response.response_time) / 1000,
    request_id: requestId,
  };
}

/** Tavily's error body: `{"detail": {"error": "<description>"}}` (what its clients read). */
export function tavilyErrorBody(error: CitewiseError): { detail: { error: string } } {
  return { detail: { error: error.description } };
}

function parseBodyError(message: string): CitewiseError {
  const description = `Invalid request: ${message}`;
  return new CitewiseError('invalid_request', description, { description });
}
