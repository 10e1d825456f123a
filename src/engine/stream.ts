/**
 * One streamed search (`"stream": true`, the playground, MCP and OpenAI-compatible streams): admitted and
 * charged like a plain search (search.ts), committed just before the first answer text goes out (a client
 * that leaves after receiving it has paid), refunded on failure and when the consumer stops before any
 * answer text (a client that disconnected).
 */
import { errorBody, toCitewiseError, type CitewiseError } from '../errors.ts';
import type { RequestInfo } from '../http/handler.ts';
import type { NormalizedSearchRequest, SearchStreamEvent } from '../contract/search.ts';
import type { GroundingCheck } from '../pipeline/answer/grounding.ts';
import { streamPipeline } from '../pipeline/run.ts';
import type { ExtractedContent, Passage } from '../pipeline/types.ts';
import type { ResearchStep } from '../pipeline/research/types.ts';
import type { KeyRecord } from '../stores/types.ts';
import { chargeTarget } from './billing.ts';
import { pipelineError } from './response.ts';
import {
  assertAnswerable,
  stagesOf,
  checkGroundingOf,
  observeSearch,
  responseBody,
  searchPrice,
  settingsFor,
  withBaseUrl,
  type SearchRuntime,
} from './search.ts';

/** Runs one streamed search as `key` (already admitted). Errors before the stream starts are thrown. */
export async function runSearchStream(
  runtime: SearchRuntime,
  key: KeyRecord,
  request: NormalizedSearchRequest,
  info: RequestInfo,
): Promise<AsyncIterable<SearchStreamEvent>> {
  assertAnswerable(runtime, request);
  const price = searchPrice(runtime, request);
  let signal = info.signal;
  let passages: readonly Passage[] = [];
  let documents: readonly ExtractedContent[] = [];
  let steps: readonly ResearchStep[] | undefined;
  // Checked once, when the stream is done (an answer refused before any text went out is refunded).
  let grounding: { check: GroundingCheck | undefined } | { refused: CitewiseError } | undefined;
  const groundingAtEnd = (event: { answer: string; sources: readonly string[] }) => {
    if (grounding === undefined) {
      try {
        grounding = { check: checkGroundingOf(runtime, request, { ...event, passages, documents }) };
      } catch (thrown) {
        grounding = { refused: toCitewiseError(thrown) };
      }
    }
    return grounding;
  };
  let searches = 1;
  let charged = 0;
  const events = await runtime.moneyPath.stream(
    chargeTarget(key, info, price.hold),
    (call) => {
      signal = call.signal;
      return streamPipeline(
        request,
        stagesOf(runtime, request),
        settingsFor(runtime, price),
        withBaseUrl(call, info),
        (gathered) => {
          passages = gathered.passages;
          documents = gathered.documents;
          steps = gathered.steps;
          searches = gathered.searches;
        },
      );
    },
    (event) => event.type === 'delta' || event.type === 'done',
    (event) => {
      // At the first delta; at `done` only for an answer streamed without text (then it may be refused).
      const refused = event.type === 'done' && 'refused' in groundingAtEnd(event);
      charged = refused ? 0 : price.charge({ documents, searches });
      return charged;
    },
  );
  return (async function* respond(): AsyncGenerator<SearchStreamEvent> {
    try {
      for await (const event of events) {
        if (event.type !== 'done') {
          yield event;
          continue;
        }
        const checked = groundingAtEnd(event);
        if ('refused' in checked) throw checked.refused;
        observeSearch(runtime, info, true, { charged });
        const result = {
          answer: event.answer,
          sources: [...event.sources],
          passages,
          ...(steps ? { steps } : {}),
        };
        const body = await responseBody(runtime, key, request, result, info, charged, checked.check);
        yield { type: 'done', body };
      }
    } catch (thrown) {
      const error = pipelineError(thrown, signal);
      runtime.reportError(error, info);
      observeSearch(runtime, info, true, { error });
      yield { type: 'error', error: errorBody(error).error };
    }
  })();
}
