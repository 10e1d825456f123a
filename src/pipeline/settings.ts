/**
 * The defaults of the pipeline's settings ({@link PipelineSettings}), research's included, applied once: by the
 * engine (`resolveEngineOptions`), or where a library call's run enters (`runPipeline`, `streamPipeline`).
 * Settings already resolved pass through as they are: the stages, the research loop and its planners read
 * them complete.
 */
import type { PipelineSettings } from './run.ts';
import { resolveResearchSettings, type ResolvedResearchSettings } from './research/settings.ts';

/** {@link PipelineSettings.expandToResults} when not set. */
export const DEFAULT_EXPAND_TO_RESULTS = 40;
/** {@link PipelineSettings.minQueryCoverage} when not set. */
export const DEFAULT_MIN_QUERY_COVERAGE = 0.8;
/** {@link PipelineSettings.maxLatencyMs} when not set. */
export const DEFAULT_MAX_LATENCY_MS = 2_000;
/** {@link PipelineSettings.stragglerGraceMs} when not set. */
export const DEFAULT_STRAGGLER_GRACE_MS = 400;
/** {@link PipelineSettings.minDeeperPageMentions} when not set. */
export const DEFAULT_MIN_DEEPER_PAGE_MENTIONS = 0.5;
/** {@link PipelineSettings.minDeeperSnippetCoverage} when not set. */
export const DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE = 0.2;
/** {@link PipelineSettings.cheapResults} when not set. */
export const DEFAULT_CHEAP_RESULTS = 10;

/** {@link PipelineSettings} with every default applied, as the stages below use them. */
export type ResolvedPipelineSettings = PipelineSettings &
  Required<
    Pick<
      PipelineSettings,
      | 'expandToResults'
      | 'minQueryCoverage'
      | 'maxLatencyMs'
      | 'stragglerGraceMs'
      | 'minDeeperPageMentions'
      | 'minDeeperSnippetCoverage'
      | 'cheapResults'
    >
  > & { readonly research: ResolvedResearchSettings };

/** Settings that {@link resolvePipelineSettings} returned: given again, they are returned as they are. */
const resolved = new WeakSet<object>();

/**
 * Applies the defaults of {@link PipelineSettings} once: the engine's `resolveEngineOptions` resolves them
 * here, and a run gets them as they are; a library call to {@link runPipeline} may leave them out, and they
 * are resolved where the run enters. Research's settings are checked ({@link resolveResearchSettings}).
 */
export function resolvePipelineSettings(settings: PipelineSettings): ResolvedPipelineSettings {
  if (resolved.has(settings)) return settings as ResolvedPipelineSettings;
  const complete: ResolvedPipelineSettings = {
    ...settings,
    expandToResults: settings.expandToResults ?? DEFAULT_EXPAND_TO_RESULTS,
    minQueryCoverage: settings.minQueryCoverage ?? DEFAULT_MIN_QUERY_COVERAGE,
    maxLatencyMs: settings.maxLatencyMs ?? DEFAULT_MAX_LATENCY_MS,
    stragglerGraceMs: settings.stragglerGraceMs ?? DEFAULT_STRAGGLER_GRACE_MS,
    minDeeperPageMentions: settings.minDeeperPageMentions ?? DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
    minDeeperSnippetCoverage: settings.minDeeperSnippetCoverage ?? DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
    cheapResults: settings.cheapResults ?? DEFAULT_CHEAP_RESULTS,
    research: resolveResearchSettings(settings.research),
  };
  resolved.add(complete);
  return complete;
}
