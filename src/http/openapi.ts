/**
 * The OpenAPI 3.1 document of the /v1 API, generated from the zod schemas that validate requests (so the
 * document cannot drift from what the service accepts) and from response schemas checked against the
 * response types at compile time. Served at `GET /v1/openapi.json`.
 */
import { extractRequestSchema, type ExtractedPage, type ExtractResponse } from '../contract/extract.ts';
import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '../errors.ts';
import { DOCUMENT_CONTENT_TYPES } from './docs.ts';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-info.ts';
import { DEFAULT_MAX_LATENCY_MS } from '../pipeline/run.ts';
import { PAGE_TYPES } from '../pipeline/extract/page-type.ts';
import { researchComponents, researchPaths, type OpenApiPieces } from './openapi-research.ts';
import { documentsComponents, documentsPaths } from './openapi-documents.ts';
import { searchRequestSchema, type BalanceResponse, type SearchResponse } from '../contract/search.ts';

/** Request fields of the service specification; every other request field is an opt-in extension. */
const SPEC_REQUEST_FIELDS: Readonly<Record<string, string>> = {
  prompt: 'The search query.',
  context:
    'Conversation context for the LLM. Order is significant. Only messages with role `user` are considered.',
  response_type:
    '`text` returns plain text without formatting; `markdown` (the default) returns rich formatting. ' +
    'Extension (optional): `json` returns a JSON object matching `json_schema`, serialized as the `answer` ' +
    'string (needs a model; not with `stream`).',
};

/** Descriptions of the extension fields (all optional; absent → exact spec behaviour). */
const EXTENSION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  stream: 'Stream the answer as server-sent events (`text/event-stream`): `sources`, `delta`s, then `done`.',
  include_domains: 'Only use results from these domains (and their subdomains).',
  exclude_domains: 'Never use results from these domains (and their subdomains).',
  time_range: 'Only results published within this period before now.',
  from_date: 'Only results published on or after this date (YYYY-MM-DD).',
  to_date: 'Only results published on or before this date (YYYY-MM-DD).',
  max_sources: 'Read at most this many sources (no deeper reading when set).',
  depth:
    '`fast`: search snippets only; `standard`: read the first pages, more when they do not cover the question; `deep`: several sub-queries, every result read; `research`: rounds of search → read → plan that follow what was read (the director of a film, each side of a comparison) for questions that need several documents, priced per query sent.',
  max_credits:
    'Most credits this search may cost. A research search holds its price per query times its most queries, or this when lower (then it sends fewer queries); the queries sent are charged and the rest returned. Below the least a search can cost: 400.',
  max_latency_ms:
    'Milliseconds after the request arrived by which the answer starts from the pages that have arrived ' +
    '(pages still loading are answered from their search snippets; pages already downloaded are still ' +
    `read). Default: the server's setting (${DEFAULT_MAX_LATENCY_MS} unless configured). The search itself is not cut.`,
  country: 'Two-letter country code (ISO 3166-1) to localise results.',
  language: 'Language of the results (e.g. `en`, `pt-BR`).',
  include:
    'Extra response fields: `citations` (every `[n]` of every sentence with a quote verified against the ' +
    "source, and the answer's `grounding`), `search_results` (each source with its best passage), `usage`, `timings`, " +
    '`steps` (with `depth: "research"`: each round\'s queries, pages read and findings).',
  grounding:
    '`strict`: an answer that cites sources none of which supports any of its sentences is refused with 422 ' +
    "`ungrounded_answer` and refunded; `lenient`: it is returned. Default: the server's `--strict-grounding`.",
  documents:
    "`own`: answer from the documents the key's account added (`/v1/documents`) only — not the service's " +
    "index, its manual or the web; `all` (default): every source, the account's own documents included.",
  json_schema:
    'With `response_type: "json"` (and only then): the JSON Schema the answer object must match. Its top ' +
    'level must be an object schema (`"type": "object"`); at most 16384 characters serialized and 32 levels deep.',
};

