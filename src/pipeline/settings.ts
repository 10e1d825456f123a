/**
 * The defaults of the pipeline's settings ({@link PipelineSettings}), applied once where a run enters
 * (`runPipeline`, `streamPipeline`): the stages below read them complete.
 */
import type { PipelineSettings } from './run.ts';
import { RESEARCH_DEFAULTS } from './research/types.ts';

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
  > & { readonly research: NonNullable<PipelineSettings['research']> & { readonly maxLatencyMs: number } };

/**
 * Applies the defaults of {@link PipelineSettings} once, where a run enters (the engine passes them all
 * already, from `resolveEngineOptions`; a library call to {@link runPipeline} may leave them out).
 */
export function resolvePipelineSettings(settings: PipelineSettings): ResolvedPipelineSettings {
  const research = settings.research ?? {};
  return {
    ...settings,
    expandToResults: settings.expandToResults ?? DEFAULT_EXPAND_TO_RESULTS,
    minQueryCoverage: settings.minQueryCoverage ?? DEFAULT_MIN_QUERY_COVERAGE,
    maxLatencyMs: settings.maxLatencyMs ?? DEFAULT_MAX_LATENCY_MS,
    stragglerGraceMs: settings.stragglerGraceMs ?? DEFAULT_STRAGGLER_GRACE_MS,
    minDeeperPageMentions: settings.minDeeperPageMentions ?? DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
    minDeeperSnippetCoverage: settings.minDeeperSnippetCoverage ?? DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
    cheapResults: settings.cheapResults ?? DEFAULT_CHEAP_RESULTS,
    research: { ...research, maxLatencyMs: research.maxLatencyMs ?? RESEARCH_DEFAULTS.maxLatencyMs },
  };
}
