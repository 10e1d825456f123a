/** Scoring helpers of the QA benchmark: SQuAD answer normalisation, containment and percentiles. */

/** ASCII punctuation, as Python's `string.punctuation` used by the official SQuAD script. */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/**
 * SQuAD's `normalize_answer` (evaluate-v2.0.py), ported: lower-case, remove punctuation, remove the
 * articles a/an/the, collapse whitespace.
 */
export function normalizeAnswer(text: string): string {
  let lower = '';
  for (const char of text.toLowerCase()) if (!PUNCTUATION.has(char)) lower += char;
  return lower
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

/**
 * Whether any gold answer, normalised, occurs in the normalised `text` on word boundaries (so `5` is not
 * found inside `50`). Empty normalised answers never match.
 */
export function containsAnswer(text: string, answers: readonly string[]): boolean {
  const haystack = ` ${normalizeAnswer(text)} `;
  return answers.some((answer) => {
    const needle = normalizeAnswer(answer);
    return needle !== '' && haystack.includes(` ${needle} `);
  });
}

/** The same as {@link containsAnswer} against a pre-normalised, space-padded haystack (faster in loops). */
export function containsNormalized(paddedNormalizedText: string, answers: readonly string[]): boolean {
  return answers.some((answer) => {
    const needle = normalizeAnswer(answer);
    return needle !== '' && paddedNormalizedText.includes(` ${needle} `);
  });
}

/** Nearest-rank percentile (p in [0, 100]) of the numbers; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}
