/** The answer given when the sources hold none, shared by the extractive and the model answerer. */

/** The default no-answer text. */
export const DEFAULT_NO_ANSWER_TEXT = 'The available sources do not contain an answer to this question.';

/**
 * What an answerer says when the sources hold no answer: a text, or a function asked at each answer (so that
 * it can name the documents in use, e.g. "No answer in your documents." once the user has given some).
 */
export type NoAnswerText = string | (() => string);

/**
 * The no-answer text of an answerer's option, as a function.
 * @throws TypeError when the option is neither a non-empty string nor a function.
 */
export function noAnswerTextOf(option: NoAnswerText | undefined): () => string {
  const value = option ?? DEFAULT_NO_ANSWER_TEXT;
  if (typeof value === 'function') return value;
  if (typeof value !== 'string' || value.trim().length === 0)
    throw new TypeError('noAnswerText must be a non-empty string or a function');
  return () => value;
}
