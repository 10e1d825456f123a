/**
 * After research, a full answer gives the next hop the place of its last-ranked sentence of a weak passage
 * of another page (one scoring below `minSourceWeight` of the best): the hop is the sentence the chain's
 * name leads to, that one only scored against the whole question.
 */
import { describe, expect, it } from 'vitest';
import { answer, page, researchInput } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'Where did the band form that made the live album Night at Coldmoor?';
const INPUT: AnswerInput = {
  ...researchInput(QUESTION),
  passages: [
    page(
      'Night at Coldmoor',
      'Night at Coldmoor is a live album by the English rock band Harrow Gate, recorded at Coldmoor Hall. The live album was made in one night.',
      1,
    ),
    page(
      'Live albums of 1981',
      'Many a band made a live album at Coldmoor that year. The night at Coldmoor became a live album for a band from each town.',
      0.3,
    ),
    page(
      'Harrow Gate (band)',
      'Harrow Gate played over two hundred concerts in Europe. Harrow Gate are an English rock group formed in Wexham in 1979 by the guitarist Tam Reilly.',
      0.6,
    ),
  ],
};

describe('the next hop in a full research answer', () => {
  it("takes the place of a weak page's sentence", async () => {
    const output = await answer(INPUT);
    expect(output.answer).toContain('formed in Wexham');
    expect(output.sources).toContain('https://wiki.test/Harrow_Gate_(band)');
    expect(output.answer.match(/\[\d+\]/gu)).toHaveLength(4);
  });

  it("keeps the best page's sentences", async () => {
    const output = await answer(INPUT);
    expect(output.answer).toContain('is a live album by the English rock band Harrow Gate');
    expect(output.answer).toContain('was made in one night');
  });
});
