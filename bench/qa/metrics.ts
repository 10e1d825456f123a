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

// Punctuation and symbols, except between two digits ("2.5", "24,000" stay one number).
const PUNCTUATION_BREAK = /(?<!\d)[\p{P}\p{S}]+|[\p{P}\p{S}]+(?!\d)/gu;

/**
 * {@link normalizeAnswer} with punctuation read as a word break instead of deleted. The official
 * normalisation deletes it, which glues words that only punctuation separates: Wikipedia text such as
 * "governments.[citation needed]", "prize.[245]" or "1899—Marconi" would hide the answers "governments",
 * "prize" and "1899".
 */
export function normalizeAnswerSpaced(text: string): string {
  return normalizeAnswer(text.replace(PUNCTUATION_BREAK, ' '));
}

/**
 * Whether any gold answer occurs in `text` on word boundaries after normalisation: the official one
 * ({@link normalizeAnswer}: "U.S." ↔ "US") or the one that reads punctuation as a break
 * ({@link normalizeAnswerSpaced}: "governments.[citation" holds "governments"). Either way `5` is not found
 * inside `50` or `5.5`. Empty normalised answers never match.
 */
export function containsAnswer(text: string, answers: readonly string[]): boolean {
  const joined = ` ${normalizeAnswer(text)} `;
  const spaced = ` ${normalizeAnswerSpaced(text)} `;
  return answers.some((answer) => {
    const needle = normalizeAnswer(answer);
    const spacedNeedle = normalizeAnswerSpaced(answer);
    return (
      (needle !== '' && joined.includes(` ${needle} `)) ||
      (spacedNeedle !== '' && spaced.includes(` ${spacedNeedle} `))
    );
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