/** One round of a research search (`include: ["steps"]`, and the `step` event of a stream). */
export const researchStepSchema = z
  .object({
    hop: z.number().int().meta({ description: 'The round, from 1.' }),
    planner: z
      .enum(['model', 'rules'])
      .meta({ description: 'Who chose the queries: the model or the rules.' }),
    fallback: z.string().optional().meta({
      description: "Set when the model's plan was refused and the rules planned instead: why.",
    }),
    queries: z.array(z.string()).meta({ description: 'The queries searched in this round.' }),
    pages: z.array(z.string()).meta({ description: 'URLs read in this round.' }),
    found: z.array(z.string()).meta({ description: 'What the round found that the next one follows.' }),
    stopped: z
      .enum(['covered', 'nothing_found', 'no_leads', 'hop_limit', 'query_limit', 'page_limit', 'time_limit'])
      .optional()
      .meta({ description: 'On the last round: why the research stopped.' }),
  })
  .meta({ description: 'One round of `depth: "research"`: search, read, and what it leads to.' });

const searchResponseSchema = z
  .object({
    answer: z.string().meta({
      description:
        'The generated answer, formatted according to `response_type` (with `json`: the JSON text of the object).',
    }),
    response_type: z.string().meta({ description: 'The format of the answer, as requested by the caller.' }),
    sources: z.array(z.string()).meta({ description: 'The sources (URLs) used to generate the answer.' }),
    response_time: z
      .number()
      .meta({ description: 'Total time taken to generate the response, in milliseconds.' }),
    citations: z
      .array(
        z.object({
          index: z.number().int().meta({ description: 'The `[n]` of the answer: `sources[index - 1]`.' }),
          url: z.string(),
          title: z.string(),
          claim: z
            .string()
            .meta({ description: 'The answer sentence carrying the citation, markers included.' }),
          claim_start: z
            .number()
            .int()
            .meta({ description: 'Offset of `claim` in `answer` (UTF-16 units).' }),
          claim_end: z.number().int().meta({ description: 'End of `claim` in `answer` (exclusive).' }),
          quote: z.string().meta({
            description:
              "The source's sentence (or two) that best matches the claim, as in its extracted text.",
          }),
          quote_start: z.number().int().nullable().meta({
            description:
              'Offset of `quote` in the source\'s extracted text (`POST /v1/extract` with `format: "text"`); null when not found there.',
          }),
          quote_end: z
            .number()
            .int()
            .nullable()
            .meta({ description: 'End of `quote` (exclusive), or null.' }),
          verified: z.boolean().meta({
            description:
              "The quote occurs in the source's text and shares the claim's key terms (half or more of them " +
              "across the claim's quotes, at least two here) and every number of the claim.",
          }),
        }),
      )
      .optional()
      .meta({
        description:
          'Extension (optional), with `include: ["citations"]`: every `[n]` of every sentence, checked against its source.',
      }),
    grounding: z
      .object({
        level: z.enum(['full', 'partial', 'none']).meta({
          description:
            '`full`: every claim has a verified citation; `partial`: some do; `none`: none does (or there is no claim).',
        }),
        claims: z
          .number()
          .int()
          .meta({ description: 'Sentences that state something (headings and code are not).' }),
        supported_claims: z
          .number()
          .int()
          .meta({ description: 'Claims with at least one verified citation.' }),
        citations: z.number().int(),
        verified_citations: z.number().int(),
        unsupported: z
          .array(z.object({ text: z.string(), start: z.number().int(), end: z.number().int() }))
          .meta({ description: 'Claims without any citation, with their offsets in `answer`.' }),
      })
      .optional()
      .meta({
        description:
          'Extension (optional), with `include: ["citations"]`: how well the sources support the answer.',
      }),
    search_results: z
      .array(
        z.object({
          index: z.number().int().meta({ description: 'The `[n]` of the answer.' }),
          url: z.string(),
          title: z.string(),
          snippet: z.string().meta({ description: 'The best passage of the source given to the answerer.' }),
        }),
      )
      .optional()
      .meta({
        description:
          'Extension (optional), with `include: ["search_results"]`: each source with its passage.',
      }),
    usage: z
      .object({ credits_charged: z.number(), credits_remaining: z.number() })
      .optional()
      .meta({ description: 'Extension (optional), with `include: ["usage"]`: credits charged and left.' }),
    timings: z
      .record(z.string(), z.number())
      .optional()
      .meta({ description: 'Extension (optional), with `include: ["timings"]`: milliseconds per stage.' }),
    steps: z.array(researchStepSchema).optional().meta({
      description:
        'Extension (optional), with `depth: "research"` and `include: ["steps"]`: the rounds of the research.',
    }),
  })
  .meta({ description: 'SearchResponse: the answer, its format, its sources and the time taken.' });

