/**
 * The research job routes of the OpenAPI document (`/v1/research…`), merged into it by openapi.ts, which
 * hands in its shared pieces (error responses, headers, the citation schemas) so that both stay one style.
 */
import { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import { JOB_STATUSES, MAX_LIST_LIMIT } from '../stores/job-queue-common.ts';
import { JOBS_DEFAULTS } from '../jobs/options.ts';
import { researchRequestSchema, type ResearchJob } from '../contract/research.ts';

/** What openapi.ts lends: its helpers and the schemas research jobs share with searches. */
/** The `cursor` query parameter of a list that pages by cursor. */
export const CURSOR_PARAMETER = {
  name: 'cursor',
  in: 'query',
  required: false,
  description: 'The `next_cursor` of the previous page.',
  schema: { type: 'string' },
} as const;

export interface OpenApiPieces {
  jsonSchema(schema: z.ZodType): Record<string, unknown>;
  errorResponse(
    summary: string,
    examples: readonly { readonly code: ErrorCode; readonly description?: string; readonly name?: string }[],
    headers?: Record<string, unknown>,
  ): Record<string, unknown>;
  readonly headers: {
    readonly requestId: unknown;
    readonly retryAfter: unknown;
    readonly rateLimit: Record<string, unknown>;
  };
  readonly citations: z.ZodType;
  readonly grounding: z.ZodType;
}

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const EXAMPLE_JOB = {
  id: 'res_5f0c1d2e3a4b5c6d7e8f9a0b',
  status: 'completed',
  prompt: 'Where does the Rhône rise, and where does it reach the sea?',
  created_at: '2026-05-04T10:00:00.000Z',
  started_at: '2026-05-04T10:00:00.120Z',
  completed_at: '2026-05-04T10:00:41.900Z',
  answer: 'The Rhône rises in the Rhône Glacier [1] and reaches the Mediterranean near Arles [2].',
  response_type: 'markdown',
  sources: ['https://en.wikipedia.org/wiki/Rh%C3%B4ne_Glacier', 'https://en.wikipedia.org/wiki/Rh%C3%B4ne'],
  credits_used: 1,
  metadata: { ticket: 'T-1042' },
} satisfies ResearchJob;

function researchJobSchema(pieces: OpenApiPieces) {
  const time = (what: string) => z.string().meta({ description: `When the job ${what} (ISO 8601).` });
  return z
    .object({
      id: z.string().meta({ description: 'The job id (`res_…`).' }),
      status: z.enum(JOB_STATUSES as [string, ...string[]]),
      prompt: z.string().meta({ description: 'The question, as asked.' }),
      created_at: time('was created'),
      started_at: time('first started').optional(),
      completed_at: time('ended').optional(),
      answer: z.string().optional().meta({ description: 'The answer, once completed.' }),
      response_type: z.enum(['text', 'markdown', 'json']).meta({
        description:
          '`json` when the request gave an `output_schema` (`answer` is then the JSON text of `output`).',
      }),
      sources: z.array(z.string()).optional(),
      citations: pieces.citations,
      grounding: pieces.grounding,
      steps: z.array(z.unknown()).optional().meta({
        description: 'The steps of the research so far (queries, pages read, findings), as streamed.',
      }),
      output: z.unknown().optional().meta({ description: 'With `output_schema`: the answer as an object.' }),
      credits_used: z.number().int().meta({ description: 'Credits charged (0 until completed).' }),
      error: z.object({ description: z.string() }).optional().meta({ description: 'Why the job failed.' }),
      metadata: z.record(z.string(), z.unknown()).optional().meta({ description: 'As given at creation.' }),
    })
    .meta({ description: 'A research job.' });
}

const eventSchema = z
  .object({
    status: z.string().optional(),
    attempt: z.number().int().optional(),
  })
  .meta({
    description:
      'The `data:` of an event, by its `event:` name: `status` `{status, attempt?}` (queued, running; a job ' +
      'restarted after its worker died runs again with the next attempt); `step` one step of the research; ' +
      '`completed`, `failed`, `cancelled`: the job (the last event of the stream). Every event has an `id:`.',
  });

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The job id.',
  schema: { type: 'string' },
};

function jobResponse(description: string) {
  return {
    description,
    content: {
      'application/json': { schema: schemaRef('ResearchJob'), examples: { job: { value: EXAMPLE_JOB } } },
    },
  };
}

/** The components (schemas and responses) of the research routes. */
export function researchComponents(pieces: OpenApiPieces) {
  const job = pieces.jsonSchema(researchJobSchema(pieces));
  return {
    schemas: {
      ResearchRequest: {
        ...pieces.jsonSchema(researchRequestSchema),
        description: 'A research job. Only `prompt` is required; unknown fields are ignored.',
      },
      ResearchJob: job,
      ResearchJobList: {
        type: 'object',
        properties: {
          // Inline rather than a $ref: the schema stays self-contained for validators.
          data: { type: 'array', items: job },
          next_cursor: {
            type: 'string',
            description: 'Pass as `cursor` for the next page; absent on the last.',
          },
        },
        required: ['data'],
      },
      ResearchEvent: pieces.jsonSchema(eventSchema),
    },
    responses: {
      ResearchNotFound: pieces.errorResponse(
        'No job with this id for this account (another account’s job is a 404 too).',
        [{ code: 'not_found', description: 'Not Found: no research job with this id' }],
      ),
      TooManyJobs: pieces.errorResponse(
        'Too many requests, or the account already has its most research jobs waiting (`--max-queued-jobs`); ' +
          'retry after `Retry-After` seconds.',
        [
          {
            code: 'too_many_jobs',
            description: 'Too Many Requests: this account already has 20 research jobs waiting',
          },
          { code: 'rate_limited' },
        ],
        { 'Retry-After': pieces.headers.retryAfter, ...pieces.headers.rateLimit },
      ),
      TooManyStreams: pieces.errorResponse(
        'Too many requests, or the key (`--max-streams-per-key`) or its account (`--max-streams-per-account`) ' +
          'already has its most event streams open on this instance; close one, then retry after ' +
          '`Retry-After` seconds.',
        [
          {
            code: 'too_many_streams',
            description: 'Too Many Requests: this key already has 10 event streams open',
          },
          { code: 'rate_limited' },
        ],
        { 'Retry-After': pieces.headers.retryAfter, ...pieces.headers.rateLimit },
      ),
    },
  };
}

