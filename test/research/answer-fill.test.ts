/**
 * After research, an answer that the chosen sentences leave short is filled up to `maxSentences` with the
 * best of the rest scoring at least `researchFillThreshold` (0.25) of the best sentence: the last hop's
 * sentence scores low against the whole question ("… (4 May 1801 – 9 June 1857) was a Danish composer" for
 * "a composer who passed away in which year"). A filler holds a word of the question as asked, not only a
 * name research followed. Without research the answer is as before.
 */
import { describe, expect, it } from 'vitest';
import { answer, page } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION =
  'Sonata No. 3 in G, Hess 40 is an unfinished piano sonata by a composer who passed away in which year?';
const INPUT: AnswerInput = {
  prompt: QUESTION,
  context: [],
  // The question and the name research followed (as the pipeline builds a research answer's query).
  query: `${QUESTION} Tavin Orlo, Vedby Manor`,
  responseType: 'text',
  researched: true,
  passages: [
    page(
      'Sonata No. 3 (Orlo)',
      'Sonata No. 3 in G, Hess 40 is an unfinished piano sonata by the Danish composer Tavin Orlo.',
      1,
    ),
    page('Tavin Orlo', 'Tavin Orlo (4 May 1801 – 9 June 1857) was a Danish composer and organist.', 0.9),
    page('Vedby Manor', 'Bees are kept in the garden of Vedby Manor.', 0.9),
  ],
};

describe('the room left in a research answer', () => {
  it("is filled with the composer's own sentence, cited by his page", async () => {
    const output = await answer(INPUT);
    expect(output.answer).toContain('9 June 1857');
    expect(output.sources).toContain('https://wiki.test/Tavin_Orlo');
  });

  it('is not filled with a sentence holding only a name research followed', async () => {
    const output = await answer(INPUT);
    expect(output.answer).not.toContain('Bees are kept');
  });

  it('is left as it was at a fill threshold of 1', async () => {
    const output = await answer(INPUT, { researchFillThreshold: 1 });
    expect(output.answer).not.toContain('9 June 1857');
  });

  it('is not filled without research', async () => {
    const output = await answer({ ...INPUT, researched: false });
    expect(output.answer).not.toContain('9 June 1857');
  });
});