const balanceSchema = z
  .object({
    available_credits: z.number().meta({
      description:
        "Credits this key can still spend: the account's credits, or for a key with a budget the smaller of those and the budget's rest.",
    }),
    account_credits: z
      .number()
      .optional()
      .meta({ description: "Only for a key with a budget: the account's credits." }),
    key_budget: z
      .object({
        credits: z.number().meta({ description: 'Credits the key may spend per period.' }),
        period: z
          .enum(['day', 'month', 'total'])
          .meta({ description: 'When the budget starts afresh (UTC); `total` never does.' }),
        remaining: z.number().meta({ description: 'What is left of the budget in this period.' }),
        resets_at: z
          .string()
          .nullable()
          .meta({ description: 'ISO 8601 time the budget starts afresh, or null.' }),
      })
      .optional()
      .meta({ description: 'Only for a key with a budget: the budget and its rest.' }),
  })
  .meta({ description: 'Balance of the account, as the calling key sees it.' });

const extractedPageSchema = z
  .object({
    url: z.string(),
    title: z.string(),
    content: z.string().meta({ description: 'The main content, in the requested `format`.' }),
    published_at: z.string().nullable().meta({ description: 'ISO 8601 date the page states, else null.' }),
    page_type: z
      .enum(PAGE_TYPES)
      .nullable()
      .meta({ description: 'What kind of page it is (HTML pages), else null.' }),
  })
  .meta({ title: 'ExtractedPage', description: 'A page that was read (charged).' });

const failedPageSchema = z
  .object({
    url: z.string(),
    error: z.object({
      code: z.string().meta({
        description:
          '`blocked_address`, `robots_disallowed`, `bad_status`, `timeout`, `too_large`, `unsupported_type`, ' +
          '`bad_url`, `too_many_redirects`, `bad_encoding`, `network_error`, `aborted`, `no_content` or `extract_failed`.',
      }),
      message: z.string(),
    }),
  })
  .meta({ title: 'FailedPage', description: 'A page that could not be read (not charged).' });

const extractResponseSchema = z
  .object({
    results: z
      .array(z.union([extractedPageSchema, failedPageSchema]))
      .meta({ description: 'One entry per requested URL, in request order.' }),
    credits_charged: z
      .number()
      .meta({ description: 'Credits charged: the per-page cost for each page read.' }),
    response_time: z.number().meta({ description: 'Milliseconds from the request to the response.' }),
  })
  .meta({ description: 'Extension: the pages of an extract request.' });

const ERROR_CODES = Object.keys(ERROR_TABLE) as [ErrorCode, ...ErrorCode[]];

const errorSchema = z
  .object({
    error: z.object({
      description: z.string().meta({ description: 'Human-readable message.' }),
      code: z
        .enum(ERROR_CODES)
        .optional()
        .meta({ description: 'Extension: a stable machine-readable code (additive to the spec).' }),
    }),
  })
  .meta({ description: 'The body of every error response.' });

const streamEventSchema = z
  .union([
    z
      .object({ step: researchStepSchema })
      .meta({ title: 'step', description: '`event: step`: a round of `depth: "research"` ended.' }),
    z.object({ sources: z.array(z.string()) }).meta({ title: 'sources', description: '`event: sources`' }),
    z.object({ text: z.string() }).meta({ title: 'delta', description: '`event: delta`: more answer text.' }),
    searchResponseSchema.meta({ title: 'done', description: '`event: done`: the full SearchResponse.' }),
    errorSchema.meta({ title: 'error', description: '`event: error`: the search failed (refunded).' }),
  ])
  .meta({ description: 'The JSON `data:` of one server-sent event of a streamed search.' });

