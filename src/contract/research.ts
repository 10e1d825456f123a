/**
 * The wire format of research jobs: the body of `POST /v1/research` (zod, validated like `/v1/search`), the
 * search a job runs (as a client would send it, and as the engine runs it), the job as
 * `GET /v1/research/{id}` shows it, its events and its list. Jobs, HTTP, MCP and the client read them here.
 */
import { z } from 'zod';
import {
  parseBody,
  searchRequestSchema,
  type Citation,
  type Grounding,
  type NormalizedSearchRequest,
  type SearchRequest,
} from './search.ts';
import type { JobStatus } from '../stores/job-queue.ts';
import type { SearchDepth } from '../pipeline/types.ts';
import type { ResearchStep } from '../pipeline/research/types.ts';

const shape = searchRequestSchema.shape;

/**
 * Limits of a research request's fields, written once: the schema checks them, `JOBS_DEFAULTS` shows them
 * (the settings table, OpenAPI and the MCP tool read them there).
 */
export const RESEARCH_REQUEST_DEFAULTS = {
  /** Smallest and largest accepted `time_limit_ms`. */
  minTimeLimitMs: 1_000,
  maxTimeLimitMs: 3_600_000,
  /** Largest accepted `max_credits`. */
  maxCredits: 1_000_000,
} as const;
const limits = RESEARCH_REQUEST_DEFAULTS;

/** Largest accepted `metadata`, in characters of its JSON serialization. */
export const MAX_METADATA_CHARS = 4_096;
/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_CHARS = 2_048;

const timeLimitMessage = `must be an integer from ${limits.minTimeLimitMs} to ${limits.maxTimeLimitMs} (milliseconds)`;
const maxCreditsMessage = `must be an integer from 1 to ${limits.maxCredits}`;

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
      .max(limits.maxCredits, maxCreditsMessage)
      .optional(),
    time_limit_ms: z
      .number({ error: timeLimitMessage })
      .int(timeLimitMessage)
      .min(limits.minTimeLimitMs, timeLimitMessage)
      .max(limits.maxTimeLimitMs, timeLimitMessage)
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

/** The search a job runs, as a client would send it to `POST /v1/search` ({@link researchSearchOf} runs it). */
export function searchRequestOf(request: ParsedResearchRequest, depth: SearchDepth): SearchRequest {
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
    depth,
    include: [...RESEARCH_SEARCH_INCLUDE],
  };
}

/** The extra fields of the search a job runs: what the job keeps of it. */
const RESEARCH_SEARCH_INCLUDE = ['citations', 'usage', 'steps'] as const;

/**
 * The search a job runs, as the engine runs it: the validated research request mapped straight to the
 * normalized search request (no second parse), equal to `parseSearchRequest(searchRequestOf(request, depth))`
 * (test/jobs/prepaid-run.test.ts checks it).
 */
export function researchSearchOf(
  request: ParsedResearchRequest,
  depth: SearchDepth,
): NormalizedSearchRequest {
  const json = request.output_schema !== undefined;
  const filters = {
    ...(request.include_domains?.length ? { includeDomains: request.include_domains } : {}),
    ...(request.exclude_domains?.length ? { excludeDomains: request.exclude_domains } : {}),
    ...(request.country ? { country: request.country.toUpperCase() } : {}),
    ...(request.language ? { language: request.language } : {}),
  };
  return {
    stream: false,
    filters,
    ...(request.max_sources ? { maxSources: request.max_sources } : {}),
    depth,
    ...(request.max_credits ? { maxCredits: request.max_credits } : {}),
    include: [...RESEARCH_SEARCH_INCLUDE],
    ...(request.documents === 'own' ? { documents: request.documents } : {}),
    prompt: request.prompt,
    // As for a search: only messages with role `user` are considered.
    context: (request.context ?? []).filter((message) => message.role === 'user'),
    responseType: json ? 'text' : (request.response_type ?? 'markdown'),
    ...(json && request.output_schema ? { jsonSchema: request.output_schema } : {}),
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

/**
 * What the engine's prepaid run is given (`SearchService.runPrepaid`): a search already validated and
 * already paid for by the job's own credit hold, the account it runs for, and that hold.
 */
export interface PrepaidSearch {
  /** The search to run ({@link researchSearchOf}). */
  readonly request: NormalizedSearchRequest;
  /** The account that pays: the search takes its fair slot. */
  readonly account: string;
  /** Credits the job holds: the most the run is charged. */
  readonly budget: number;
  /** Unique per run, for logs. */
  readonly requestId: string;
  /** Aborted when the job is cancelled, passes its time limit or its worker lost it. */
  readonly signal: AbortSignal;
  /** Each research step as it is made (a structured answer is not streamed: its steps come with the result). */
  readonly onStep?: (step: ResearchStep) => Promise<void>;
}

/** What a prepaid run produced: the result the job keeps, and the credits to charge from its hold. */
export interface PrepaidOutcome {
  readonly result: ResearchJobResult;
  /** At most the run's `budget`. */
  readonly creditsUsed: number;
}

/** The engine's prepaid run (src/engine/prepaid.ts), as research jobs call it. */
export type RunPrepaid = (search: PrepaidSearch) => Promise<PrepaidOutcome>;

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

/** One event of a job, as `GET /v1/research/{id}/events` sends it. */
export interface ResearchEvent {
  /** Increasing per job: send the last one seen as `Last-Event-ID` to resume after it. */
  readonly id: number;
  /** `status`, `step`, or the terminal `completed`, `failed`, `cancelled` (the last event of a stream). */
  readonly event: string;
  /** For `status` `{status, attempt?}`; for `step` the step; for a terminal event the job. */
  readonly data: unknown;
}

/** A page of jobs, as `GET /v1/research` returns it. */
export interface ResearchJobList {
  readonly data: ResearchJob[];
  readonly next_cursor?: string;
}

/** Query of `GET /v1/research`, as strings from the URL or values from the library. */
export interface ResearchListQuery {
  readonly status?: string;
  readonly limit?: string | number;
  readonly cursor?: string;
}
