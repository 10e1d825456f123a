/**
 * Request schemas of the /v1 API (zod). The same schemas validate HTTP bodies and library calls.
 */
import { z } from 'zod';
import { CitewiseError } from '../errors.ts';
import {
  SEARCH_DEPTHS,
  type PipelineRequest,
  type ResponseType,
  type SearchFilters,
} from '../pipeline/types.ts';
import type { ResearchStep } from '../pipeline/research/types.ts';

/** Longest accepted prompt, in characters. */
export const MAX_PROMPT_CHARS = 10_000;
/** Most context messages accepted. */
export const MAX_CONTEXT_MESSAGES = 100;
/** Longest accepted context message, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;
/** Smallest and largest accepted `max_latency_ms`. */
export const MAX_LATENCY_MS_RANGE = { min: 100, max: 120_000 } as const;
const maxLatencyMessage = `must be an integer from ${MAX_LATENCY_MS_RANGE.min} to ${MAX_LATENCY_MS_RANGE.max} (milliseconds)`;

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

/** Largest accepted `json_schema`, in characters of its JSON serialization. */
export const MAX_JSON_SCHEMA_CHARS = 16_384;
/**
 * Deepest accepted nesting (objects and arrays) of a field's value in a request body: of `json_schema`,
 * and of any field of any body read over HTTP (a body is one level more). One limit for every check, so
 * nothing downstream (the Idempotency-Key fingerprint, a schema validator) recurses deeper.
 */
export const MAX_JSON_DEPTH = 32;
/** Deepest accepted nesting of `json_schema`: {@link MAX_JSON_DEPTH}. */
export const MAX_JSON_SCHEMA_DEPTH = MAX_JSON_DEPTH;

export type { JsonObjectSchema } from '../pipeline/types.ts';

