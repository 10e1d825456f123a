import { describe, expect, it } from 'vitest';
import {
  matchPage,
  pagePrecision,
  pageRecall,
  scoreCorpus,
  shingles,
  tokenize,
} from '../../bench/lib/extraction-metric.ts';

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

// Extraction quality on the article-extraction benchmark is measured by `npm run bench:extract`, not here:
// its pages are third-party snapshots that may not be republished, and tests read nothing outside the repository.
