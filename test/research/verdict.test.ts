/**
 * A yes/no or "which of the two" question's extractive answer after research opens with a verdict that
 * the cited sentences decide, cited by the pages of those sentences, then quotes them: "No: United States
 * for X, Chile for Y [1][2]", "Yes: the sources say it of both [1][2]", "Y — 1935, earlier than 1940 for
 * X [1][2]". When a side's sentence does not say what is asked, the answer says it is not decided, and a
 * "which" question gets no verdict from a sentence that is not about its side.
 */
import { describe, expect, it } from 'vitest';
import type { PipelineResult } from '../../src/pipeline/run.ts';
import { type Page, researchOver } from './web.ts';

const PAINTERS: readonly Page[] = [
  {
    title: 'Pell Dorran',
    text: 'Pell Dorran (born 4 April 1950) is an American landscape painter. She has lived in Ohio since 1980.',
  },
  {
    title: 'Kiri Vasse',
    text: 'Kiri Vasse (born 9 June 1962) is a Chilean landscape painter who studied in Lyon, France. He paints the coast near Valparaiso.',
  },
];

const PLAYERS: readonly Page[] = [
  {
    title: 'Tomas Reyl',
    text: 'Tomas Reyl (born 2 May 1981) is a Danish professional tennis player. He won two doubles titles.',
  },
  {
    title: 'Ansel Vick',
    text: 'Ansel Vick (born 8 August 1979) is a Danish professional tennis player and coach. He coached in Aarhus.',
  },
];

const FILMS: readonly Page[] = [
  {
    title: 'Harbor Lights',
    text: 'Harbor Lights is a 1940 American drama film about a lighthouse keeper. It was shot in Maine.',
  },
  {
    title: 'Quiet Mill',
    text: 'Quiet Mill is a 1935 British comedy film set in a Yorkshire village. It was thought lost until 1990.',
  },
];

/** The answer's opening sentence, before its citations, and the pages those citations name. */
function opening(result: PipelineResult): { text: string; cites: string[] } {
  const match = /^(.+?)\s((?:\[\d+\])+)\./u.exec(result.answer);
  if (!match) return { text: '', cites: [] };
  const cites = [...match[2]!.matchAll(/\[(\d+)\]/gu)].map((m) => result.sources[Number(m[1]) - 1]!);
  return { text: match[1]!, cites };
}

describe('a yes/no question about two things opens with a grounded verdict', () => {
  it('"from the same country?": No, with each side\'s country, cited by both sides\' pages', async () => {
    const result = await researchOver(PAINTERS, 'Are Pell Dorran and Kiri Vasse from the same country?');
    const { text, cites } = opening(result);
    expect(text).toBe('No: United States for Pell Dorran, Chile for Kiri Vasse');
    expect(cites).toHaveLength(2);
    expect(cites[0]).toMatch(/Pell_Dorran$/u);
    expect(cites[1]).toMatch(/Kiri_Vasse$/u);
    // Then the sentences the verdict rests on, each cited.
    expect(result.answer).toContain('is an American landscape painter');
    expect(result.answer).toContain('is a Chilean landscape painter');
  });

  it('"of the same nationality?": Yes when both sentences name one country', async () => {
    const result = await researchOver(PLAYERS, 'Are Tomas Reyl and Ansel Vick of the same nationality?');
    expect(opening(result).text).toBe('Yes: Denmark for both');
  });

  it('"both tennis players?": Yes when each side\'s sentence says it', async () => {
    const result = await researchOver(PLAYERS, 'Are Tomas Reyl and Ansel Vick both tennis players?');
    const { text, cites } = opening(result);
    expect(text).toBe('Yes: the sources say it of both');
    expect(cites).toHaveLength(2);
  });

  it("says it is not decided when one side's sentence does not say it, and quotes both", async () => {
    const result = await researchOver(PAINTERS, 'Are Pell Dorran and Kiri Vasse both sculptors?');
    expect(opening(result).text).toBe('Not decided: the sentences below do not settle it');
    expect(result.answer).not.toMatch(/\b(?:Yes|No):/u);
    expect(result.answer).toContain('Pell Dorran (born 4 April 1950)');
    expect(result.answer).toContain('Kiri Vasse (born 9 June 1962)');
  });
});

describe('"which of the two" questions of time name the side', () => {
  it('"Which film came out first, X or Y?" opens with the earlier side and both dates', async () => {
    const result = await researchOver(FILMS, 'Which film came out first, Harbor Lights or Quiet Mill?');
    const { text, cites } = opening(result);
    expect(text).toBe('Quiet Mill — 1935, earlier than 1940 for Harbor Lights');
    expect(cites.map((url) => url.replace(/.*\//u, ''))).toEqual(['Harbor_Lights', 'Quiet_Mill']);
  });

  it('"Which film is older, X or Y?" reads the films\' years (an age of things, not of people)', async () => {
    const result = await researchOver(FILMS, 'Which film is older, Harbor Lights or Quiet Mill?');
    expect(opening(result).text).toBe('Quiet Mill — 1935, earlier than 1940 for Harbor Lights');
  });

  it('"Who was born later, X or Y?" compares the births', async () => {
    const result = await researchOver(PAINTERS, 'Who was born later, Pell Dorran or Kiri Vasse?');
    expect(opening(result).text).toBe('Kiri Vasse — 9 June 1962, later than 4 April 1950 for Pell Dorran');
  });

  it("gives no verdict from a date of another thing on the side's page", async () => {
    // Quiet Mill's page dates only its star's birth: nothing says when the film came out.
    const pages: readonly Page[] = [
      FILMS[0]!,
      {
        title: 'Quiet Mill',
        text: 'Quiet Mill is a British comedy film set in a Yorkshire village. Its star Dora Vell was born in 1901 in Leeds.',
      },
    ];
    const result = await researchOver(pages, 'Which film came out first, Harbor Lights or Quiet Mill?');
    expect(result.answer).not.toMatch(/earlier than|later than/u);
    expect(result.answer).not.toContain('1901,');
  });
});

const GENERA: readonly Page[] = [
  {
    title: 'Orvella',
    text: 'Orvella is a genus of flowering plants in the daisy family. It grows on rocky slopes in Chile.',
  },
  {
    title: 'Tamsinia',
    text: 'Tamsinia is a genus of small succulent plants native to Namibia. Its leaves store water.',
  },
];

describe('what a yes/no verdict reads past', () => {
  it('"described as a genus?": Yes when both sentences say genus (no sentence says "described")', async () => {
    const result = await researchOver(GENERA, 'Are both Orvella and Tamsinia described as a genus?');
    expect(opening(result).text).toBe('Yes: the sources say it of both');
  });
});
