/**
 * The WCXB development split (read in place) and the metric WCXB publishes: word-level F1 per page, averaged
 * over pages (lower-cased `\w+` token multisets; an empty reference scores 1 only for an empty prediction).
 * Also: must-include / must-exclude snippet checks and metadata (title, author, date) agreement.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { tokenize } from './extraction-metric.ts';

/** One WCXB page with its ground truth. */
export interface WcxbPage {
  readonly id: string;
  readonly url: string;
  readonly pageType: string;
  readonly html: Uint8Array;
  readonly truth: string;
  readonly title: string;
  readonly author: string | undefined;
  readonly publishDate: string | undefined;
  /** Snippets a correct extraction must include. */
  readonly with: readonly string[];
  /** Snippets of boilerplate that must not appear. */
  readonly without: readonly string[];
}

interface GroundTruthFile {
  readonly url?: string | null;
  readonly _internal: { readonly page_type: { readonly primary: string } };
  readonly ground_truth: {
    readonly title?: string;
    readonly author?: string;
    readonly publish_date?: string;
    readonly main_content?: string;
    readonly with?: readonly string[];
    readonly without?: readonly string[];
  };
}

/** Reads the split's pages sorted by id; `every` > 1 keeps one page in `every` (a quick subset). */
export function loadWcxbPages(directory: string, every = 1): WcxbPage[] {
  const ids = readdirSync(join(directory, 'ground-truth'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort()
    .filter((_id, index) => index % every === 0);
  return ids.map((id) => {
    const file = JSON.parse(
      readFileSync(join(directory, 'ground-truth', `${id}.json`), 'utf8'),
    ) as GroundTruthFile;
    const truth = file.ground_truth;
    return {
      id,
      // A few pages have no URL in the truth; extraction needs one to resolve links.
      url: file.url || `https://wcxb.invalid/${id}`,
      pageType: file._internal.page_type.primary,
      html: new Uint8Array(gunzipSync(readFileSync(join(directory, 'html', `${id}.html.gz`)))),
      truth: truth.main_content ?? '',
      title: truth.title ?? '',
      author: truth.author || undefined,
      publishDate: truth.publish_date || undefined,
      with: truth.with ?? [],
      without: truth.without ?? [],
    };
  });
}

/** Lower-cased word tokens, as WCXB compares them. */
export function wordTokens(text: string): string[] {
  return tokenize(text.toLowerCase());
}

/** Word-level precision, recall and F1 of one page. */
export interface WordScore {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** WCXB's per-page score: F1 of the word multisets; an empty reference scores 1 only for an empty prediction. */
export function wordF1(truth: string, prediction: string): WordScore {
  const truthTokens = wordTokens(truth);
  const predicted = wordTokens(prediction);
  if (truthTokens.length === 0) {
    const score = predicted.length === 0 ? 1 : 0;
    return { precision: score, recall: score, f1: score };
  }
  if (predicted.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const counts = new Map<string, number>();
  for (const token of truthTokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(token, left - 1);
    }
  }
  const precision = overlap / predicted.length;
  const recall = overlap / truthTokens.length;
  const f1 = overlap === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** True when the snippet's word sequence occurs in the prediction's word sequence (case and punctuation ignored). */
export function containsSnippet(predictionWords: string, snippet: string): boolean {
  const words = wordTokens(snippet).join(' ');
  return words !== '' && ` ${predictionWords} `.includes(` ${words} `);
}

/** How many must-include snippets were found and must-exclude snippets leaked into one prediction. */
export function snippetCounts(
  page: Pick<WcxbPage, 'with' | 'without'>,
  prediction: string,
): { withFound: number; withTotal: number; withoutLeaked: number; withoutTotal: number } {
  const words = wordTokens(prediction).join(' ');
  return {
    withFound: page.with.filter((snippet) => containsSnippet(words, snippet)).length,
    withTotal: page.with.length,
    withoutLeaked: page.without.filter((snippet) => containsSnippet(words, snippet)).length,
    withoutTotal: page.without.length,
  };
}

/** Same words in the same order (case and punctuation ignored). */
export function sameWords(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && wordTokens(a).join(' ') === wordTokens(b).join(' ');
}
