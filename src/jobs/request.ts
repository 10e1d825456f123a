/**
 * The wire format of research jobs: the body of `POST /v1/research` (zod, validated like `/v1/search`), the
 * search request a job runs, and the job as `GET /v1/research/{id}` shows it.
 */
import { z } from 'zod';
import {
  parseBody,
  searchRequestSchema,
  type Citation,
  type Grounding,
  type SearchRequest,
} from '../contract/search.ts';
import { JOBS_DEFAULTS } from './options.ts';
import type { JobEvent, JobRecord, JobStatus } from '../stores/job-queue.ts';

const shape = searchRequestSchema.shape;

/** Largest accepted `metadata`, in characters of its JSON serialization. */
export const MAX_METADATA_CHARS = 4_096;
/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_CHARS = 2_048;

const timeLimitMessage = `must be an integer from ${JOBS_DEFAULTS.minTimeLimitMs} to ${JOBS_DEFAULTS.maxTimeLimitMs} (milliseconds)`;
const maxCreditsMessage = `must be an integer from 1 to ${JOBS_DEFAULTS.maxCredits}`;

/** The body of `POST /v1/research`. Unknown fields are ignored. */
export const researchRequestSchema = z.object(
  {
    prompt: shape.prompt,
    context: shape.context,
    response_type: z.enum(['text', 'markdown'], { error: 'must be "text" or "markdown"' }).optional(),
    /** A JSON Schema (an object schema): the answer is also returned as `output`, an object matching it. */
    output_schema: shape.json_schema,
    /** Most credits the job may spend; held when it is created, the unused rest refunded when it ends. */
    max_credits: z
      .number({ error: maxCreditsMessage })
      .int(maxCreditsMessage)
      .min(1, maxCreditsMessage)
      .max(JOBS_DEFAULTS.maxCredits, maxCreditsMessage)
      .optional(),
    time_limit_ms: z
      .number({ error: timeLimitMessage })
      .int(timeLimitMessage)
      .min(JOBS_DEFAULTS.minTimeLimitMs, timeLimitMessage)
      .max(JOBS_DEFAULTS.maxTimeLimitMs, timeLimitMessage)
      .optional(),
    webhook: z
      .object(
        {
          url: z
            .string({ error: 'must be an http(s) URL' })
            .max(MAX_WEBHOOK_URL_CHARS, `must be at most ${MAX_WEBHOOK_URL_CHARS} characters`)
            .refine(isHttpUrl, 'must be an http(s) URL without credentials'),
        },
        { error: 'must be an object with a url' },
      )
      .optional(),
    metadata: z
      .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
      .refine(
        (value) => JSON.stringify(value).length <= MAX_METADATA_CHARS,
        `must be at most ${MAX_METADATA_CHARS} characters when serialized`,
      )
      .optional(),
    include_domains: shape.include_domains,
    exclude_domains: shape.exclude_domains,
    max_sources: shape.max_sources,
    country: shape.country,
    language: shape.language,
    documents: shape.documents,
  },
  { error: 'must be a JSON object' },
);

/** A research request as a client sends it. */
export type ResearchRequest = z.input<typeof researchRequestSchema>;
/** A validated research request. */
export type ParsedResearchRequest = z.output<typeof researchRequestSchema>;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Validates a body; a 400 names the first invalid field (`Invalid request: webhook.url must be …`). */
export function parseResearchRequest(body: unknown): ParsedResearchRequest {
  return parseBody(researchRequestSchema, body);
}

/** What a job stores as its input: the request, and what it was created with. */
export interface ResearchJobInput {
  readonly request: ParsedResearchRequest;
  /** Credits held for the job. */
  readonly reserved: number;
  /** The job's time limit, in ms. */
  readonly timeLimitMs: number;
}

/** The search request a job runs. */
export function searchRequestOf(request: ParsedResearchRequest, depth: string): SearchRequest {
  const json = request.output_schema !== undefined;
  return {
    prompt: request.prompt,
    ...(request.context ? { context: request.context } : {}),
    response_type: json ? 'json' : (request.response_type ?? 'markdown'),
    ...(json ? { json_schema: request.output_schema } : {}),
    ...(request.include_domains ? { include_domains: request.include_domains } : {}),
    ...(request.exclude_domains ? { exclude_domains: request.exclude_domains } : {}),
    ...(request.max_sources ? { max_sources: request.max_sources } : {}),
    ...(request.country ? { country: request.country } : {}),
    ...(request.language ? { language: request.language } : {}),
    ...(request.documents ? { documents: request.documents } : {}),
    ...(request.max_credits ? { max_credits: request.max_credits } : {}),
    depth: depth as SearchRequest['depth'],
    include: ['citations', 'usage', 'steps'],
  };
}

/** What a finished job keeps: the answer and what it rests on. */
export interface ResearchJobResult {
  readonly answer: string;
  readonly sources: readonly string[];
  readonly citations?: readonly Citation[];
  readonly grounding?: Grounding;
  readonly steps?: readonly unknown[];
  /** With `output_schema`: the answer as an object. */
  readonly output?: unknown;
}

/** A research job as `GET /v1/research/{id}` returns it. */
export interface ResearchJob {
  readonly id: string;
  readonly status: JobStatus;
  /** The question, as asked. */
  readonly prompt: string;
  /** ISO 8601 times. */
  readonly created_at: string;
  readonly started_at?: string;
  readonly completed_at?: string;
  readonly answer?: string;
  /** `json` when the request gave an `output_schema` (the answer is then the JSON text of `output`). */
  readonly response_type: 'text' | 'markdown' | 'json';
  readonly sources?: readonly string[];
  readonly citations?: readonly Citation[];
  readonly grounding?: Grounding;
  /** The steps of the research so far (the hops of `depth: "research"`), as its events reported them. */
  readonly steps?: readonly unknown[];
  readonly output?: unknown;
  /** Credits charged (0 until the job completes; unused held credits are refunded). */
  readonly credits_used: number;
  readonly error?: { readonly description: string };
  readonly metadata?: Readonly<Record<string, unknown>>;
}

const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

/** The public view of a job; `steps` of a running job come from its events (see {@link stepsOf}). */
export function viewOf(job: JobRecord, steps?: readonly unknown[]): ResearchJob {
  const input = job.input as ResearchJobInput;
  const request = input.request;
  const result = job.status === 'completed' ? (job.result as ResearchJobResult | null) : null;
  const shownSteps = result?.steps ?? steps;
  const view: Record<string, unknown> = {
    id: job.id,
    status: job.status,
    prompt: request.prompt,
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    completed_at: iso(job.completedAt),
    answer: result?.answer,
    response_type: request.output_schema ? 'json' : (request.response_type ?? 'markdown'),
    sources: result?.sources,
    citations: result?.citations,
    grounding: result?.grounding,
    steps: shownSteps && shownSteps.length > 0 ? shownSteps : undefined,
    output: result?.output,
    credits_used: job.creditsUsed,
    error: job.error ? { description: job.error.description } : undefined,
    metadata: request.metadata,
  };
  for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
  return view as unknown as ResearchJob;
}

/** The steps of a job's latest run, from its event log. */
export function stepsOf(events: readonly JobEvent[]): unknown[] {
  const lastRun = events.findLastIndex(
    (event) => event.type === 'status' && (event.data as { status?: string }).status === 'running',
  );
  return events
    .slice(lastRun + 1)
    .filter((event) => event.type === 'step')
    .map((event) => event.data);
}
