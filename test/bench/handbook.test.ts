/** The handbook benchmark's measures: answer sentences, and the ones off the question. */
import { describe, expect, it } from 'vitest';
import { answerSentences, offQuestionSentences } from '../../bench/qa/handbook.ts';

describe('bench:qa --handbook measures', () => {
  it('splits an extractive answer at its citations', () => {
    expect(answerSentences('A b c [1]. It d e. F g [2]. H [1].')).toEqual([
      'A b c [1].',
      'It d e. F g [2].',
      'H [1].',
    ]);
  });

  it('counts a later sentence off the question when it shares no content word with the question or the first', () => {
    const answer =
      'Parental leave lasts 16 weeks at full pay [1]. Leave starts up to two weeks before the birth [1]. ' +
      'Employees may work remotely on Fridays [2].';
    expect(offQuestionSentences('How long is parental leave?', answer)).toEqual({ sentences: 3, off: 1 });
    expect(offQuestionSentences('How long is parental leave?', 'No answer.')).toEqual({
      sentences: 1,
      off: 0,
    });
  });
});
