/**
 * One search, from an admitted request to the response body: the money path (hold, fair slot, commit or
 * refund) around the pipeline (pipeline/run.ts), the grounding check, and the body with the fields the
 * request asked for. The streamed form is stream.ts; both share the helpers here.
 */
import { CitewiseError } from '../errors.ts';
import type { RequestInfo } from '../http/handler.ts';
import type { NormalizedSearchRequest, SearchResponse } from '../contract/search.ts';
import type { EngineMetrics } from '../observability/types.ts';
import type { GroundingCheck } from '../pipeline/answer/grounding.ts';
import {
  runPipeline,
  type PipelineResult,
  type PipelineSettings,
  type PipelineStages,
  type StageTimings,
} from '../pipeline/run.ts';
import type { SearchProvider } from '../pipeline/types.ts';
import type { KeyRecord } from '../stores/types.ts';
import type { CreditsService } from './credits.ts';
import { chargeTarget, isChargeable, priceOf, type SearchPrice } from './billing.ts';
import type { MoneyPath } from './money-path.ts';
import {
  groundingFields,
  groundingOf,
  pipelineError,
  searchResultsOf,
  ungroundedError,
  type AnsweredSearch,
} from './response.ts';

/** What the search, stream and extract modules run on, built once by {@link createSearchEngine}. */
export interface SearchRuntime {
  readonly stages: PipelineStages;
  /** The search of `documents: "own"`: the account's own documents only; absent without a document index. */
  readonly ownDocuments?: SearchProvider;
  /** Whether the answerer writes structured output (`response_type: "json"`). */
  readonly structuredOutput: boolean;
  readonly settings: PipelineSettings;
  readonly moneyPath: MoneyPath;
  readonly credits: CreditsService;
  /** Credits per search. */
  readonly creditCost: number;
  /** Credits per search query of `depth: "research"`. */
  readonly researchCreditsPerQuery: number;
  /** Credits per page read by `/v1/extract`. */
  readonly extractCreditCost: number;
  /** Share of `extractCreditCost` per page of `/v1/extract` requested but not read. */
  readonly extractFailedShare: number;
  /** Refuse ungrounded answers unless the request says `grounding: "lenient"`. */
  readonly strictGrounding: boolean;
  readonly metrics: EngineMetrics | undefined;
  /** Logs a failure the way the protocol does (a stream reports its own, past the response's start). */
  readonly reportError: (error: CitewiseError, info: RequestInfo) => void;
}

/** Runs one search as `key` (already admitted): charged when it found pages (cited or not), else refunded. */
export async function runSearch(
  runtime: SearchRuntime,
  key: KeyRecord,
  request: NormalizedSearchRequest,
  info: RequestInfo,
): Promise<SearchResponse> {
  assertAnswerable(runtime, request);
  const price = searchPrice(runtime, request);
  let signal = info.signal;
  let result: PipelineResult;
  let grounding: GroundingCheck | undefined;
  try {
    result = await runtime.moneyPath.run(
      chargeTarget(key, info, price.hold),
      async (call) => {
        signal = call.signal;
        const found = await runPipeline(
          request,
          stagesOf(runtime, request),
          settingsFor(runtime, price),
          withBaseUrl(call, info),
        );
        grounding = checkGroundingOf(runtime, request, found);
        return found;
      },
      (found) => price.charge(found),
    );
  } catch (thrown) {
    const error = pipelineError(thrown, signal);
    observeSearch(runtime, info, false, { error });
    throw error;
  }
  const charged = price.charge(result);
  observeSearch(runtime, info, false, { charged, timings: result.timings });
  return responseBody(runtime, key, request, result, info, charged, grounding);
}

/** The price of a request on this engine ({@link priceOf}). */
export function searchPrice(runtime: SearchRuntime, request: NormalizedSearchRequest): SearchPrice {
  return priceOf(request, {
    creditCost: runtime.creditCost,
    researchCreditsPerQuery: runtime.researchCreditsPerQuery,
    ...(runtime.settings.research ? { research: runtime.settings.research } : {}),
  });
}

/** The pipeline settings of one request: a research search sends no more queries than its hold pays for. */
export function settingsFor(runtime: SearchRuntime, price: SearchPrice): PipelineSettings {
  if (price.maxQueries === undefined) return runtime.settings;
  return { ...runtime.settings, research: { ...runtime.settings.research, maxQueries: price.maxQueries } };
}

