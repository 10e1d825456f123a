import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BENCHMARK_DIR, loadBenchmarkPages } from '../../bench/lib/article-benchmark.ts';
import {
  matchPage,
  pagePrecision,
  pageRecall,
  scoreCorpus,
  shingles,
  tokenize,
} from '../../bench/lib/extraction-metric.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';

describe('benchmark metric', () => {
  it('tokenizes like Python \\w+ (letters, numbers, underscore; not combining marks)', () => {
    expect(tokenize("It's 2019 — snake_case, naïve 한국어!")).toEqual([
      'It',
      's',
      '2019',
      'snake_case',
      'naïve',
      '한국어',
    ]);
    // U+0301 COMBINING ACUTE ACCENT is a mark, so it splits the token as in Python.
    expect(tokenize('cafe\u0301 x')).toEqual(['cafe', 'x']);
  });

  it('builds shingle multisets with the short-text special case', () => {
    expect([...shingles(['a', 'b'])]).toEqual([['a b', 1]]);
    expect(shingles([]).size).toBe(0);
    expect(
      [...shingles(['a', 'b', 'c', 'd', 'a', 'b', 'c', 'd'])].find(([key]) => key === 'a b c d'),
    ).toEqual(['a b c d', 2]);
  });

  it('scores per page and over the corpus', () => {
    const truth = 'one two three four five six';
    const perfect = matchPage(truth, truth);
    expect(perfect).toMatchObject({ tp: 1, fp: 0, fn: 0, exact: true });
    const extra = matchPage(truth, `${truth} seven`);
    expect(pagePrecision(extra)).toBeCloseTo(3 / 4);
    expect(pageRecall(extra)).toBe(1);
    const empty = matchPage(truth, '');
    expect(pageRecall(empty)).toBe(0);
    // An empty prediction is left out of precision, and drives recall to 0.
    const score = scoreCorpus([perfect, empty]);
    expect(score.precision).toBe(1);
    expect(score.recall).toBe(0.5);
    expect(score.accuracy).toBe(0.5);
  });
});

// A handful of benchmark pages covering captions, related-link lists, bylines and non-English text.
const SAMPLE_IDS = [
  '9ebb3af6',
  '624fcd90',
  'c50845a7',
  '8b194530',
  '6ebac05f',
  '30b771a4',
  '35b15891',
  'e1c7023e',
];

describe.runIf(existsSync(DEFAULT_BENCHMARK_DIR))('extraction quality on benchmark pages', () => {
  it('beats plain Readability on pages full of boilerplate', async () => {
    const all = loadBenchmarkPages();
    const pages = all.filter((page) => SAMPLE_IDS.some((prefix) => page.id.startsWith(prefix)));
    expect(pages).toHaveLength(SAMPLE_IDS.length);
    const cleaned = [];
    const raw = [];
    for (const page of pages) {
      const options = { url: page.url, contentType: 'text/html' };
      cleaned.push(matchPage(page.truth, (await extractContent(page.html, options))?.text ?? ''));
      raw.push(
        matchPage(
          page.truth,
          (await extractContent(page.html, { ...options, cleanBoilerplate: false }))?.text ?? '',
        ),
      );
    }
    const ours = scoreCorpus(cleaned);
    const unfiltered = scoreCorpus(raw);
    expect(ours.recall).toBeGreaterThanOrEqual(0.95);
    expect(ours.precision).toBeGreaterThanOrEqual(unfiltered.precision + 0.1);
    expect(ours.f1).toBeGreaterThanOrEqual(0.9);
  });
});
