/**
 * After research, the extractive answer takes the next hop through prose: a chosen sentence names a thing
 * whose own page research read ("… a live album by the English rock band Harrow Gate"), and that page's
 * sentence holding the question's word the answer still lacks ("formed in Wexham" for "Where did the band
 * form…") is quoted, cited by its page. The same passages without `researched` give the answer as before.
 */
import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';

const QUESTION = 'Where did the band form that made the live album Night at Coldmoor?';
const INPUT: AnswerInput = {
  prompt: QUESTION,
  context: [],
  query: QUESTION,
  responseType: 'text',
  passages: [
    {
      url: 'https://wiki.test/Night_at_Coldmoor',
      title: 'Night at Coldmoor',
      text: 'Night at Coldmoor is a live album by the English rock band Harrow Gate, recorded at Coldmoor Hall. The live album was made in one night.',
      score: 1,
    },
    {
      url: 'https://wiki.test/Harrow_Gate_(band)',
      title: 'Harrow Gate (band)',
      text: 'Harrow Gate played over two hundred concerts in Europe. Harrow Gate are an English rock group formed in Wexham in 1979 by the guitarist Tam Reilly.',
      score: 0.6,
    },
    {
      url: 'https://wiki.test/Coldmoor_Hall',
      title: 'Coldmoor Hall',
      text: 'Coldmoor Hall is a concert venue in Leeds, opened in 1902 for the live music of the city.',
      score: 0.5,
    },
  ],
};

async function answer(input: AnswerInput) {
  return createExtractiveAnswerer().answer(input, {
    signal: new AbortController().signal,
    requestId: 'next-hop',
  });
}

describe('the next hop through prose after research', () => {
  it("quotes the named band's sentence holding the word the answer lacks, cited by its page", async () => {
    const output = await answer({ ...INPUT, researched: true });
    expect(output.answer).toContain('formed in Wexham');
    expect(output.sources).toContain('https://wiki.test/Harrow_Gate_(band)');
  });

  it('leaves an answer without research as it was', async () => {
    const output = await answer(INPUT);
    expect(output.answer).not.toContain('formed in Wexham');
  });
});
