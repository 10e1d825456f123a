/**
 * The model-planned research planner: each round, a language model reads the question and what the rounds
 * so far found (queries, page titles, their best sentences) and proposes the next queries as structured
 * output, checked with zod. A reply that is malformed, empty or only repeats earlier queries, a model that
 * fails or is too slow: the round is planned by the rules instead ({@link createRulesPlanner}), never an
 * error, and the step says why (`fallback`).
 */
import { generateText, Output, type LanguageModel } from 'ai';
import { z } from 'zod';
import { splitSentences } from '../../text/sentences.ts';
import {
  checkTelemetrySettings,
  telemetryCallOptions,
  type ModelTelemetrySettings,
} from '../answer/telemetry.ts';
import { positiveInteger } from '../../options.ts';
import type { QuestionAnalysis } from './question.ts';
import { resolveResearchSettings } from './settings.ts';
import {
  type PlannedQuery,
  type ResearchPlan,
  type ResearchPlanner,
  type ResearchSettings,
  type ResearchState,
} from './types.ts';

/** Defaults of {@link ModelResearchPlannerOptions}. */
export const MODEL_PLANNER_DEFAULTS = {
  /** Time allowed for one planning call, in ms. */
  timeoutMs: 8_000,
  /** Most tokens the model may write for a plan. */
  maxOutputTokens: 300,
  /** Most queries taken from one plan. */
  maxQueries: 4,
  /** Most characters of findings shown to the model. */
  maxFindingsChars: 4_000,
} as const;

/** Options of {@link createModelResearchPlanner}. */
export interface ModelResearchPlannerOptions {
  readonly model: LanguageModel;
  /** Plans a round when the model's plan is refused. */
  readonly fallback: ResearchPlanner;
  /** Budgets (the results read per query), resolved once here. @default RESEARCH_DEFAULTS */
  readonly settings?: ResearchSettings;
  /** @default MODEL_PLANNER_DEFAULTS.timeoutMs (8000) */
  readonly timeoutMs?: number;
  /** @default MODEL_PLANNER_DEFAULTS.maxOutputTokens (300) */
  readonly maxOutputTokens?: number;
  /** @default MODEL_PLANNER_DEFAULTS.maxQueries (4) */
  readonly maxQueries?: number;
  /** Telemetry of the planning calls. @default none */
  readonly telemetry?: ModelTelemetrySettings;
}

/** What the model must reply. */
const planSchema = z.object({
  queries: z.array(z.string()).max(10),
  done: z.boolean().optional(),
});

const INSTRUCTIONS = [
  'You plan web searches for a research question that may need several documents (a chain of facts, or each side of a comparison).',
  'You see the question and what earlier searches found. Propose the next search queries: short keyword queries, each for one missing fact, naming the entity found so far that the next fact is about (e.g. the director found on the film page).',
  'Never repeat a query already searched. When the findings already hold every fact the answer needs, reply with done true and no queries.',
  'Reply with JSON only: {"queries": ["..."], "done": false}.',
].join('\n');

/** How a plan was refused, for the step's `fallback`. */
type Refusal = 'malformed' | 'empty' | 'repeated' | 'failed';

