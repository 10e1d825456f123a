/** Answerers: the extractive answerer (no model) and the model answerer, with their prompt and filters. */
export { createExtractiveAnswerer } from './extractive.ts';
export type { ExtractiveAnswererOptions } from './extractive.ts';
export { DEFAULT_NO_ANSWER_TEXT, type NoAnswerText } from './no-answer.ts';
export { createModelAnswerer, InvalidJsonAnswerError, isRetryableModelError } from './model.ts';
export { checkTelemetrySettings, telemetryCallOptions } from './telemetry.ts';
export type { ModelCallContext, ModelTelemetrySettings } from './telemetry.ts';
export type { ModelAnswerer, ModelAnswererOptions } from './model.ts';
export { buildAnswerPrompt, groupSources, neutralizeUntrusted } from './prompt.ts';
export type { AnswerPrompt, AnswerPromptOptions, PromptSource } from './prompt.ts';
export { createCitationFilter, filterCitations, citationNumbers, normalizeUrl } from './citations.ts';
export type { CitationFilter, CitationFilterOptions, StreamingFilter } from './citations.ts';
export { checkGrounding, groundingSources, DEFAULT_MIN_TERM_SHARE } from './grounding.ts';
export type {
  AnswerSpan,
  CheckedCitation,
  GroundingCheck,
  GroundingLevel,
  GroundingOptions,
  GroundingReport,
  GroundingSource,
} from './grounding.ts';
export {
  createAnswerFilter,
  createPlainTextFilter,
  createWhitespaceFilter,
  formatAnswer,
  pipeFilters,
  toPlainText,
} from './format.ts';
export type { AnswerFilterOptions, WhitespaceFilterOptions } from './format.ts';
