/** What the pipeline suites share. */
import type { PipelineRequest } from '../../src/pipeline/types.ts';

/** The question the pipeline suites ask unless told otherwise. */
const BELL_ROCK_QUESTION = 'Who built the Bell Rock lighthouse?';

/** A normalized `standard` search request for the Bell Rock question, with `overrides`. */
export function pipelineRequest(overrides: Partial<PipelineRequest> = {}): PipelineRequest {
  return {
    prompt: BELL_ROCK_QUESTION,
    context: [],
    responseType: 'text',
    filters: {},
    depth: 'standard',
    ...overrides,
  };
}