/** Creates the model-planned research planner. */
export function createModelResearchPlanner(options: ModelResearchPlannerOptions): ResearchPlanner {
  if (!options || typeof options !== 'object' || !options.model)
    throw new TypeError('createModelResearchPlanner: model is required');
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, MODEL_PLANNER_DEFAULTS.timeoutMs);
  const maxOutputTokens = positiveInteger(
    'maxOutputTokens',
    options.maxOutputTokens,
    MODEL_PLANNER_DEFAULTS.maxOutputTokens,
  );
  const maxQueries = positiveInteger('maxQueries', options.maxQueries, MODEL_PLANNER_DEFAULTS.maxQueries);
  checkTelemetrySettings(options.telemetry);
  const { leadResults: results, questionResults: firstResults } = resolveResearchSettings(options.settings);

  /** Asks the model; a refused plan falls back to the rules' plan of the same round. */
  async function plan(
    user: string,
    searched: (query: string) => boolean,
    queriesLeft: number,
    signal: AbortSignal,
    fallback: () => Promise<ResearchPlan>,
    kind: PlannedQuery['kind'],
  ): Promise<ResearchPlan> {
    let reply: z.infer<typeof planSchema>;
    try {
      const result = await generateText({
        ...telemetryCallOptions(options.telemetry, 'citewise.research'),
        model: options.model,
        instructions: INSTRUCTIONS,
        prompt: user,
        output: Output.object({ schema: planSchema, name: 'plan' }),
        maxOutputTokens,
        temperature: 0,
        maxRetries: 0,
        abortSignal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      reply = planSchema.parse(result.output);
    } catch (error) {
      signal.throwIfAborted();
      return refused(isMalformed(error) ? 'malformed' : 'failed', await fallback());
    }
    const proposed = [...new Set(reply.queries.map((q) => q.replace(/\s+/gu, ' ').trim()))].filter(
      (q) => q.length > 0 && q.length <= 200,
    );
    const fresh = proposed
      .filter((q) => !searched(q))
      .slice(0, Math.min(maxQueries, Math.max(0, queriesLeft)));
    if (fresh.length === 0) {
      if (reply.done === true && proposed.length === 0)
        return { queries: [], found: [], planner: 'model', stop: 'covered' };
      return refused(proposed.length === 0 ? 'empty' : 'repeated', await fallback());
    }
    const queries: PlannedQuery[] = fresh.map((query) => ({
      query,
      thread: 0,
      kind,
      focus: [query],
      results: kind === 'question' ? firstResults : results,
    }));
    return { queries, found: [], planner: 'model' };
  }

  return {
    async first(analysis, signal) {
      const fallback = () => options.fallback.first(analysis, signal);
      const user = `Question: ${analysis.question}\n\nNo search has been made yet. Propose the first queries (the question itself may be one).`;
      const planned = await plan(user, () => false, Infinity, signal, fallback, 'question');
      // The question as asked is always searched first: the model's queries come with it.
      if (planned.planner !== 'model' || planned.queries.some((q) => q.query === analysis.question))
        return planned;
      return { ...planned, queries: [questionQuery(analysis, firstResults), ...planned.queries] };
    },
    async next(state, signal) {
      const fallback = () => options.fallback.next(state, signal);
      return plan(findings(state), state.searched, state.queriesLeft, signal, fallback, 'lead');
    },
  };
}

function questionQuery(analysis: QuestionAnalysis, results: number): PlannedQuery {
  return { query: analysis.question, thread: 0, kind: 'question', focus: analysis.entities, results };
}

function refused(reason: Refusal, plan: ResearchPlan): ResearchPlan {
  return { ...plan, planner: 'rules', fallback: reason };
}

function isMalformed(error: unknown): boolean {
  if (error instanceof z.ZodError) return true;
  const name = error instanceof Error ? error.name : '';
  return (
    name === 'AI_NoObjectGeneratedError' ||
    name === 'AI_NoOutputGeneratedError' ||
    name === 'AI_TypeValidationError' ||
    name === 'AI_JSONParseError'
  );
}

/** The model's view of the research so far: queries, and each page read with its first sentences. */
function findings(state: ResearchState): string {
  const lines = [`Question: ${state.analysis.question}`, '', 'Searches so far:'];
  let budget: number = MODEL_PLANNER_DEFAULTS.maxFindingsChars;
  for (const [round, queries] of state.rounds.entries()) {
    for (const searched of queries) {
      lines.push(`- round ${round + 1}, query "${searched.planned.query}":`);
      for (const document of searched.documents.slice(0, 3)) {
        const gist = splitSentences(document.text).slice(0, 2).join(' ').slice(0, 300);
        if (budget - gist.length < 0) break;
        budget -= gist.length;
        lines.push(`  - ${document.title}: ${gist}`);
      }
    }
  }
  lines.push('', `Queries left: ${state.queriesLeft}. Propose the next queries, or done.`);
  return lines.join('\n');
}
