/**
 * The extractive answerer asked once: the research answer tests' shared helper.
 */
import { createExtractiveAnswerer, type ExtractiveAnswererOptions } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput, AnswerOutput } from '../../src/pipeline/types.ts';

/** The extractive answerer's answer to `input`, with its defaults unless `options` says otherwise. */
export async function answer(
  input: AnswerInput,
  options: ExtractiveAnswererOptions = {},
): Promise<AnswerOutput> {
  return createExtractiveAnswerer(options).answer(input, {
    signal: new AbortController().signal,
    requestId: 'research-answer',
  });
}
