/**
 * The extractive answerer asked once: the research answer tests' shared helper.
 */
import { createExtractiveAnswerer, type ExtractiveAnswererOptions } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput, AnswerOutput, Passage } from '../../src/pipeline/types.ts';

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

/** A passage of a page of the handmade wiki, its URL made from its title unless given. */
export function page(
  title: string,
  text: string,
  score: number,
  url = `https://wiki.test/${title.replaceAll(' ', '_')}`,
): Passage {
  return { url, title, text, score };
}

/** What research hands the answerer for `question` before its passages: asked as it stands, no context. */
export function researchInput(question: string): Omit<AnswerInput, 'passages'> {
  return { prompt: question, context: [], query: question, responseType: 'text', researched: true };
}
