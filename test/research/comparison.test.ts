/**
 * A comparison's extractive answer opens with each side's end: "Which film has the director who died
 * later, X or Y?" quotes each director's life (on the director's page, which names neither film), each
 * followed by the film's sentence naming its director, each cited. Each film's page also has a sentence
 * that shares more words with the question (a decoy that says nothing of the director's death).
 */
import { describe, expect, it } from 'vitest';
import type { PipelineResult } from '../../src/pipeline/run.ts';
import { type Page, researchOver } from './web.ts';

const PAGES: readonly Page[] = [
  {
    title: 'Salt Roads',
    text: 'Salt Roads is a 1951 drama film directed by Ilse Marrow. The film was the first of the director to be shown later in colour, and the film director died on set in a scene.',
  },
  {
    title: 'Paper Kites',
    text: 'Paper Kites is a 1948 comedy film directed by Otto Brenning. The director of the film later died in the film as a character, a scene the film director wrote.',
  },
  {
    title: 'Ilse Marrow',
    text: 'Ilse Marrow (3 March 1902 – 9 May 1961) was a German screenwriter. She wrote eleven screenplays.',
  },
  {
    title: 'Otto Brenning',
    text: 'Otto Brenning (12 June 1899 – 2 October 1977) was an Austrian stage actor. He ran a theatre in Graz.',
  },
];

async function research(question: string): Promise<PipelineResult> {
  return researchOver(PAGES, question);
}

/** The answer's sentences with the page each cites. */
function cited(result: PipelineResult): { text: string; url: string }[] {
  return [...result.answer.matchAll(/(.+?)\s\[(\d+)\][.!?]?\s*/gu)].map((m) => ({
    text: m[1]!.trim(),
    url: result.sources[Number(m[2]) - 1]!,
  }));
}

describe("a comparison's answer names each side's end", () => {
  it("opens with each director's life, each followed by the film naming its director, each cited", async () => {
    const result = await research('Which film has the director who died later, Salt Roads or Paper Kites?');
    // First the verdict the two deaths decide (verdict.test.ts), cited by both directors' pages.
    const verdict = /^(.+?) \[1\]\[2\]\. /u.exec(result.answer);
    expect(verdict?.[1]).toBe('Paper Kites — 2 October 1977, later than 9 May 1961 for Salt Roads');
    const sentences = cited({ ...result, answer: result.answer.slice(verdict![0].length) });
    expect(sentences.slice(0, 4).map((s) => s.text.slice(0, 24))).toEqual([
      'Ilse Marrow (3 March 190',
      'Salt Roads is a 1951 dra',
      'Otto Brenning (12 June 1',
      'Paper Kites is a 1948 co',
    ]);
    expect(sentences[0]!.url).toMatch(/Ilse_Marrow$/u);
    expect(sentences[1]!.url).toMatch(/Salt_Roads$/u);
    expect(sentences[2]!.url).toMatch(/Otto_Brenning$/u);
    expect(sentences[3]!.url).toMatch(/Paper_Kites$/u);
  });
});
