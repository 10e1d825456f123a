/**
 * The prepaid run of a research job: the job was validated and its credits held when it was created
 * (src/jobs/), so its search is handed over already parsed, with the account and the hold. It takes a fair
 * slot and the request deadline on the money path without a hold of its own, runs the pipeline (streamed,
 * so that each research step is reported as it is made, unless the answer is structured), checks the
 * grounding, and returns what the job keeps and the credits to charge from its hold: typed objects, no
 * response body, no wire events. The job's finalizer charges them through the credits service.
 */
import { CitewiseError } from '../errors.ts';
import type { PrepaidOutcome, PrepaidSearch, ResearchJobResult } from '../contract/research.ts';
import type { RequestInfo } from '../contract/protocol.ts';
import type { GroundingCheck } from '../pipeline/answer/grounding.ts';
import { runPipeline, streamPipeline, type PipelineResult } from '../pipeline/run.ts';
import type { ResearchStep } from '../pipeline/research/types.ts';
import type { MeteredCall } from './money-path.ts';
import { groundingFields, pipelineError } from './response.ts';
import {
  assertAnswerable,
  checkGroundingOf,
  observeSearch,
  searchPrice,
  settingsFor,
  stagesOf,
  type SearchRuntime,
} from './search.ts';

/** What one run found: the pipeline's answer and evidence, and its grounding check. */
type Found = Pick<PipelineResult, 'answer' | 'sources' | 'documents' | 'searches' | 'steps'> & {
  readonly grounding: GroundingCheck | undefined;
  /** Stage timings, for the metrics hook (a streamed run reports none, as a streamed search). */
  readonly timings?: PipelineResult['timings'];
};

/** Runs a prepaid search (see the module comment). Throws a `CitewiseError` when it fails. */
export async function runPrepaid(runtime: SearchRuntime, run: PrepaidSearch): Promise<PrepaidOutcome> {
  const { request } = run;
  const info: RequestInfo = { requestId: run.requestId, startedAt: performance.now(), signal: run.signal };
  // A structured answer is not streamed: its steps come with the result.
  const streamed = request.jsonSchema === undefined;
  assertAnswerable(runtime, request);
  const price = searchPrice(runtime, request);
  let signal = run.signal;
  let found: Found;
  try {
    found = await runtime.moneyPath.prepaid(
      { account: run.account, requestId: run.requestId, signal: run.signal },
      (call) => {
        signal = call.signal;
        return streamed ? streamedRun(runtime, run, call, price) : plainRun(runtime, run, call, price);
      },
    );
  } catch (thrown) {
    const error = pipelineError(thrown, signal);
    // As a streamed search reports its own failure (the job's worker logs its end as well).
    if (streamed) runtime.reportError(error, info);
    observeSearch(runtime, info, streamed, { error });
    throw error;
  }
  const charged = Math.min(price.charge(found), run.budget);
  observeSearch(runtime, info, streamed, { charged, timings: found.timings });
  return { result: resultOf(run, found), creditsUsed: charged };
}

type Price = ReturnType<typeof searchPrice>;

async function plainRun(runtime: SearchRuntime, run: PrepaidSearch, call: MeteredCall, price: Price) {
  const { request } = run;
  const result = await runPipeline(request, stagesOf(runtime, request), settingsFor(runtime, price), call);
  return { ...result, grounding: checkGroundingOf(runtime, request, result) };
}

async function streamedRun(
  runtime: SearchRuntime,
  run: PrepaidSearch,
  call: MeteredCall,
  price: Price,
): Promise<Found> {
  const { request } = run;
  let gathered = { passages: [], documents: [], searches: 1 } as Pick<
    PipelineResult,
    'passages' | 'documents' | 'searches' | 'steps'
  >;
  const stepsMade: ResearchStep[] = [];
  const events = streamPipeline(
    request,
    stagesOf(runtime, request),
    settingsFor(runtime, price),
    call,
    (evidence) => (gathered = evidence),
  );
  for await (const event of events) {
    if (event.type === 'step') {
      stepsMade.push(event.step);
      await run.onStep?.(event.step);
    } else if (event.type === 'done') {
      const answered = { answer: event.answer, sources: [...event.sources] };
      const grounding = checkGroundingOf(runtime, request, { ...answered, ...gathered });
      const steps = stepsMade.length > 0 ? stepsMade : gathered.steps;
      return { ...answered, ...gathered, ...(steps ? { steps } : {}), grounding };
    }
  }
  throw new CitewiseError('server_error', 'the search ended without an answer');
}

/** What the job keeps of a run: the answer, its sources, citations and grounding, steps, `output`. */
function resultOf(run: PrepaidSearch, found: Found): ResearchJobResult {
  const { request } = run;
  return {
    answer: found.answer,
    sources: [...found.sources],
    ...(request.include.includes('citations') && found.grounding ? groundingFields(found.grounding) : {}),
    ...(found.steps?.length ? { steps: found.steps } : {}),
    ...(request.jsonSchema ? { output: JSON.parse(found.answer) as unknown } : {}),
  };
}
