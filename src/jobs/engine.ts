/**
 * Research jobs inside the engine: the service built from the engine's options and its pieces (stores,
 * protocol checks, the engine's prepaid run), and the library API `engine.research` (each call as the owner of an API key,
 * with the same checks as HTTP: maintenance, key, and for `create` the rate limit).
 */
import type { SearchService } from '../contract/protocol.ts';
import type { CreditsService } from '../contract/credits.ts';
import type { NormalizedSearchRequest } from '../contract/search.ts';
import type {
  ResearchEvent,
  ResearchJob,
  ResearchJobList,
  ResearchJobResult,
  ResearchListQuery,
  ResearchRequest,
  RunPrepaid,
} from '../contract/research.ts';
import { createMemoryJobQueue } from '../stores/memory/job-queue.ts';
import { JOBS_DEFAULTS, type ResearchJobsOptions } from './options.ts';
import type { ResearchJobInput } from './records.ts';
import {
  createResearchService,
  type ResearchService,
  type ResearchServiceSettings,
} from './research-jobs.ts';
import { createPrepaidRunner } from './runner.ts';
import { createWebhookSender } from './webhooks.ts';

/** The caller of a library call: an API key (and a signal to stop waiting). */
export interface ResearchCallOptions {
  readonly apiKey: string;
  readonly signal?: AbortSignal;
}

/** `engine.research`: the research jobs of the library, as `/v1/research` serves them over HTTP. */
export interface ResearchJobsApi {
  /**
   * Creates a job (`POST /v1/research`); it runs in the background. With `idempotencyKey`, a repeat returns
   * the first job and charges nothing again.
   */
  create(
    request: ResearchRequest,
    options: ResearchCallOptions & { readonly idempotencyKey?: string },
  ): Promise<ResearchJob>;
  /** The job (`GET /v1/research/{id}`); another account's job throws a 404. */
  get(id: string, options: ResearchCallOptions): Promise<ResearchJob>;
  /** The account's jobs, newest first (`GET /v1/research`). */
  list(query: ResearchListQuery, options: ResearchCallOptions): Promise<ResearchJobList>;
  /** The job's events after `lastEventId`, ending after the terminal one (`GET /v1/research/{id}/events`). */
  events(
    id: string,
    options: ResearchCallOptions & { readonly lastEventId?: number },
  ): Promise<AsyncIterable<ResearchEvent>>;
  /** Cancels the job and refunds its unused credits (`POST /v1/research/{id}/cancel`). */
  cancel(id: string, options: ResearchCallOptions): Promise<ResearchJob>;
  /** Waits for the job to end (following its events) and returns it. */
  wait(id: string, options: ResearchCallOptions): Promise<ResearchJob>;
}

/** What the engine hands to its research jobs. */
export interface EngineResearchDeps {
  /** Admission of the library calls (maintenance, key, rate limit). */
  readonly service: SearchService;
  /** The engine's prepaid run: what the default runner runs a job's search with. */
  readonly runPrepaid: RunPrepaid;
  /** Holds, charges and refunds, each written to the ledger. */
  readonly credits: CreditsService;
  /** Credits held for a search (its price: `max_credits` caps a research search's). */
  readonly price: (request: NormalizedSearchRequest) => number;
  readonly structuredOutput: boolean;
  readonly onError: (error: unknown, context: string, jobId?: string) => void;
}

/**
 * Builds the research service and the library API of one engine, from the jobs' options (queue, runner,
 * webhook secret and hosts) and their settings as `resolveEngineOptions` resolved them.
 */
export function createEngineResearch(
  options: ResearchJobsOptions = {},
  settings: ResearchServiceSettings,
  deps: EngineResearchDeps,
): { readonly service: ResearchService; readonly api: ResearchJobsApi } {
  const webhooks = options.webhookSecret
    ? createWebhookSender({
        secret: options.webhookSecret,
        ...(options.allowPrivateHosts ? { allowPrivateHosts: options.allowPrivateHosts } : {}),
        ...settings.webhookDelivery,
      })
    : null;
  const service = createResearchService(
    {
      queue: options.queue ?? createMemoryJobQueue<ResearchJobInput, ResearchJobResult>(),
      credits: deps.credits,
      price: deps.price,
      run: options.run ?? createPrepaidRunner(deps.runPrepaid, JOBS_DEFAULTS.searchDepth),
      webhooks,
      structuredOutput: deps.structuredOutput,
      onError: deps.onError,
    },
    settings,
  );
  // A queue that outlives the process may hold jobs a previous run left: work them now.
  if (options.queue) service.start();

  const caller = async (apiKey: string) => (await deps.service.admit(apiKey, 'key')).key;
  const api: ResearchJobsApi = {
    async create(request, { apiKey, idempotencyKey }) {
      const { key } = await deps.service.admit(apiKey, 'key+rate');
      return (await service.create(key, request, idempotencyKey)).job;
    },
    async get(id, { apiKey }) {
      return service.get(await caller(apiKey), id);
    },
    async list(query, { apiKey }) {
      return service.list(await caller(apiKey), query);
    },
    async events(id, { apiKey, lastEventId, signal }) {
      return service.events(await caller(apiKey), id, {
        ...(lastEventId === undefined ? {} : { after: lastEventId }),
        ...(signal ? { signal } : {}),
      });
    },
    async cancel(id, { apiKey }) {
      return service.cancel(await caller(apiKey), id);
    },
    async wait(id, { apiKey, signal }) {
      const key = await caller(apiKey);
      for await (const event of await service.events(key, id, signal ? { signal } : {})) {
        if (['completed', 'failed', 'cancelled'].includes(event.event)) return event.data as ResearchJob;
      }
      return service.get(key, id);
    },
  };
  return { service, api };
}