// Compile-time guards: every field the service sends is documented, and documented fields are real.
type Equals<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const documentsSearchResponse: Equals<keyof z.infer<typeof searchResponseSchema>, keyof SearchResponse> =
  true;
const documentsBalance: Equals<keyof z.infer<typeof balanceSchema>, keyof BalanceResponse> = true;
const documentsExtract: Equals<keyof z.infer<typeof extractResponseSchema>, keyof ExtractResponse> = true;
const documentsPage: Equals<keyof z.infer<typeof extractedPageSchema>, keyof ExtractedPage> = true;
const documentsPageType: Equals<
  z.infer<typeof extractedPageSchema>['page_type'],
  ExtractedPage['page_type']
> = true;
void documentsExtract;
void documentsPage;
void documentsPageType;
void documentsSearchResponse;
void documentsBalance;

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema, without the `$schema` marker. Always the
 * `input` view: objects stay open (no `additionalProperties: false`), so clients tolerate new fields.
 */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const io = 'input';
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The request schema, with each field described and the extensions marked as such. */
function requestJsonSchema(): Record<string, unknown> {
  const schema = jsonSchema(searchRequestSchema);
  const properties = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, property] of Object.entries(properties)) {
    const specDescription = SPEC_REQUEST_FIELDS[name];
    property['description'] =
      specDescription ?? `Extension (optional): ${EXTENSION_DESCRIPTIONS[name] ?? 'see the README.'}`;
  }
  return {
    ...schema,
    description: 'SearchRequest. Only `prompt` is required; unknown fields are ignored.',
    examples: [{ prompt: 'What is the capital of France?' }],
  };
}

interface ErrorExample {
  /** Example name. @default the code */
  readonly name?: string;
  readonly code: ErrorCode;
  readonly description?: string;
}

function errorExample({ code, description }: ErrorExample) {
  return { value: { error: { description: description ?? ERROR_TABLE[code].description, code } } };
}

const REQUEST_ID_HEADER = { $ref: '#/components/headers/X-Request-Id' };
const RETRY_AFTER_HEADER = { $ref: '#/components/headers/Retry-After' };
const RATE_LIMIT_HEADERS = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/** An error response whose examples carry the exact description texts. */
function errorResponse(
  summary: string,
  examples: readonly ErrorExample[],
  headers: Record<string, unknown> = {},
) {
  return {
    description: summary,
    headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...headers },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          examples.map((example) => [example.name ?? example.code, errorExample(example)]),
        ),
      },
    },
  };
}

const RESPONSES = {
  BadRequest: errorResponse('The body or one of its fields is invalid; the description names the field.', [
    { code: 'invalid_request', description: 'Invalid request: prompt must not be empty' },
  ]),
  Unauthorized: errorResponse('Missing, invalid or expired API key.', [{ code: 'invalid_api_key' }], {
    'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } },
  }),
  NotFound: errorResponse('No such file in the corpus folders.', [{ code: 'not_found' }]),
  NotReady: errorResponse('A store does not answer; the description names it.', [
    { code: 'service_unavailable', description: 'Service Unavailable: credit store unreachable' },
  ]),
  PayloadTooLarge: errorResponse('The body is too large.', [
    { code: 'payload_too_large', description: 'Payload Too Large: the body must be at most 1048576 bytes' },
  ]),
  UnsupportedMediaType: errorResponse('The body is not JSON.', [{ code: 'unsupported_media_type' }]),
  TooManyRequests: errorResponse(
    'Too many requests: slow down, retry after `Retry-After` seconds.',
    [{ code: 'rate_limited' }],
    { 'Retry-After': RETRY_AFTER_HEADER, ...RATE_LIMIT_HEADERS },
  ),
  IdempotencyInProgress: errorResponse(
    'Extension: a request with the same `Idempotency-Key` is still running; retry once it finished.',
    [{ code: 'idempotency_in_progress' }],
  ),
  IdempotencyMismatch: errorResponse(
    'Extension: the `Idempotency-Key` was already used with a different request body.',
    [{ code: 'idempotency_mismatch' }],
  ),
  SearchUnprocessable: errorResponse(
    'Extension: the `Idempotency-Key` was already used with a different request body, or (strict grounding) no ' +
      'source supports the answer (refunded).',
    [{ code: 'idempotency_mismatch' }, { code: 'ungrounded_answer' }],
  ),
  QuotaExceeded: errorResponse(
    "Account is at or over its message quota (credits exhausted), or the search would pass the API key's own budget.",
    [
      { code: 'quota_exceeded' },
      {
        code: 'key_budget_exceeded',
        description:
          'Account is at / over message quota: API key key_3f9c1a2b7d4e has a budget of 500 credits a day, 0 left, too few for this search; it starts afresh at 2026-11-29T00:00:00.000Z',
      },
    ],
  ),
  ServerError: errorResponse('Server error; retry later.', [{ code: 'server_error' }]),
  ServiceUnavailable: errorResponse(
    'Service down (maintenance, or too many searches in progress); retry after `Retry-After` seconds.',
    [
      { code: 'service_unavailable' },
      {
        name: 'maintenance',
        code: 'service_unavailable',
        description: 'Service Unavailable: down for maintenance',
      },
    ],
    { 'Retry-After': RETRY_AFTER_HEADER },
  ),
};

