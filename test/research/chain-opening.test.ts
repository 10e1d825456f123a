/**
 * The extractive answer after research opens with the chain's sentences, its end first: a bridge that the
 * end already quotes (the end's passage carried the bridge's sentence with it) is said once, and its place
 * goes to a sentence of the answer's own choice.
 */
import { describe, expect, it } from 'vitest';
import { answer, page, researchInput } from './extractive-answer.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'Where was the father of Lord Aldric Venmoor born?';
const FATHER = 'Her paternal grandfather was Lord Aldric Venmoor, the first Lord of Ashgrove.';
const END = `Maud Venmoor was a noble lady of Ashgrove and the daughter of Lord Corwin Venmoor. ${FATHER}`;

const INPUT: AnswerInput = {
  ...researchInput(QUESTION),
  chain: [
    { text: END, url: 'https://wiki.test/Maud_Venmoor' },
    { text: FATHER, url: 'https://wiki.test/Maud_Venmoor' },
  ],
  passages: [
    {
      url: 'https://wiki.test/Maud_Venmoor',
      title: 'Maud Venmoor',
      text: END,
      score: 1,
    },
    page(
      'Aldric Venmoor',
      'Lord Aldric Venmoor was the son of Lord Hamond Venmoor, who was born in Ferrowgate Castle. Aldric was born in Ashgrove and held the lordship of Ashgrove for forty years.',
      0.8,
    ),
  ],
};

describe("the research chain's sentences in the extractive answer", () => {
  it('quotes a bridge that the end already holds once', async () => {
    const output = await answer(INPUT);
    expect(output.answer.split('paternal grandfather was Lord Aldric Venmoor')).toHaveLength(2);
  });

  it("gives the bridge's place to a sentence of the answer's own choice", async () => {
    const output = await answer({
      ...INPUT,
      chain: [
        ...INPUT.chain!,
        {
          text: 'Lord Corwin Venmoor was the only son of Lord Aldric Venmoor.',
          url: 'https://wiki.test/Corwin',
        },
        { text: 'Ashgrove is a lordship in the north of Venmoor Vale.', url: 'https://wiki.test/Ashgrove' },
      ],
    });
    expect(output.answer).toContain('Ferrowgate Castle');
    expect(output.sources).toContain('https://wiki.test/Aldric_Venmoor');
  });
});