/** Nesting depth of a JSON value (objects and arrays), stopping early once past `limit`. */
export function jsonDepth(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== 'object') return depth;
  let deepest = depth + 1;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(child, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

/** Keywords whose value is a map of subschemas (property names are not keywords there). */
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas'];

/** True when a schema or one of its subschemas uses the `pattern` or `patternProperties` keyword. */
function usesPatterns(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(usesPatterns);
  if (node === null || typeof node !== 'object') return false;
  const schema = node as Record<string, unknown>;
  if ('pattern' in schema || 'patternProperties' in schema) return true;
  return Object.entries(schema).some(([keyword, value]) =>
    SCHEMA_MAPS.includes(keyword) && value !== null && typeof value === 'object'
      ? Object.values(value).some(usesPatterns)
      : keyword !== 'enum' && keyword !== 'const' && keyword !== 'examples' && keyword !== 'default'
        ? usesPatterns(value)
        : false,
  );
}

/**
 * Checks a `json_schema` value: size, depth, an object schema at the top, and a schema that zod can turn
 * into a validator (what the answer is checked against). Returns the problem, or `null` when it is fine.
 */
export function jsonSchemaProblem(schema: Readonly<Record<string, unknown>>): string | null {
  let serialized: string;
  try {
    serialized = JSON.stringify(schema);
  } catch {
    return 'must be a JSON object';
  }
  if (serialized.length > MAX_JSON_SCHEMA_CHARS) {
    return `must be at most ${MAX_JSON_SCHEMA_CHARS} characters when serialized`;
  }
  if (jsonDepth(schema, MAX_JSON_SCHEMA_DEPTH) > MAX_JSON_SCHEMA_DEPTH) {
    return `must be nested at most ${MAX_JSON_SCHEMA_DEPTH} levels deep`;
  }
  if (schema['type'] !== 'object') return 'must describe an object at the top level ("type": "object")';
  // A client's regular expression run on the model's output could backtrack for minutes (ReDoS).
  if (usesPatterns(schema)) return 'must not use "pattern" or "patternProperties" (regular expressions)';
  try {
    z.fromJSONSchema(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'unsupported';
    return `is not a supported JSON Schema (${reason})`;
  }
  return null;
}

const jsonSchemaField = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })
  .superRefine((schema, context) => {
    const problem = jsonSchemaProblem(schema);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

/** Extra response fields a request can ask for with `include`. */
export const INCLUDE_FIELDS = ['citations', 'search_results', 'usage', 'timings', 'steps'] as const;
export type IncludeField = (typeof INCLUDE_FIELDS)[number];
const includeList = `${INCLUDE_FIELDS.slice(0, -1).join(', ')} or ${INCLUDE_FIELDS.at(-1)}`;

/** Largest `max_credits` of one search. */
export const MAX_CREDITS_PER_SEARCH = 1_000_000;
const maxCreditsMessage = `must be an integer from 1 to ${MAX_CREDITS_PER_SEARCH}`;

const depthList = `${SEARCH_DEPTHS.slice(0, -1).join(', ')} or ${SEARCH_DEPTHS.at(-1)}`;

/** How a request treats an answer no source supports (`grounding` in the request). */
export const GROUNDING_MODES = ['strict', 'lenient'] as const;
export type GroundingMode = (typeof GROUNDING_MODES)[number];

/**
 * Which documents a request reads (`documents` in the request): `all` — the service's sources (its index,
 * the web) and the account's own documents; `own` — only the documents the key's account added.
 */
export const DOCUMENT_SCOPES = ['all', 'own'] as const;
export type DocumentScope = (typeof DOCUMENT_SCOPES)[number];

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
      response_type: z
        .enum(['text', 'markdown', 'json'], {
          error: 'must be "text" or "markdown" (or the extension "json")',
        })
        .optional(),
      /** Extension: with `response_type: "json"`, the JSON Schema (an object schema) the answer must match. */
      json_schema: jsonSchemaField.optional(),
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
      /**
       * `fast`: search snippets only; `standard`: fetch and read pages; `deep`: sub-queries, every result
       * read; `research`: several rounds that follow what was read (questions needing several documents).
       */
      depth: z.enum(SEARCH_DEPTHS, { error: `must be ${depthList}` }).optional(),
      /** Most credits this search may cost (research holds up to it; a lower cap sends fewer queries). */
      max_credits: z
        .number({ error: maxCreditsMessage })
        .int(maxCreditsMessage)
        .min(1, maxCreditsMessage)
        .max(MAX_CREDITS_PER_SEARCH, maxCreditsMessage)
        .optional(),
      /** Milliseconds after which the answer is written from the pages that have arrived. */
      max_latency_ms: z
        .number({ error: maxLatencyMessage })
        .int(maxLatencyMessage)
        .min(MAX_LATENCY_MS_RANGE.min, maxLatencyMessage)
        .max(MAX_LATENCY_MS_RANGE.max, maxLatencyMessage)
        .optional(),
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
      /** Extra response fields: `citations` (with `grounding`), `search_results`, `usage`, `timings`. */
      include: z
        .array(z.enum(INCLUDE_FIELDS, { error: `entries must be ${includeList}` }), {
          error: `must be an array of ${INCLUDE_FIELDS.join(', ')}`,
        })
        .optional(),
      /** `strict`: an answer no source supports is an error (refunded); `lenient`: it is returned. */
      grounding: z.enum(GROUNDING_MODES, { error: 'must be "strict" or "lenient"' }).optional(),
      /** `own`: answer from the account's own documents only (`/v1/documents`); `all` (default): every source. */
      documents: z.enum(DOCUMENT_SCOPES, { error: 'must be "all" or "own"' }).optional(),
    },
    { error: 'must be a JSON object' },
  )
  .refine((body) => !(body.time_range && (body.from_date || body.to_date)), {
    message: 'cannot be combined with from_date or to_date',
    path: ['time_range'],
  })
  .refine((body) => body.response_type !== 'json' || body.json_schema !== undefined, {
    message: 'is required when response_type is "json"',
    path: ['json_schema'],
  })
  .refine((body) => body.json_schema === undefined || body.response_type === 'json', {
    message: 'needs response_type "json"',
    path: ['json_schema'],
  })
  .refine((body) => !(body.response_type === 'json' && body.stream === true), {
    message: 'cannot be combined with response_type "json" (structured answers are not streamed)',
    path: ['stream'],
  });

/** A search request as sent by a client (spec field names). */
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** A validated request with defaults applied and non-user messages removed. */
export interface NormalizedSearchRequest extends PipelineRequest {
  /** Extension: answer as a `text/event-stream` (see {@link SearchStreamEvent}). */
  readonly stream: boolean;
  /** Extension: extra response fields. */
  readonly include: readonly IncludeField[];
  /** Extension: `strict` refuses an answer with grounding `none`; unset = the server's setting. */
  readonly grounding?: GroundingMode;
  /** Extension: most credits the search may cost (`max_credits`). */
  readonly maxCredits?: number;
  /** Extension: `own` reads only the account's own documents (`documents`). @default 'all' */
  readonly documents?: DocumentScope;
}

/**
 * One `[n]` of one answer sentence, checked against the source's text (`include: ["citations"]`).
 * `answer.slice(claim_start, claim_end) === claim`; the quote is the source's extracted text from
 * `quote_start` to `quote_end` (the `content` that `POST /v1/extract` with `format: "text"` returns).
 */
export interface Citation {
  /** The `[n]` of the answer: `sources[index - 1]`. */
  readonly index: number;
  readonly url: string;
  readonly title: string;
  /** The answer sentence the citation supports, as it is in `answer` (markers included). */
  readonly claim: string;
  readonly claim_start: number;
  readonly claim_end: number;
  /** The sentence (or two) of the source that best matches the claim; `''` when none shares a word. */
  readonly quote: string;
  /** Offsets of `quote` in the source's extracted text; `null` when the quote was not found there. */
  readonly quote_start: number | null;
  readonly quote_end: number | null;
  /** The quote is in the source's text, shares the claim's key terms and holds the claim's numbers. */
  readonly verified: boolean;
}