/** The media types (without parameters) of the corpus files served at `/docs/`. */
const DOCUMENT_MEDIA_TYPES = [
  ...new Set(Object.values(DOCUMENT_CONTENT_TYPES).map((type) => type.split(';')[0]!)),
];

const ref = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/** The 200 of a probe: `{"status": "<status>"}`. */
function statusResponse(description: string, status: string) {
  return {
    description,
    headers: { 'X-Request-Id': REQUEST_ID_HEADER },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { status: { type: 'string', const: status } },
          required: ['status'],
          additionalProperties: false,
        },
        examples: { [status]: { value: { status } } },
      },
    },
  };
}

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** Base URL written in `servers` (where `/v1` is mounted). @default none: relative to the host serving it */
  readonly serverUrl?: string;
}

/** The error responses of a route that spends credits (`/v1/search`, `/v1/extract`). */
const METERED_ERRORS = {
  '400': ref('BadRequest'),
  '401': ref('Unauthorized'),
  '413': ref('PayloadTooLarge'),
  '415': ref('UnsupportedMediaType'),
  '429': ref('TooManyRequests'),
  '409': ref('IdempotencyInProgress'),
  '422': ref('IdempotencyMismatch'),
  '433': ref('QuotaExceeded'),
  '500': ref('ServerError'),
  '503': ref('ServiceUnavailable'),
};

/** An example answer, as the JSON body and as the last event of a stream. */
const SEARCH_EXAMPLE = {
  answer: 'Paris is the capital of France [1].',
  response_type: 'markdown',
  sources: ['https://en.wikipedia.org/wiki/Paris'],
  response_time: 1234,
} satisfies SearchResponse;

/** The pieces the research routes share with the rest of the document (openapi-research.ts). */
function researchPieces(): OpenApiPieces {
  return {
    jsonSchema,
    errorResponse,
    headers: { requestId: REQUEST_ID_HEADER, retryAfter: RETRY_AFTER_HEADER, rateLimit: RATE_LIMIT_HEADERS },
    citations: searchResponseSchema.shape.citations,
    grounding: searchResponseSchema.shape.grounding,
  };
}

/** Builds the OpenAPI 3.1 document of the /v1 API. */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      description:
        'Web search for AI agents: one call searches, reads and answers with sources. Usage is metered in ' +
        'credits. Fields and headers marked "Extension" are opt-in: a client of the specification never sees them.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ bearerAuth: [] }],
    paths: {
      '/v1/search': searchPath(),
      '/v1/extract': extractPath(),
      '/v1/balance': balancePath(),
      ...operatingPaths(),
      ...researchPaths(researchPieces()),
      ...documentsPaths(researchPieces()),
    },
    components: components(),
  };
}

