/**
 * Approximate token count of a text for budgeting prompts: `Math.ceil(characters / 4)`.
 *
 * Four characters per token is the usual rule of thumb for English with GPT-style BPE tokenizers; it is
 * deliberately model-independent and cheap. It overestimates slightly for plain English prose and
 * underestimates for code, non-Latin scripts and long numbers, so keep some headroom below a model's
 * real context window. Characters are counted as Unicode code points, not UTF-16 units.
 */
export function estimateTokens(text: string): number {
  let characters = 0;
  for (const _ of text) characters++;
  return Math.ceil(characters / 4);
}
