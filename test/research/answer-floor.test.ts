/**
 * After research, the extractive answer quotes the best evidence at a lower coverage floor
 * (`researchMinCoverage`, 0.2) than a plain search's (`minCoverage`, 0.4): research's query holds the names
 * its chain led to besides the question's words, so the sentence that answers covers a smaller share of it.
 * The same passages without `researched` still say that the sources do not answer.
 */
import { describe, expect, it } from 'vitest';
import { answer } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'Who made the lamp of the harbour light on the island where Mira Selden was born?';
const INPUT: AnswerInput = {
  prompt: QUESTION,
  context: [],
  // The question and the names research followed (as the pipeline builds a research answer's query).
  query: `${QUESTION} Brightwater Island, Selden Harbour Trust, Ashby Quay, Northwick`,
  responseType: 'text',
  passages: [
    {
      url: 'https://harbour.test/kestrel-tower',
      title: 'Kestrel Tower',
      text: 'The lamp of the old harbour light was made by Orlan Works of Leeds in 1887.',
      score: 1,
    },
    {
      url: 'https://bakery.test/bread',
      title: 'Village bakery',
      text: 'Bread is baked daily in the village square by a team of volunteers.',
      score: 0.5,
    },
  ],
};

describe("research's answer floor", () => {
  it('quotes the sentence that answers after research', async () => {
    const output = await answer({ ...INPUT, researched: true });
    expect(output.answer).toContain('made by Orlan Works');
    expect(output.sources).toEqual(['https://harbour.test/kestrel-tower']);
  });

  it('keeps the plain floor without research', async () => {
    const output = await answer(INPUT);
    expect(output.sources).toEqual([]);
  });
});
