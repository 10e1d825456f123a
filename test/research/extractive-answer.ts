/**
 * The extractive answerer with its defaults, asked once: the research answer tests' shared helper.
 */
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput, AnswerOutput } from '../../src/pipeline/types.ts';

/** The default extractive answerer's answer to `input`. */
export async function answer(input: AnswerInput, requestId = 'research-answer'): Promise<AnswerOutput> {
  return createExtractiveAnswerer().answer(input, {
    signal: new AbortController().signal,
    requestId,
  });
}
