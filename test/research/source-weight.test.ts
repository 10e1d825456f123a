/**
 * After research, a sentence of another page than the best sentence's is quoted from a passage scoring at
 * least `researchMinSourceWeight` (0.2) of the best one, not `minSourceWeight` (0.7) as after a plain search:
 * the page of a chain's later hop scores low against a query holding the whole question.
 */
import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { answer, page, researchInput } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'How many congressional districts does the state where Orla Penwick died have?';
const INPUT: AnswerInput = {
  ...researchInput(QUESTION),
  passages: [
    page(
      'Orla Penwick',
      'Orla Penwick died in the state of Tarrow in 1902, after drawing maps of its congressional districts.',
      1,
    ),
    page(
      "Tarrow's congressional districts",
      'The state of Tarrow is divided into 6 congressional districts, each electing one member.',
      0.3,
      'https://wiki.test/Tarrow_congressional_districts',
    ),
  ],
};

describe("the pages a research answer quotes besides its best sentence's", () => {
  it("quotes the later hop's page from a passage weaker than a plain search would take", async () => {
    const output = await answer(INPUT);
    expect(output.answer).toContain('divided into 6 congressional districts');
    expect(output.sources).toContain('https://wiki.test/Tarrow_congressional_districts');
  });

  it('leaves it out at the plain floor', async () => {
    const output = await answer(INPUT, { researchMinSourceWeight: 0.7 });
    expect(output.answer).toContain('Orla Penwick died in the state of Tarrow');
    expect(output.answer).not.toContain('divided into 6 congressional districts');
  });

  it('is a fraction', () => {
    expect(() => createExtractiveAnswerer({ researchMinSourceWeight: 1.5 })).toThrow(RangeError);
  });
});
