import { describe, expect, it } from 'vitest';
import { snippetCounts, wordF1 } from '../../bench/lib/wcxb.ts';
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

describe('WCXB metric', () => {
  it('scores word F1 on lower-cased word multisets', () => {
    expect(wordF1('The cat sat', 'the CAT sat.').f1).toBe(1);
    const partial = wordF1('one two three four', 'one two five');
    expect(partial.precision).toBeCloseTo(2 / 3);
    expect(partial.recall).toBeCloseTo(2 / 4);
    // Repeated words count once per occurrence.
    expect(wordF1('a b', 'a a a b').precision).toBeCloseTo(2 / 4);
  });

  it('scores an empty reference 1 only for an empty prediction', () => {
    expect(wordF1('', '').f1).toBe(1);
    expect(wordF1('', 'anything').f1).toBe(0);
    expect(wordF1('text', '').f1).toBe(0);
  });

  it('finds snippets as word sequences, ignoring case and punctuation', () => {
    const counts = snippetCounts(
      { with: ['Bumping MSRV has never', 'not in the text'], without: ['Log In'] },
      'Bumping MSRV, has never been... please log-in',
    );
    expect(counts).toEqual({ withFound: 1, withTotal: 2, withoutLeaked: 1, withoutTotal: 1 });
  });
});