/**
 * The grounding check of a finished search, when the response shows it or strict grounding needs it.
 * Under strict grounding, an answer written from pages that no source supports (it cites none, or none
 * of its citations holds) is refused: thrown inside the money path, so a plain search is refunded. A
 * search that found no page at all is answered ("the sources do not contain an answer") for free.
 */
export function checkGroundingOf(
  runtime: SearchRuntime,
  request: NormalizedSearchRequest,
  found: Omit<AnsweredSearch, 'json'>,
): GroundingCheck | undefined {
  const strict = (request.grounding ?? (runtime.strictGrounding ? 'strict' : 'lenient')) === 'strict';
  if (!strict && !request.include.includes('citations')) return undefined;
  const check = groundingOf({ ...found, json: request.jsonSchema !== undefined });
  if (strict && isChargeable(found) && check.report.level === 'none') throw ungroundedError();
  return check;
}

/** The stages of one request: `documents: "own"` searches the account's own documents, nothing else. */
export function stagesOf(runtime: SearchRuntime, request: NormalizedSearchRequest): PipelineStages {
  if (request.documents !== 'own' || runtime.ownDocuments === undefined) return runtime.stages;
  return { ...runtime.stages, search: runtime.ownDocuments };
}

/** Refuses, before any charge, a request this engine cannot answer (see {@link stagesOf}). */
export function assertAnswerable(runtime: SearchRuntime, request: NormalizedSearchRequest): void {
  if (request.documents === 'own' && runtime.ownDocuments === undefined) {
    const description =
      'Invalid request: documents "own" needs the documents API, which this service does not offer';
    throw new CitewiseError('invalid_request', description, { description });
  }
  if (request.jsonSchema && !runtime.structuredOutput) {
    const description =
      'Invalid request: response_type "json" needs a model (start the service with --model)';
    throw new CitewiseError('invalid_request', description, { description });
  }
}

/** The spec body, plus the fields the request asked for with `include`. */
export async function responseBody(
  runtime: SearchRuntime,
  key: KeyRecord,
  request: NormalizedSearchRequest,
  result: Pick<PipelineResult, 'answer' | 'sources' | 'passages' | 'steps'> & { timings?: StageTimings },
  info: RequestInfo,
  charged: number,
  grounding: GroundingCheck | undefined,
): Promise<SearchResponse> {
  const responseTime = Math.round(performance.now() - info.startedAt);
  const body: SearchResponse = {
    answer: result.answer,
    response_type: request.jsonSchema ? 'json' : request.responseType,
    sources: result.sources,
    response_time: responseTime,
  };
  if (request.include.includes('citations') && grounding) Object.assign(body, groundingFields(grounding));
  if (request.include.includes('search_results')) {
    body.search_results = searchResultsOf(result.sources, result.passages);
  }
  if (request.include.includes('usage')) {
    body.usage = {
      credits_charged: charged,
      credits_remaining: await runtime.credits.balance(key.accountId),
    };
  }
  if (request.include.includes('timings')) body.timings = { ...result.timings, total: responseTime };
  if (request.include.includes('steps') && result.steps) body.steps = result.steps;
  return body;
}

/** How a search settled, for {@link observeSearch}: failed, or answered with the credits it cost. */
export type SearchOutcome =
  | { readonly error: CitewiseError }
  | { readonly charged: number; readonly timings?: StageTimings | undefined };

/** Reports a settled search to the opt-in metrics hook. */
export function observeSearch(
  runtime: SearchRuntime,
  info: RequestInfo,
  stream: boolean,
  outcome: SearchOutcome,
): void {
  const failed = 'error' in outcome;
  runtime.metrics?.observeSearch?.({
    outcome: failed ? 'error' : 'success',
    stream,
    creditsCharged: failed ? 0 : outcome.charged,
    durationMs: performance.now() - info.startedAt,
    ...(!failed && outcome.timings ? { timings: outcome.timings } : {}),
    ...(failed ? { errorCode: outcome.error.code } : {}),
  });
}

/** The call with the request's base URL, from which the default local index cites its documents. */
export function withBaseUrl<T extends object>(call: T, info: RequestInfo): T {
  return info.baseUrl ? { ...call, requestBaseUrl: info.baseUrl } : call;
}
