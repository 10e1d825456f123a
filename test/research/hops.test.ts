/**
 * Nested questions read as hops, innermost first, and a chain of three hops over pages that do not name
 * each other: the film page names its director; the director has no page of his own, only a sentence on
 * another film's page says where he was born; the airport's page names the city, not the director. Each
 * lead's query asks the next hop of its name ("Daniel Almqvist birth place"), not the whole question's
 * remaining words, which pages about other airports answer better.
 */
import { describe, expect, it } from 'vitest';
import { hopOrder, nextHopWords } from '../../src/pipeline/research/hops.ts';
import { analyzeQuestion } from '../../src/pipeline/research/question.ts';
import type { PipelineResult } from '../../src/pipeline/run.ts';
import { type Page, researchOver } from './web.ts';

const order = (question: string) =>
  hopOrder(analyzeQuestion(question)).map((segment) => segment.words.join(' '));

describe('a nested question as hops, innermost first', () => {
  it('reads "the X in the Y of the Z of <name>" from the name outwards', () => {
    expect(
      order(
        'What is the main international airport in the birth place of the director of The Quiet Harbour?',
      ),
    ).toEqual(['director', 'birth place', 'main international airport']);
  });

  it('asks the relation joined to the name by "of" first, then the clause after it', () => {
    expect(
      order('What is the average snowfall in the city where the performers of Brother were formed?'),
    ).toEqual(['performers', 'formed', 'city', 'average snowfall']);
    expect(
      order('Who was in charge of the country where the composer of Aschenbrodel was a citizen?'),
    ).toEqual(['composer', 'citizen', 'country', 'charge']);
  });

  it('asks next the first hop the bridge sentences do not hold', () => {
    const analysis = analyzeQuestion(
      'What is the main international airport in the birth place of the director of The Quiet Harbour?',
    );
    expect(nextHopWords(analysis, [])).toEqual(['director']);
    expect(nextHopWords(analysis, ['The Quiet Harbour is a film directed by Daniel Almqvist.'])).toEqual([
      'birth',
      'place',
    ]);
    expect(
      nextHopWords(analysis, [
        'The Quiet Harbour is a film directed by Daniel Almqvist.',
        'Almqvist was born in Gothenburg.',
      ]),
    ).toEqual(['main', 'international', 'airport']);
  });

  it('makes no hop of a word that only places a thing, and takes a hop asked as resolved', () => {
    const question = 'Who was in charge of the state where Shringarpur is located?';
    expect(order(question)).toEqual(['state', 'charge']);
    // The bridge never says "state", but the chain asked it and found Maharashtra: "charge" is next.
    const bridge = ['Shringarpur is a village in the Konkan region of Maharashtra.'];
    expect(nextHopWords(analyzeQuestion(question), bridge)).toEqual(['state']);
    expect(nextHopWords(analyzeQuestion(question), bridge, undefined, [['state']])).toEqual(['charge']);
  });

  it('keeps a title abbreviation inside a name ("Mr. Cool")', () => {
    expect(analyzeQuestion('Who made The Oddventures of Mr. Cool?').entities).toEqual([
      'The Oddventures of Mr Cool',
    ]);
  });
});

/** Three hops; no page names the next one's title, and other airports' pages share the question's words. */
const THREE_HOPS: readonly Page[] = [
  {
    title: 'The Quiet Harbour',
    text: 'The Quiet Harbour is a 2009 Swedish thriller film directed by Daniel Almqvist. It follows a ferry captain through one winter.',
  },
  {
    title: 'Night Ferry (1997 film)',
    text: 'Night Ferry is a 1997 drama and the first feature of Daniel Almqvist. Almqvist was born in Gothenburg and trained as a stage actor.',
  },
  {
    title: 'Landvetter Airport',
    text: 'Landvetter Airport is the main international airport of Gothenburg, the second city of Sweden. It opened in 1977.',
  },
  {
    title: 'Khujand Airport',
    text: 'Khujand Airport is the main international airport of northern Tajikistan, near the birth place of many poets. Its main terminal is international.',
  },
  {
    title: 'Kulob Airport',
    text: 'Kulob Airport is an international airport in Tajikistan. The main airport of the region is the birth place of its airline.',
  },
  {
    title: 'Place of birth',
    text: 'The place of birth is the place where a person was born. An airport in the birth place is not part of it; the main record is international.',
  },
  {
    title: 'Dushanbe International Airport',
    text: 'Dushanbe International Airport is the main international airport of Tajikistan. Its birth place as an airfield was 1924.',
  },
];

async function research(question: string): Promise<PipelineResult> {
  return researchOver(THREE_HOPS, question);
}

describe('a three-hop chain over pages that do not name each other', () => {
  it('follows film → director (born on another page) → city → its airport', async () => {
    const result = await research(
      'What is the main international airport in the birth place of the director of The Quiet Harbour?',
    );
    const queries = (result.steps ?? []).flatMap((step) => step.queries);
    expect(queries).toContain('Daniel Almqvist birth place');
    const text = result.passages.map((p) => p.text).join('\n');
    expect(text).toContain('directed by Daniel Almqvist');
    expect(text).toContain('Almqvist was born in Gothenburg');
    expect(text).toContain('Landvetter Airport is the main international airport of Gothenburg');
  });
});

/** The band's page says twice that it was formed; only one sentence says when. */
const WHEN_PAGES: readonly Page[] = [
  {
    title: 'Quiet Tide (song)',
    text: 'Quiet Tide is a song recorded by the band Harbour Lights on their first album.',
  },
  {
    title: 'Harbour Lights (band)',
    text: 'Harbour Lights were formed by two brothers from Dundee and a drummer from Perth. The band was formed in 1987 after a school concert.',
  },
  { title: 'Dundee', text: 'Dundee is a city on the east coast of Scotland, on the Firth of Tay.' },
];

describe("the chain's end by what the question asks", () => {
  it('opens a "when" answer with the sentence of the end that says when', async () => {
    const result = await researchOver(WHEN_PAGES, 'When was the band that recorded Quiet Tide formed?');
    expect(result.answer.split(/\s\[\d+\]/u)[0]).toContain('formed in 1987');
  });
});

/** A site's page names its county before its state; the question names the United States besides. */
const STATE_PAGES: readonly Page[] = [
  {
    title: 'Kessel Mounds',
    text: 'Kessel Mounds is an archaeological site of the Woodland period in Tarrant County, Oklahoma, dating from 800 CE.',
  },
  { title: 'Tarrant County', text: 'Tarrant County has a courthouse, a county fair and two lakes.' },
  {
    title: 'History of Oklahoma',
    text: 'Oklahoma became the 46th state of the United States on November 16, 1907.',
  },
  { title: 'United States', text: 'The United States is a federal republic of fifty states and a district.' },
];

describe('a relation word that a name of the question also holds', () => {
  const question = 'When did the state where Kessel Mounds is located become part of the United States?';

  it('stays a relation of the question ("the state where …" beside "the United States")', () => {
    const analysis = analyzeQuestion(question);
    expect(analysis.entities).toContain('United States');
    expect(analysis.relationWords).toContain('state');
    expect(hopOrder(analysis, 'Kessel Mounds')[0]?.words).toEqual(['state']);
  });

  it('makes the state, not the county, the first lead of the site', async () => {
    const result = await researchOver(STATE_PAGES, question);
    const [first] = result.steps ?? [];
    expect(first?.found[0]).toMatch(/^Oklahoma \(in Kessel Mounds\)/u);
    expect(result.passages.map((p) => p.text).join('\n')).toContain('Oklahoma became the 46th state');
  });
});
