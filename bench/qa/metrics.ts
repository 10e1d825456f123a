/** Scoring helpers of the QA benchmark: SQuAD answer normalization, containment and percentiles. */

/** ASCII punctuation, as Python's `string.punctuation` used by the official SQuAD script. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/**
 * SQuAD's `normalize_answer` (evaluate-v2.0.py), ported: lower-case, remove punctuation, remove the
 * articles a/an/the, collapse whitespace.
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// Punctuation and symbols, except between two digits ("2.5", "24,000" stay one number).
const PUNCTUATION_BREAK = /(?<!\d)[\p{P}\p{S}]+|[\p{P}\p{S}]+(?!\d)/gu;

/**
 * {@link normalizeAnswer} with punctuation read as a word break instead of deleted. The official
 * normalization deletes it, which glues words that only punctuation separates: Wikipedia text such as
 * "governments.[citation needed]", "prize.[245]" or "1899—Marconi" would hide the answers "governments",
 * "prize" and "1899".
 */
export function normalizeAnswerSpaced(text: string): string {
  return normalizeAnswer(text.replace(PUNCTUATION_BREAK, ' '));
}

/** A text in both normalized forms, ready for {@link containsAnswer}. */
export interface NormalizedText {
  readonly joined: string;
  readonly spaced: string;
}

/** Both normalized forms of `text`. */
export function normalizeText(text: string): NormalizedText {
  return { joined: normalizeAnswer(text), spaced: normalizeAnswerSpaced(text) };
}

/**
 * The normalized forms of texts joined by blank lines, from the forms of each text: normalization works
 * word by word and a blank line is a word break, so this equals normalizing the joined text, without
 * normalizing again a page that many questions read.
 */
export function joinNormalized(parts: readonly NormalizedText[]): NormalizedText {
  const join = (key: keyof NormalizedText) =>
    parts
      .map((part) => part[key])
      .filter(Boolean)
      .join(' ');
  return { joined: join('joined'), spaced: join('spaced') };
}

/**
 * Whether any gold answer occurs in `text` on word boundaries after normalization: the official one
 * ({@link normalizeAnswer}: "U.S." ↔ "US") or the one that reads punctuation as a break
 * ({@link normalizeAnswerSpaced}: "governments.[citation" holds "governments"). Either way `5` is not found
 * inside `50` or `5.5`. Empty normalized answers never match. `text` may be given already normalized.
 */
export function containsAnswer(text: string | NormalizedText, answers: readonly string[]): boolean {
  const normalized = typeof text === 'string' ? normalizeText(text) : text;
  const joined = ` ${normalized.joined} `;
  const spaced = ` ${normalized.spaced} `;
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