/** The paths of the research routes. */
export function researchPaths(pieces: OpenApiPieces) {
  const withRequestId = { 'X-Request-Id': pieces.headers.requestId };
  const reads = {
    '401': ref('Unauthorized'),
    '404': ref('ResearchNotFound'),
    '500': ref('ServerError'),
    '503': ref('ServiceUnavailable'),
  };
  return {
    '/v1/research': {
      post: {
        operationId: 'createResearchJob',
        summary: 'Extension: start a research job (a long question answered in the background)',
        description:
          'Holds `max_credits` (or the price of one job) at once — 433 when the account cannot cover it — and ' +
          'answers 202 with the job; the work runs on a worker. When the job ends, what it used is charged and ' +
          'the rest refunded, once, even if it restarted after a crash. A `webhook.url` receives a Standard ' +
          'Webhooks signed POST (`research.completed`, `research.failed`, `research.cancelled`); it must pass ' +
          'the SSRF guard (400 otherwise).',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'A repeat with the same key returns the first job (200) and never charges again.',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: schemaRef('ResearchRequest'),
              examples: {
                question: {
                  value: { prompt: 'Where does the Rhône rise, and where does it reach the sea?' },
                },
                capped: {
                  summary: 'A budget, a time limit, a webhook and your own metadata',
                  value: {
                    prompt: 'Compare the sources of the Rhône and the Rhine',
                    max_credits: 5,
                    time_limit_ms: 120_000,
                    webhook: { url: 'https://example.com/hooks/citewise' },
                    metadata: { ticket: 'T-1042' },
                  },
                },
              },
            },
          },
        },
        responses: {
          '202': {
            ...jobResponse('The job, queued (or already running).'),
            headers: { ...withRequestId, Location: { schema: { type: 'string' } } },
          },
          '200': jobResponse('The job first created with this `Idempotency-Key`.'),
          '400': ref('BadRequest'),
          '401': ref('Unauthorized'),
          '413': ref('PayloadTooLarge'),
          '415': ref('UnsupportedMediaType'),
          '422': ref('IdempotencyMismatch'),
          '429': ref('TooManyJobs'),
          '433': ref('QuotaExceeded'),
          '500': ref('ServerError'),
          '503': ref('ServiceUnavailable'),
        },
      },
      get: {
        operationId: 'listResearchJobs',
        summary: "Extension: the account's research jobs, newest first",
        parameters: [
          { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: JOB_STATUSES } },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_LIST_LIMIT,
              default: JOBS_DEFAULTS.listLimit,
            },
          },
          CURSOR_PARAMETER,
        ],
        responses: {
          '200': {
            description: 'A page of jobs.',
            content: {
              'application/json': {
                schema: schemaRef('ResearchJobList'),
                examples: { page: { value: { data: [EXAMPLE_JOB] } } },
              },
            },
          },
          '400': ref('BadRequest'),
          '401': ref('Unauthorized'),
          '500': ref('ServerError'),
          '503': ref('ServiceUnavailable'),
        },
      },
    },
    '/v1/research/{id}': {
      get: {
        operationId: 'getResearchJob',
        summary: 'Extension: a research job, with its answer once completed',
        parameters: [idParameter],
        responses: { '200': jobResponse('The job.'), ...reads },
      },
    },
    '/v1/research/{id}/events': {
      get: {
        operationId: 'streamResearchEvents',
        summary: "Extension: the job's events as server-sent events, until it ends",
        description:
          'Every event has an `id:` (1, 2, 3…) and an `event:` name; the stream ends after the terminal event ' +
          '(`completed`, `failed` or `cancelled`, whose data is the job). With `Last-Event-ID`, only the events ' +
          'after that id are sent. Works for running and for finished jobs. Idle streams get a `: keep-alive` ' +
          'comment every 15 s.',
        parameters: [
          idParameter,
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'The id of the last event received: replay only what came after it.',
            schema: { type: 'integer', minimum: 0 },
          },
        ],
        responses: {
          '200': {
            description: 'The event stream.',
            content: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description: 'Events whose `data:` is described by ResearchEvent.',
                },
              },
            },
          },
          '400': ref('BadRequest'),
          '429': ref('TooManyStreams'),
          ...reads,
        },
      },
    },
    '/v1/research/{id}/cancel': {
      post: {
        operationId: 'cancelResearchJob',
        summary: 'Extension: cancel a research job; its unused credits are refunded',
        parameters: [idParameter],
        responses: {
          '200': jobResponse('The job, cancelled (or as it ended, if it already had).'),
          ...reads,
        },
      },
    },
  };
}
