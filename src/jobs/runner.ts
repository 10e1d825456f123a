/**
 * What runs one research job: a {@link ResearchRunner}. The default hands the job's validated request to the
 * engine's prepaid run (the stages, a fair search slot, the deadline; no hold of its own: the job's credits
 * were held when it was created). Steps it makes (`depth: "research"`) are reported with `onStep` and land
 * in the job's event log as `step` events.
 */
import {
  researchSearchOf,
  type ParsedResearchRequest,
  type PrepaidOutcome,
  type RunPrepaid,
} from '../contract/research.ts';
import type { SearchDepth } from '../pipeline/types.ts';

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
  /** Credits held for the job: the most the run may be charged. */
  readonly budget: number;
  /** Records one step of the work: appended to the job's events as a `step` event. */
  onStep(step: unknown): Promise<void>;
}

/** What a run produced: the result kept with the job and the credits it cost (at most those held). */
export type ResearchOutcome = PrepaidOutcome;

/** Runs one job. Throw a `CitewiseError` to fail it with that description. */
export type ResearchRunner = (
  request: ParsedResearchRequest,
  context: ResearchRunContext,
) => Promise<ResearchOutcome>;

/** The default {@link ResearchRunner}: the engine's prepaid run of the job's search at `depth`. */
export function createPrepaidRunner(runPrepaid: RunPrepaid, depth: SearchDepth): ResearchRunner {
  return (request, context) =>
    runPrepaid({
      request: researchSearchOf(request, depth),
      account: context.account,
      budget: context.budget,
      requestId: context.requestId,
      signal: context.signal,
      onStep: (step) => context.onStep(step),
    });
}
