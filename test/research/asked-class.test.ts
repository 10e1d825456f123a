/**
 * The end of a chain names a thing of the class the question asks for: "What river flows through the city
 * where X was born?" opens with the sentence naming "the Glomma River", not with a sentence about the city's
 * river that names none (it holds more of the question's words: "river flows"). Over HTTP, the extractive
 * answer opens with that end, then the bridge that led to the city.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askedClass, namesClass } from '../../src/pipeline/research/chain-end.ts';
import { handmadeWeb, researchServer, type Page, type ResearchServer } from './web.ts';

const PAGES: readonly Page[] = [
  {
    title: 'Halvard Strom',
    text: 'Halvard Strom was a Norwegian landscape painter. Strom was born in Vellby and studied in Bergen.',
  },
  {
    title: 'Vellby',
    text: 'Vellby is a small city in Norway where the river flows slowly past the old mill. The city is crossed by the Glomma River near its harbour. Vellby has a wooden church.',
  },
  {
    title: 'Bergen',
    text: 'Bergen is a city on the west coast of Norway. It has a university and a fish market.',
  },
];

/** The answer's sentences, each without its citation. */
function sentencesOf(answer: string): string[] {
  return answer.split(/\s\[\d+\][.!?]?\s*/u).filter(Boolean);
}

describe('the class of thing asked', () => {
  it('is read from "what X", "which X Y", "what is the X of" and "the name of the X"', () => {
    expect(askedClass('What river flows through the city?')).toContain(askedClass('river')[0] ?? 'river');
    expect(askedClass('Humboldt Peak is part of what mountain range?')).toHaveLength(2);
    expect(askedClass('What is the current home arena of the team?')).toEqual(['arena']);
    expect(askedClass('What is the name of the airport in the city?')).toEqual(['airport']);
    expect(askedClass('Who is the spouse of the founder?')).toEqual([]);
    expect(askedClass('What is the population of Oslo?')).toEqual(['population']);
  });

  it('is named by a name of two words or more ending with it, not by a name of the question', () => {
    const question = 'What river flows through the city?';
    const river = askedClass(question);
    expect(namesClass('The city is crossed by the Glomma River.', river, question)).toBe(true);
    expect(namesClass('The river flows slowly past the Old Mill.', river, question)).toBe(false);
    expect(namesClass('It lies on the Glomma River.', river, 'What river meets the Glomma River?')).toBe(
      false,
    );
  });
});

describe('a chain ending on a thing of the class asked, over HTTP', () => {
  const web = handmadeWeb(PAGES);
  let served: ResearchServer;

  beforeAll(async () => {
    served = await researchServer(web);
  });
  afterAll(() => served.close());

  it('opens "What river flows through the city where X was born?" with the sentence naming the river', async () => {
    const response = await served.api.post({
      prompt: 'What river flows through the city where Halvard Strom was born?',
      depth: 'research',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { answer: string; sources: string[] };
    const [first, second] = sentencesOf(body.answer);
    expect(first).toContain('crossed by the Glomma River');
    expect(second).toContain('born in Vellby');
    expect(body.sources.slice(0, 2)).toEqual([web.urlOf('Vellby'), web.urlOf('Halvard Strom')]);
  });
});
