import { describe, expect, it } from 'vitest';
import { createRandom, sampleQuestions, type Question } from '../../bench/qa/corpus.ts';
import {
  containsAnswer,
  joinNormalized,
  mean,
  normalizeAnswer,
  normalizeAnswerSpaced,
  normalizeText,
  percentile,
} from '../../bench/qa/metrics.ts';

describe('SQuAD normalization and containment', () => {
  it('lower-cases and strips punctuation, articles and extra whitespace like evaluate-v2.0.py', () => {
    expect(normalizeAnswer('The  Denver Broncos!')).toBe('denver broncos');
    expect(normalizeAnswer('an apple, a pear')).toBe('apple pear');
    expect(normalizeAnswer('Theatre')).toBe('theatre');
    expect(normalizeAnswer('U.S.')).toBe('us');
  });

  it('matches on word boundaries after normalization', () => {
    expect(containsAnswer('They beat the Carolina Panthers, 24–10.', ['carolina panthers'])).toBe(true);
    expect(containsAnswer('In 1950 it opened.', ['50'])).toBe(false);
    expect(containsAnswer('anything', ['the'])).toBe(false);
    expect(containsAnswer('x', [])).toBe(false);
  });

  it('reads punctuation as a word break as well, so footnote marks and dashes do not hide an answer', () => {
    const wiki = 'the checks and balances system of the U.S. and many other governments.[citation needed] In';
    expect(containsAnswer(wiki, ['checks and balances system of the U.S. and many other governments'])).toBe(
      true,
    );
    expect(
      containsAnswer('rumors that Tesla and/or Edison had refused the prize.[245] The', [
        'refused the prize',
      ]),
    ).toBe(true);
    expect(containsAnswer('experiments in July 1899—Marconi may have', ['July 1899'])).toBe(true);
    expect(containsAnswer('Made in the U.S.A. today', ['U.S.A.'])).toBe(true);
    // Between digits punctuation still joins: a decimal or a thousands separator is one number.
    expect(containsAnswer('It grew by 5.5 percent', ['5'])).toBe(false);
    expect(containsAnswer('about 24,000 people', ['24'])).toBe(false);
    expect(containsAnswer('about 24,000 people', ['24,000'])).toBe(true);
    expect(normalizeAnswerSpaced('governments.[citation needed]')).toBe('governments citation needed');
  });

  it('normalizes pages joined by blank lines as the joined text, so each page is normalized once', () => {
    const pages = ['The U.S. Army—1899.', '', '  an apple\n', 'Σ 24,000 [245] the'];
    const whole = normalizeText(pages.join('\n\n'));
    expect(joinNormalized(pages.map(normalizeText))).toEqual(whole);
    expect(whole.joined).toBe('us army—1899 apple σ 24000 245');
    expect(containsAnswer(joinNormalized(pages.map(normalizeText)), ['army'])).toBe(true);
  });

  it('computes nearest-rank percentiles and means', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
    expect(mean([1, 2, 3])).toBe(2);
  });
});

describe('seeded sampling', () => {
  const questions: Question[] = [];
  for (const [title, count] of [
    ['A', 60],
    ['B', 30],
    ['C', 10],
  ] as const) {
    for (let i = 0; i < count; i++) {
      questions.push({
        id: `${title}${i}`,
        question: `${title} question ${i}?`,
        answers: ['x'],
        title,
        paragraphIndex: 0,
        goldPath: `/wiki/${title}`,
      });
    }
  }

  it('is deterministic and proportional to each article’s questions', () => {
    const first = sampleQuestions(questions, 20, 1);
    expect(sampleQuestions(questions, 20, 1)).toEqual(first);
    expect(sampleQuestions(questions, 20, 2)).not.toEqual(first);
    const perTitle = (sample: Question[]) =>
      Object.fromEntries(['A', 'B', 'C'].map((t) => [t, sample.filter((q) => q.title === t).length]));
    expect(perTitle(first)).toEqual({ A: 12, B: 6, C: 2 });
    expect(new Set(first.map((q) => q.id)).size).toBe(20);
  });

  it('skips duplicate question texts and caps at the available questions', () => {
    const duplicated = [...questions, { ...questions[0]!, id: 'dup' }];
    const all = sampleQuestions(duplicated, 1000, 3);
    expect(all).toHaveLength(100);
    expect(all.some((q) => q.id === 'dup')).toBe(false);
    expect(() => sampleQuestions(questions, 0, 1)).toThrow(RangeError);
  });

  it('gives every seed its own reproducible sequence', () => {
    const a = createRandom(42);
    const b = createRandom(42);
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(createRandom('x').shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
