/**
 * The research settings resolved once: {@link resolveResearchSettings} checks them and applies
 * {@link RESEARCH_DEFAULTS}. The engine resolves them in `resolveEngineOptions`; a library call resolves them
 * where it enters (`runPipeline`, `runResearch`, `createRulesPlanner`, `createModelResearchPlanner`). Settings
 * already resolved pass through those entries untouched, so the loop and the planners read them complete and
 * nothing below defaults them again.
 */
import { positiveInteger } from '../../options.ts';
import { RESEARCH_DEFAULTS, type ResearchSettings } from './types.ts';

/** {@link ResearchSettings} with every field set, and the research time budget. */
export type ResolvedResearchSettings = { readonly [K in keyof ResearchSettings]-?: number } & {
  /** Time after the request arrived by which research stops and the answer is written, in ms. */
  readonly maxLatencyMs: number;
};

/** Settings that {@link resolveResearchSettings} returned: given again, they are returned as they are. */
const resolved = new WeakSet<object>();

/**
 * Checks research settings and applies {@link RESEARCH_DEFAULTS} to the fields left out. Throws `TypeError` or
 * `RangeError` naming the first bad field (`research.maxHops must be a positive integer, got 0`).
 */
export function resolveResearchSettings(
  settings: (ResearchSettings & { readonly maxLatencyMs?: number }) | undefined,
): ResolvedResearchSettings {
  if (settings !== undefined && resolved.has(settings)) return settings as ResolvedResearchSettings;
  if (settings !== undefined && (settings === null || typeof settings !== 'object'))
    throw new TypeError('research must be an object');
  const given = settings ?? {};
  const whole = (name: keyof ResolvedResearchSettings) =>
    positiveInteger(`research.${name}`, given[name], RESEARCH_DEFAULTS[name]);
  const complete: ResolvedResearchSettings = {
    maxHops: whole('maxHops'),
    maxQueries: whole('maxQueries'),
    maxPages: whole('maxPages'),
    questionResults: whole('questionResults'),
    entityResults: whole('entityResults'),
    leadResults: whole('leadResults'),
    leadsPerRound: whole('leadsPerRound'),
    maxPassageTokens: whole('maxPassageTokens'),
    maxLatencyMs: whole('maxLatencyMs'),
  };
  resolved.add(complete);
  return complete;
}
