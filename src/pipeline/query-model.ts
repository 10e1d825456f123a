/**
 * Query planning with a language model: rewrites the prompt and the earlier user messages into one
 * standalone search query, plus up to a few sub-queries for a broad question. Cheap (short prompt, few
 * output tokens) and bounded by its own timeout; on any failure or timeout it falls back to the
 * deterministic {@link planQuery}.
 */
import { generateText, type LanguageModel } from 'ai';
import type { ChatMessage } from './types.ts';
import { planQuery } from './query.ts';
import { requireModelOption } from '../models/options.ts';
import { nonNegativeInteger, numberOptions, positiveInteger, positiveNumber } from '../options.ts';
import {
  checkTelemetrySettings,
  telemetryCallOptions,
  type ModelTelemetrySettings,
} from './answer/telemetry.ts';

/** Plans the search queries of a request: the first is the main standalone query. */
export type QueryPlanner = (
  prompt: string,
  context: readonly ChatMessage[],
  signal: AbortSignal,
) => Promise<string[]>;

/** Options of {@link createModelQueryPlanner}. */
export interface ModelQueryPlannerOptions {
  readonly model: LanguageModel;
  /**
   * Time allowed for the model call, in ms; past it, the deterministic plan is used.
   * @default 3000
   */
  readonly timeoutMs?: number;
  /**
   * Most queries returned (1 = only the standalone query, no sub-queries).
   * @default 3
   */
  readonly maxQueries?: number;
  /**
   * Most tokens the model may write.
   * @default 120
   */
  readonly maxOutputTokens?: number;
  /**
   * Earlier user messages shown to the model (the most recent ones).
   * @default 4
   */
  readonly maxContextMessages?: number;
  /**
   * Skip the model when there are no earlier user messages (the prompt is then searched as it is), saving a
   * model call per request at the cost of sub-queries.
   * @default false
   */
  readonly onlyWithContext?: boolean;
  /**
   * Telemetry of the planner's model call through the AI SDK's `telemetry` option.
   * @default none: the AI SDK's defaults (globally registered integrations, if any)
   */
  readonly telemetry?: ModelTelemetrySettings;
  /** Called when the model failed or timed out and the deterministic plan was used (for logging). */
  readonly onFallback?: (error: unknown) => void;
}

const MAX_QUERY_CHARS = 200;
const MAX_MESSAGE_CHARS = 500;

function oneLine(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? flat.slice(0, maxChars) : flat;
}

/** Parses the model's reply: one query per line, list markers, labels and quotes removed, duplicates dropped. */
export function parseQueryLines(reply: string, maxQueries: number): string[] {
  const queries: string[] = [];
  const seen = new Set<string>();
  for (const raw of reply.split('\n')) {
    const line = raw
      .trim()
      .replace(/^(?:[-*•]|\d{1,2}[.)])\s+/, '')
      .replace(/^(?:search )?(?:query|sub-?query)\s*\d*\s*:\s*/i, '')
      .replace(/^["'“”`]+|["'“”`]+$/g, '')
      .trim();
    if (line.length === 0 || line.length > MAX_QUERY_CHARS) continue;
    const key = line.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    queries.push(line);
    if (queries.length >= maxQueries) break;
  }
  return queries;
}

/** Defaults of {@link ModelQueryPlannerOptions}. */
export const MODEL_QUERY_PLANNER_DEFAULTS = {
  timeoutMs: 3000,
  maxQueries: 3,
  maxOutputTokens: 120,
  maxContextMessages: 4,
} as const;

/**
 * Creates a model-based query planner.
 *
 * The model sees the earlier user questions and the current one and answers with the standalone query on
 * the first line and, only for a question about several distinct things, up to `maxQueries - 1` focused
 * sub-queries on the next lines. An empty or unusable reply, an error or the timeout gives
 * `[planQuery(prompt, context)]`. An aborted `signal` (request gone) rejects with its reason.
 *
 * @example
 * const plan = createModelQueryPlanner({ model });
 * await plan('and how tall is it?', [{ role: 'user', content: 'Tell me about the Eiffel Tower' }], signal);
 * // → ['Eiffel Tower height']
 * @throws RangeError on invalid options.
 */
export function createModelQueryPlanner(options: ModelQueryPlannerOptions): QueryPlanner {
  requireModelOption(options);
  const { timeoutMs, maxQueries, maxOutputTokens, maxContextMessages } = numberOptions(
    options,
    MODEL_QUERY_PLANNER_DEFAULTS,
    {
      timeoutMs: positiveNumber,
      maxQueries: positiveInteger,
      maxOutputTokens: positiveInteger,
      maxContextMessages: nonNegativeInteger,
    },
  );
  checkTelemetrySettings(options.telemetry);

  const instructions = [
    'You turn the latest question of a conversation into web search queries. Reply with queries only, one per line, no explanations.',
    "- Line 1: one standalone search query for the latest question. Resolve pronouns and follow-ups (e.g. 'and how tall is it?') using the earlier questions; keep names, dates and key terms; drop filler words.",
    maxQueries > 1
      ? `- Only if the latest question asks about several distinct things, add up to ${maxQueries - 1} more lines, each a focused query for one part. Otherwise reply with exactly one line.`
      : '- Reply with exactly one line.',
    '- Write the queries in the language of the question.',
  ].join('\n');

  return async (prompt, context, signal) => {
    signal.throwIfAborted();
    const fallback = (): string[] => [planQuery(prompt, context)];
    const earlier = context
      .filter((message) => message.role === 'user' && typeof message.content === 'string')
      .map((message) => oneLine(message.content, MAX_MESSAGE_CHARS))
      .filter((content) => content.length > 0);
    const recent = maxContextMessages === 0 ? [] : earlier.slice(-maxContextMessages);
    if (options.onlyWithContext && recent.length === 0) return fallback();

    const user = [
      ...(recent.length > 0 ? ['Earlier questions:', ...recent.map((message) => `- ${message}`), ''] : []),
      `Latest question: ${oneLine(prompt, MAX_MESSAGE_CHARS * 2)}`,
    ].join('\n');
    try {
      const result = await generateText({
        ...telemetryCallOptions(options.telemetry, 'citewise.plan'),
        model: options.model,
        instructions,
        prompt: user,
        maxOutputTokens,
        temperature: 0,
        maxRetries: 0,
        abortSignal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      const queries = parseQueryLines(result.text, maxQueries);
      if (queries.length === 0) throw new Error('the model returned no query');
      return queries;
    } catch (error) {
      signal.throwIfAborted();
      options.onFallback?.(error);
      return fallback();
    }
  };
}