/** How well the answer is supported by its sources (`include: ["citations"]`). */
export interface Grounding {
  /** `full`: every claim has a verified citation; `partial`: some; `none`: none (or no claim). */
  readonly level: 'full' | 'partial' | 'none';
  readonly claims: number;
  readonly supported_claims: number;
  readonly citations: number;
  readonly verified_citations: number;
  /** Answer sentences that state something without citing any source. */
  readonly unsupported: readonly { readonly text: string; readonly start: number; readonly end: number }[];
}

/** A cited source with the passage of it the answer used most (`include: ["search_results"]`). */
export interface SearchResult {
  /** The `[n]` of the answer. */
  readonly index: number;
  readonly url: string;
  readonly title: string;
  /** The best passage of the source that was given to the answerer. */
  readonly snippet: string;
}

/**
 * Events of a streamed search (`"stream": true`), sent as server-sent events named by `type`:
 * `sources` first, then `delta`s of answer text, then `done` with the full spec body — or `error` with the
 * spec's error body if the search fails after the stream started (the credits are refunded).
 */
export type SearchStreamEvent =
  | { readonly type: 'step'; readonly step: ResearchStep }
  | { readonly type: 'sources'; readonly sources: readonly string[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly body: SearchResponse }
  | { readonly type: 'error'; readonly error: { readonly description: string; readonly code: string } };

/** The spec's 200 body of `POST /v1/search`, plus the extra fields a request asked for with `include`. */
export interface SearchResponse {
  /** With `response_type: "json"`: the JSON text of an object matching `json_schema`. */
  answer: string;
  response_type: ResponseType | 'json';
  sources: string[];
  /** Milliseconds. */
  response_time: number;
  /** With `include: ["citations"]`: every `[n]` of every sentence, with its verified quote. */
  citations?: Citation[];
  /** With `include: ["citations"]`: the grounding level and its counts. */
  grounding?: Grounding;
  /** With `include: ["search_results"]`: each source with its best passage. */
  search_results?: SearchResult[];
  /** With `include: ["usage"]`: credits charged by this search and left afterwards. */
  usage?: { credits_charged: number; credits_remaining: number };
  /** With `include: ["timings"]`: milliseconds per stage and in total. */
  timings?: Record<string, number>;
  /** With `include: ["steps"]` and `depth: "research"`: each round's queries, pages read and findings. */
  steps?: readonly ResearchStep[];
}

/**
 * The spec's 200 body of `GET /v1/balance`: `available_credits` is what the calling key can still spend.
 * For a key with a budget, two fields are added: the account's credits and the budget's rest.
 */
export interface BalanceResponse {
  available_credits: number;
  /** Only for a key with a budget: the account's credits (`available_credits` is the smaller of the two). */
  account_credits?: number;
  /** Only for a key with a budget: the budget, what is left of it, and when it starts afresh. */
  key_budget?: {
    credits: number;
    period: 'day' | 'month' | 'total';
    remaining: number;
    /** ISO 8601 time (UTC) the budget starts afresh; `null` for a budget that never does. */
    resets_at: string | null;
  };
}

/**
 * Validates a request body; throws a 400 {@link CitewiseError} naming the first invalid field,
 * e.g. `Invalid request: context[0].content must be a string`.
 */
export function parseSearchRequest(body: unknown): NormalizedSearchRequest {
  const data = parseBody(searchRequestSchema, body);
  const { prompt, context = [], response_type = 'markdown', stream = false } = data;
  return {
    stream,
    filters: searchFilters(data),
    ...(data.max_sources === undefined ? {} : { maxSources: data.max_sources }),
    depth: data.depth ?? 'standard',
    ...(data.max_latency_ms === undefined ? {} : { maxLatencyMs: data.max_latency_ms }),
    ...(data.max_credits === undefined ? {} : { maxCredits: data.max_credits }),
    include: [...new Set(data.include ?? [])],
    ...(data.grounding ? { grounding: data.grounding } : {}),
    ...(data.documents === 'own' ? { documents: data.documents } : {}),
    prompt,
    // The spec: only messages with role `user` are considered when building the context.
    context: context.filter((m) => m.role === 'user'),
    responseType: response_type === 'json' ? 'text' : response_type,
    ...(response_type === 'json' && data.json_schema ? { jsonSchema: data.json_schema } : {}),
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

/** Validates a request body against `schema`; a 400 `invalid_request` names the first offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue ? formatPath(issue.path) : '';
    const message = issue?.message ?? 'is invalid';
    const description = field ? `Invalid request: ${field} ${message}` : `Invalid request: body ${message}`;
    throw new CitewiseError('invalid_request', description, { description });
  }
  return result.data;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