/** `POST /v1/search`: the spec's route, with its extensions (stream, citations, Idempotency-Key). */
function searchPath(): Record<string, unknown> {
  return {
    post: {
      operationId: 'search',
      summary: 'Search the web and answer the prompt with sources',
      description:
        'Charges one search worth of credits when it succeeds, whether or not the answer cites the pages it ' +
        'read; a failed or cancelled search, and one that found no page at all (its answer says so and ' +
        '`sources` is empty), is refunded. A streamed answer is charged when its first text is sent.',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Extension (optional): a retry with the same key and body replays the stored 200 without a ' +
            'second charge (`Idempotent-Replayed: true`); a different body is 422; a duplicate while the ' +
            'first runs is 409. Not with `stream`.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/SearchRequest' },
            examples: {
              spec: { summary: 'A question', value: { prompt: 'What is the capital of France?' } },
              context: {
                summary: 'With conversation context, as plain text',
                value: {
                  prompt: 'And its population?',
                  context: [{ role: 'user', content: 'Tell me about Paris.' }],
                  response_type: 'text',
                },
              },
              stream: {
                summary: 'Extension: streamed answer',
                value: { prompt: 'What is the capital of France?', stream: true },
              },
              audited: {
                summary:
                  'Extension: citations checked against the sources; refused if none supports the answer',
                value: {
                  prompt: 'What is the capital of France?',
                  include: ['citations'],
                  grounding: 'strict',
                },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description:
            'Search executed. With the `stream` extension the body is `text/event-stream` instead: events ' +
            '`sources`, `delta` (repeated), then `done` with the SearchResponse, or `error` with the Error body.',
          headers: {
            'X-Request-Id': REQUEST_ID_HEADER,
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': {
              description: 'Extension: `true` when this is the stored response of an earlier request.',
              schema: { type: 'string', const: 'true' },
            },
          },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/SearchResponse' },
              examples: { answer: { value: SEARCH_EXAMPLE } },
            },
            'text/event-stream': {
              schema: {
                type: 'string',
                description: 'Server-sent events; each `data:` is a StreamEvent.',
              },
              examples: {
                stream: {
                  value:
                    'event: sources\ndata: {"sources":["https://en.wikipedia.org/wiki/Paris"]}\n\n' +
                    'event: delta\ndata: {"text":"Paris is the capital of France [1]."}\n\n' +
                    `event: done\ndata: ${JSON.stringify(SEARCH_EXAMPLE)}\n\n`,
                },
              },
            },
          },
        },
        ...METERED_ERRORS,
        '422': ref('SearchUnprocessable'),
      },
    },
  };
}

/** `POST /v1/extract` (extension). */
function extractPath(): Record<string, unknown> {
  return {
    post: {
      operationId: 'extract',
      summary: 'Extension: read up to 20 pages (clean content, title, date, page type)',
      description:
        'Reads each URL with the same SSRF-safe fetcher and extractor as a search. Credits for every URL are ' +
        'held first (433 when the account cannot cover them); each page read is charged the per-page cost ' +
        '(`--extract-credit-cost`, default 1) and the rest is returned. A page that fails has an `error` ' +
        'and costs nothing; the request still answers 200.',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'As for `/v1/search`: a retry with the same key and body replays the stored 200.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ExtractRequest' },
            examples: {
              pages: {
                summary: 'Two pages as plain text',
                value: { urls: ['https://example.org/a', 'https://example.org/b'], format: 'text' },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'The pages, in request order.',
          headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...RATE_LIMIT_HEADERS },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ExtractResponse' },
              examples: {
                pages: {
                  value: {
                    results: [
                      {
                        url: 'https://example.org/a',
                        title: 'How glaciers move',
                        content: 'Glaciers move by internal deformation of the ice…',
                        published_at: '2025-03-04T10:00:00Z',
                        page_type: 'article',
                      },
                      {
                        url: 'https://example.org/b',
                        error: {
                          code: 'bad_status',
                          message: 'the server did not answer with the page (not a 2xx status)',
                        },
                      },
                    ],
                    credits_charged: 1,
                    response_time: 812,
                  } satisfies ExtractResponse,
                },
              },
            },
          },
        },
        ...METERED_ERRORS,
      },
    },
  };
}

