/**
 * What runs one research job: a {@link ResearchRunner}. The engine's default runs its own search (the
 * stages, a fair search slot, the deadline) with the job's request; the job's credits were held when it was
 * created, so that search holds none of its own. Steps the search streams (`depth: "research"`) are
 * reported with `onStep` and land in the job's event log as `step` events.
 */
import { CitewiseError, type ErrorCode } from '../errors.ts';
import type { RequestInfo, SearchService } from '../contract/protocol.ts';
import { parseSearchRequest, type SearchResponse } from '../contract/search.ts';
import type { KeyRecord } from '../stores/types.ts';
import { searchRequestOf, type ParsedResearchRequest, type ResearchJobResult } from './request.ts';

/** What a runner gets besides the request. */
export interface ResearchRunContext {
  /** Aborted when the job is cancelled, passes its time limit, or its worker lost the job. */
  readonly signal: AbortSignal;
  /** Unique per run of the job (its id and attempt), for logs. */
  readonly requestId: string;
  /** The account that pays (its credits are already held). */
  readonly account: string;
  /** The API key that created the job. */
  readonly keyId: string | null;
  /** Records one step of the work: appended to the job's events as a `step` event. */
  onStep(step: unknown): Promise<void>;
}

/** What a run produced: the result kept with the job and the credits it cost (at most those held). */
export interface ResearchOutcome {
  readonly result: ResearchJobResult;
  readonly creditsUsed: number;
}

/** Runs one job. Throw a {@link CitewiseError} to fail it with that description. */
export type ResearchRunner = (
  request: ParsedResearchRequest,
  context: ResearchRunContext,
) => Promise<ResearchOutcome>;

/** The engine's search, as the default runner uses it. */
export type EngineSearch = Pick<SearchService, 'runSearch' | 'runSearchStream'>;

/** The default {@link ResearchRunner}: the engine's search at `depth`, with citations. */
export function createSearchRunner(search: EngineSearch, depth: string): ResearchRunner {
  return async (request, context) => {
    const normalized = parseSearchRequest(searchRequestOf(request, depth));
    const key: KeyRecord = {
      id: context.keyId ?? 'research-job',
      accountId: context.account,
      name: null,
      prefix: '',
      createdAt: 0,
      expiresAt: null,
      revokedAt: null,
    };
    // `prepaid`: the job's hold pays; the search takes a fair slot and its deadline, and holds nothing.
    const info: RequestInfo = {
      requestId: context.requestId,
      startedAt: performance.now(),
      signal: context.signal,
      prepaid: true,
    };
    const steps: unknown[] = [];
    let body: SearchResponse | undefined;
    if (normalized.jsonSchema) {
      // Structured answers are not streamed: no steps to report on the way.
      body = await search.runSearch(key, normalized, info);
    } else {
      for await (const event of await search.runSearchStream(key, normalized, info)) {
        if (event.type === 'done') body = event.body;
        else if (event.type === 'error') {
          throw new CitewiseError(event.error.code as ErrorCode, event.error.description, {
            description: event.error.description,
          });
        } else if ((event as { type: string }).type === 'step') {
          const { type: _type, ...rest } = event as { type: string; step?: unknown };
          const step = 'step' in rest ? rest.step : rest;
          steps.push(step);
          await context.onStep(step);
        }
      }
    }
    if (!body) throw new CitewiseError('server_error', 'the search ended without an answer');
    if (steps.length === 0 && body.steps) steps.push(...body.steps);
    return {
      result: {
        answer: body.answer,
        sources: body.sources,
        ...(body.citations ? { citations: body.citations } : {}),
        ...(body.grounding ? { grounding: body.grounding } : {}),
        ...(steps.length ? { steps } : {}),
        ...(normalized.jsonSchema ? { output: JSON.parse(body.answer) as unknown } : {}),
      },
      creditsUsed: body.usage?.credits_charged ?? 0,
    };
  };
}
