/**
 * Request schemas of the /v1 API (zod). The same schemas validate HTTP bodies and library calls.
 */
import { z } from 'zod';
import { AgentSearchError } from '../errors.ts';
import type { ChatMessage, ResponseType, SearchFilters } from '../pipeline/types.ts';

/** Longest accepted prompt, in characters. */
export const MAX_PROMPT_CHARS = 10_000;
/** Most context messages accepted. */
export const MAX_CONTEXT_MESSAGES = 100;
/** Longest accepted context message, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;

const chatMessageSchema = z.object({
  role: z.string({ error: 'must be a string' }),
  content: z
    .string({ error: 'must be a string' })
    .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
});

const domainPattern =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

const domainList = z
  .array(
    z
      .string({ error: 'entries must be domain names such as example.com' })
      .transform((value) => value.trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, ''))
      .refine((value) => domainPattern.test(value), 'entries must be domain names such as example.com'),
    { error: 'must be an array of domain names' },
  )
  .max(50, 'must have at most 50 domains');

const isoDate = z
  .string({ error: 'must be a date such as 2026-01-31' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-01-31')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'must be a valid date');

/** Extra response fields a request can ask for with `include`. */
export type IncludeField = 'citations' | 'usage' | 'timings';

/** `SearchRequest` of the spec (section 2.1) plus opt-in extensions. Unknown fields are ignored. */
export const searchRequestSchema = z
  .object(
    {
      prompt: z
        .string({ error: 'is required and must be a string' })
        .max(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`)
        .refine((s) => s.trim().length > 0, 'must not be empty'),
      context: z
        .array(chatMessageSchema, { error: 'must be an array of {role, content} messages' })
        .max(MAX_CONTEXT_MESSAGES, `must have at most ${MAX_CONTEXT_MESSAGES} messages`)
        .optional(),
      response_type: z.enum(['text', 'markdown'], { error: 'must be "text" or "markdown"' }).optional(),
      // Extensions: opt-in, so a client of the spec sees exactly the spec.
      /** Stream the answer as server-sent events. */
      stream: z.boolean({ error: 'must be a boolean' }).optional(),
      /** Only use results from these domains (and their subdomains). */
      include_domains: domainList.optional(),
      /** Never use results from these domains (and their subdomains). */
      exclude_domains: domainList.optional(),
      /** Only results published within this period before now. */
      time_range: z
        .enum(['day', 'week', 'month', 'year'], { error: 'must be day, week, month or year' })
        .optional(),
      /** Only results published on or after this date (YYYY-MM-DD). */
      from_date: isoDate.optional(),
      /** Only results published on or before this date (YYYY-MM-DD). */
      to_date: isoDate.optional(),
      /** At most this many sources are read (1–20). */
      max_sources: z
        .number({ error: 'must be an integer from 1 to 20' })
        .int('must be an integer from 1 to 20')
        .min(1, 'must be an integer from 1 to 20')
        .max(20, 'must be an integer from 1 to 20')
        .optional(),
      /** `fast`: search snippets only; `standard`: fetch and read pages; `deep`: several sub-queries. */
      depth: z.enum(['fast', 'standard', 'deep'], { error: 'must be fast, standard or deep' }).optional(),
      /** Two-letter country code (ISO 3166-1) to localise results. */
      country: z
        .string({ error: 'must be a two-letter country code' })
        .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code')
        .optional(),
      /** Language of the results (e.g. `en`, `pt-BR`). */
      language: z
        .string({ error: 'must be a language tag such as en or pt-BR' })
        .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or pt-BR')
        .optional(),
      /** Extra response fields: `citations`, `usage`, `timings`. */
      include: z
        .array(
          z.enum(['citations', 'usage', 'timings'], { error: 'entries must be citations, usage or timings' }),
          {
            error: 'must be an array of citations, usage, timings',
          },
        )
        .optional(),
    },
    { error: 'must be a JSON object' },
  )
  .refine((body) => !(body.time_range && (body.from_date || body.to_date)), {
    message: 'cannot be combined with from_date or to_date',
    path: ['time_range'],
  });

/** A search request as sent by a client (spec field names). */
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** A validated request with defaults applied and non-user messages removed. */
export interface NormalizedSearchRequest {
  readonly prompt: string;
  /** Only `role: "user"` messages, in order. */
  readonly context: readonly ChatMessage[];
  readonly responseType: ResponseType;
  /** Extension: answer as a `text/event-stream` (see {@link SearchStreamEvent}). */
  readonly stream: boolean;
  /** Extension: search filters (domains, dates, country, language). Empty when none were given. */
  readonly filters: SearchFilters;
  /** Extension: how many sources to read at most. */
  readonly maxSources?: number;
  /** Extension: `fast` (snippets only), `standard` (default), `deep` (several sub-queries). */
  readonly depth: 'fast' | 'standard' | 'deep';
  /** Extension: extra response fields. */
  readonly include: readonly IncludeField[];
}

/** A quoted source, in `include: ["citations"]` responses. */
export interface Citation {
  /** The `[n]` of the answer. */
  readonly index: number;
  readonly url: string;
  readonly title: string;
  /** The passage of the source that was given to the answerer. */
  readonly quote: string;
}

/**
 * Events of a streamed search (`"stream": true`), sent as server-sent events named by `type`:
 * `sources` first, then `delta`s of answer text, then `done` with the full spec body — or `error` with the
 * spec's error body if the search fails after the stream started (the credits are refunded).
 */
export type SearchStreamEvent =
  | { readonly type: 'sources'; readonly sources: readonly string[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly body: SearchResponse }
  | { readonly type: 'error'; readonly error: { readonly description: string; readonly code: string } };

/** The spec's 200 body of `POST /v1/search`, plus the extra fields a request asked for with `include`. */
export interface SearchResponse {
  answer: string;
  response_type: ResponseType;
  sources: string[];
  /** Milliseconds. */
  response_time: number;
  /** With `include: ["citations"]`: each cited source with the passage it was given. */
  citations?: Citation[];
  /** With `include: ["usage"]`: credits charged by this search and left afterwards. */
  usage?: { credits_charged: number; credits_remaining: number };
  /** With `include: ["timings"]`: milliseconds per stage and in total. */
  timings?: Record<string, number>;
}

/** The spec's 200 body of `GET /v1/balance`. */
export interface BalanceResponse {
  available_credits: number;
}

/**
 * Validates a request body; throws a 400 {@link AgentSearchError} naming the first invalid field,
 * e.g. `Invalid request: context[0].content must be a string`.
 */
export function parseSearchRequest(body: unknown): NormalizedSearchRequest {
  const result = searchRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue ? formatPath(issue.path) : '';
    const message = issue?.message ?? 'is invalid';
    const description = field ? `Invalid request: ${field} ${message}` : `Invalid request: body ${message}`;
    throw new AgentSearchError('invalid_request', description, { description });
  }
  const data = result.data;
  const { prompt, context = [], response_type = 'markdown', stream = false } = data;
  return {
    stream,
    filters: searchFilters(data),
    ...(data.max_sources === undefined ? {} : { maxSources: data.max_sources }),
    depth: data.depth ?? 'standard',
    include: [...new Set(data.include ?? [])],
    prompt,
    // The spec: only messages with role `user` are considered when building the context.
    context: context.filter((m) => m.role === 'user'),
    responseType: response_type,
  };
}

const TIME_RANGE_DAYS = { day: 1, week: 7, month: 31, year: 366 } as const;

function searchFilters(data: z.output<typeof searchRequestSchema>): SearchFilters {
  const fromDate = data.time_range
    ? new Date(Date.now() - TIME_RANGE_DAYS[data.time_range] * 86_400_000).toISOString().slice(0, 10)
    : data.from_date;
  return {
    ...(data.include_domains?.length ? { includeDomains: data.include_domains } : {}),
    ...(data.exclude_domains?.length ? { excludeDomains: data.exclude_domains } : {}),
    ...(fromDate ? { fromDate } : {}),
    ...(data.to_date ? { toDate: data.to_date } : {}),
    ...(data.country ? { country: data.country.toUpperCase() } : {}),
    ...(data.language ? { language: data.language } : {}),
  };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