/** `GET /v1/balance`. */
function balancePath(): Record<string, unknown> {
  return {
    get: {
      operationId: 'getBalance',
      summary: 'Credits still available to the account',
      responses: {
        '200': {
          description: 'Balance returned.',
          headers: { 'X-Request-Id': REQUEST_ID_HEADER },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Balance' },
              examples: { balance: { value: { available_credits: 999 } satisfies BalanceResponse } },
            },
          },
        },
        '401': ref('Unauthorized'),
        '500': ref('ServerError'),
        '503': ref('ServiceUnavailable'),
      },
    },
  };
}

/** The routes without an API key: this document, the probes and the corpus files. */
function operatingPaths(): Record<string, unknown> {
  return {
    '/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document (no API key needed)',
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness: the process answers (no API key; also in maintenance mode)',
        security: [],
        responses: { '200': statusResponse('The process is alive.', 'ok') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: the key, credit and rate-limit stores answer (no API key)',
        security: [],
        responses: {
          '200': statusResponse('Every store answered.', 'ready'),
          '503': ref('NotReady'),
        },
      },
    },
    '/docs/{path}': {
      get: {
        operationId: 'getCorpusDocument',
        summary: 'A file of the local corpus, read-only (no API key): the sources of local documents',
        description:
          'The first corpus folder is served at `/docs/`, the second at `/docs/2/`, and so on. `path` may ' +
          'contain `/`. Only regular files inside a corpus folder with one of the media types below are ' +
          'served; hidden entries, `node_modules` and links leaving the folder are not. Sent with ' +
          '`X-Content-Type-Options: nosniff`; HTML also with `Content-Security-Policy: sandbox`.',
        security: [],
        parameters: [
          {
            name: 'path',
            in: 'path',
            required: true,
            description: 'Path of the file inside its corpus folder, each segment percent-encoded.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'The file, as stored.',
            headers: {
              'X-Content-Type-Options': { schema: { type: 'string', const: 'nosniff' } },
            },
            content: Object.fromEntries(
              DOCUMENT_MEDIA_TYPES.map((type): [string, unknown] => [type, { schema: { type: 'string' } }]),
            ),
          },
          '404': ref('NotFound'),
        },
      },
    },
  };
}

/** The security scheme, the shared headers, the schemas (from the zod schemas) and the shared responses. */
function components(): Record<string, unknown> {
  const research = researchComponents(researchPieces());
  const documents = documentsComponents(researchPieces());
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'Authorization: Bearer <API_KEY>. Keys are created with `citewise keys create`.',
      },
    },
    headers: {
      'X-Request-Id': {
        description: 'Extension: identifies the request in the service logs.',
        schema: { type: 'string' },
      },
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'integer', minimum: 1 },
      },
      RateLimit: {
        description:
          'Extension (IETF RateLimit header fields draft): requests left in the window and seconds until reset, ' +
          'e.g. `"per-key";r=59;t=60`.',
        schema: { type: 'string' },
      },
      'RateLimit-Policy': {
        description:
          'Extension: the limit and its window in seconds, e.g. `"per-key";q=60;w=60`. Sent with `RateLimit` ' +
          'by the built-in rate limiters (and so by `citewise serve`); absent without a rate limiter.',
        schema: { type: 'string' },
      },
    },
    schemas: {
      SearchRequest: requestJsonSchema(),
      SearchResponse: jsonSchema(searchResponseSchema),
      Balance: jsonSchema(balanceSchema),
      ExtractRequest: jsonSchema(extractRequestSchema),
      ExtractResponse: jsonSchema(extractResponseSchema),
      Error: jsonSchema(errorSchema),
      StreamEvent: jsonSchema(streamEventSchema),
      ...research.schemas,
      ...documents.schemas,
    },
    responses: { ...RESPONSES, ...research.responses, ...documents.responses },
  };
}

/** An OpenAPI 3.1 document (a JSON object). */
export type OpenApiDocument = Record<string, unknown>;

let cached: OpenApiDocument | undefined;

/** The document served at `GET /v1/openapi.json`, built once. */
export function openApiDocument(): OpenApiDocument {
  return (cached ??= createOpenApiDocument());
}
