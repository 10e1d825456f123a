/**
 * The article-extraction-benchmark metric (Scrapinghub/Zyte `evaluate.py`, as described in the dataset README):
 * 4-token shingle multisets, per-page normalization, macro precision/recall, F1 of those, exact-token accuracy.
 */

/** Python `\w+` on str: Unicode letters, numbers and underscore — not combining marks. */
const TOKEN_PATTERN = /[\p{L}\p{N}_]+/gu;

/** Splits text into word tokens exactly as the benchmark does (case-sensitive). */
export function tokenize(text: string): string[] {
  return text.match(TOKEN_PATTERN) ?? [];
}

/** Multiset of overlapping 4-token shingles; 1–3 tokens give one shingle, no tokens give none. */
export function shingles(tokens: readonly string[], size = 4): Map<string, number> {
  const counts = new Map<string, number>();
  if (tokens.length === 0) return counts;
  const last = Math.max(1, tokens.length - size + 1);
  for (let index = 0; index < last; index++) {
    const shingle = tokens.slice(index, index + size).join(' ');
    counts.set(shingle, (counts.get(shingle) ?? 0) + 1);
  }
  return counts;
}

/** Normalized true positives, false positives and false negatives of one page (they sum to 1, or all 0). */
export interface PageMatch {
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  /** The prediction's token sequence equals the truth's. */
  readonly exact: boolean;
}

/** Compares one prediction with its ground truth. */
export function matchPage(truth: string, prediction: string): PageMatch {
  const truthTokens = tokenize(truth);
  const predictedTokens = tokenize(prediction);
  const truthShingles = shingles(truthTokens);
  const predictedShingles = shingles(predictedTokens);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [shingle, predictedCount] of predictedShingles) {
    const trueCount = truthShingles.get(shingle) ?? 0;
    tp += Math.min(trueCount, predictedCount);
    fp += Math.max(0, predictedCount - trueCount);
  }
  for (const [shingle, trueCount] of truthShingles) {
    fn += Math.max(0, trueCount - (predictedShingles.get(shingle) ?? 0));
  }
  const sum = tp + fp + fn;
  const exact =
    truthTokens.length === predictedTokens.length &&
    truthTokens.every((token, i) => token === predictedTokens[i]);
  if (sum === 0) return { tp: 0, fp: 0, fn: 0, exact };
  return { tp: tp / sum, fp: fp / sum, fn: fn / sum, exact };
}

function ratio(tp: number, other: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp + other === 0) return 0;
  return tp / (tp + other);
}

/** Per-page precision with the benchmark's special cases. */
export function pagePrecision(match: PageMatch): number {
  return ratio(match.tp, match.fp, match.fp, match.fn);
}

/** Per-page recall with the benchmark's special cases. */
export function pageRecall(match: PageMatch): number {
  return ratio(match.tp, match.fn, match.fp, match.fn);
}

/** Corpus scores. */
export interface CorpusScore {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  readonly accuracy: number;
  readonly pages: number;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Macro precision (pages with TP+FP > 0), macro recall (pages with TP+FN > 0), F1 of the two, accuracy. */
export function scoreCorpus(matches: readonly PageMatch[]): CorpusScore {
  const precision = mean(matches.filter((m) => m.tp + m.fp > 0).map(pagePrecision));
  const recall = mean(matches.filter((m) => m.tp + m.fn > 0).map(pageRecall));
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  const accuracy = matches.length === 0 ? 0 : matches.filter((m) => m.exact).length / matches.length;
  return { precision, recall, f1, accuracy, pages: matches.length };
}
