/**
 * After research, the chain's sentences open the answer and leave room for only some of the sentences the
 * answerer chose: it keeps its best-scored ones, not the first in reading order. The birth sentence of the
 * painter's own page outscores a second sentence of the best sentence's page, and is kept in its place.
 */
import { describe, expect, it } from 'vitest';
import { answer, page, researchInput } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'In which harbour town was the painter of Blue Fennel born?';
const INPUT: AnswerInput = {
  ...researchInput(QUESTION),
  chain: [
    {
      text: 'Blue Fennel is an oil painting by Odran Vell, shown at the Mirren Gallery since 1930.',
      url: 'https://wiki.test/Blue_Fennel',
    },
    {
      text: 'The Mirren Gallery keeps most of the works of the Saltmarsh school.',
      url: 'https://wiki.test/Mirren_Gallery',
    },
  ],
  passages: [
    page(
      'Fennel series',
      'Odran Vell was the painter of Blue Fennel and of many harbour scenes of the north coast. Critics praised the colours of the series. Vell also painted a harbour wall in grey for a town hall.',
      1,
    ),
    page('Odran Vell', 'Odran Vell was born in the harbour town of Kestwick in 1862.', 0.9),
  ],
};

describe('the sentences of its own choice a research answer keeps beside the chain', () => {
  it('keeps the best-scored sentence of another page over a weaker one of the best page', async () => {
    const output = await answer(INPUT);
    expect(output.answer).toContain('born in the harbour town of Kestwick');
    expect(output.sources).toContain('https://wiki.test/Odran_Vell');
    expect(output.answer).not.toContain('town hall');
  });

  it('still opens with the chain and quotes four sentences at most', async () => {
    const output = await answer(INPUT);
    expect(output.answer.startsWith('Blue Fennel is an oil painting by Odran Vell')).toBe(true);
    expect(output.answer.match(/\[\d+\]/gu)).toHaveLength(4);
  });
});
