/**
 * Research stops when it knows every relation of the question is resolved: a lead whose own page an earlier
 * query already read completes its chain without a search of its own (over HTTP: one round, charged only
 * the queries it sent), and a chain covers the question only when the sentence it ends on holds the whole
 * outermost relation and the kind of thing asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coveredByOne, questionParts } from '../../src/pipeline/research/coverage.ts';
import { analyzeQuestion } from '../../src/pipeline/research/question.ts';
import { coveredByRelations } from '../../src/pipeline/research/stop-rule.ts';
import { RESEARCH_DEFAULTS } from '../../src/pipeline/research/types.ts';
import { askCounted, handmadeWeb, PAGES, researchOver, researchServer, type ResearchServer } from './web.ts';

describe('early stop over HTTP', () => {
  const web = handmadeWeb(PAGES);
  let served: ResearchServer;

  beforeAll(async () => {
    served = await researchServer(web);
  });
  afterAll(() => served.close());

  it("stops after the first round when the lead's own page was already read, charged only the queries it sent", async () => {
    // The question's own search reads Leo McCarey's page; the film's page names him as its director.
    const { body, sent, spent } = await askCounted(
      served,
      web,
      'Who is the child of the director of Love Affair?',
    );
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]?.stopped).toBe('covered');
    expect(sent).toBe(body.steps[0]?.queries.length);
    expect(sent).toBe(2);
    expect(sent).toBeLessThan(RESEARCH_DEFAULTS.maxQueries);
    expect(body.usage.credits_charged).toBe(sent);
    expect(spent).toBe(sent);
    // The chain is the answer's: the child (the end), then the film naming its director, each cited.
    expect(body.answer).toContain('Mary McCarey');
    expect(body.answer).toContain('directed by Leo McCarey');
    expect(body.sources).toEqual(
      expect.arrayContaining([web.urlOf('Leo McCarey'), web.urlOf('Love Affair (1939 film)')]),
    );
  });
});

describe('a chain covers the question when it resolves every relation', () => {
  const covers = (question: string, bridges: string[], end: string) =>
    coveredByRelations(analyzeQuestion(question), bridges, [end], undefined);

  const team = 'Who leads the team that repairs the blender built at the Lyon plant?';
  const bridges = ['Lyon plant Its main line builds the Vortex 300 blender for the European market.'];

  it('needs the whole outermost relation in the sentence it ends on ("leads" and "team", not "team")', () => {
    expect(
      covers(
        team,
        bridges,
        'Repairs of the Vortex 300 under warranty are handled by the Field Service team, which collects the blender at home.',
      ),
    ).toBe(false);
    expect(
      covers(
        team,
        [
          ...bridges,
          'Repairs and warranty Repairs of the Vortex 300 under warranty are handled by the Field Service team.',
        ],
        'Team: Field Service; Head: Marisol Achebe; Office: Grenoble',
      ),
    ).toBe(true);
  });

  it('needs the kind of thing asked: a person for "Who…"', () => {
    const question = 'Who is the child of the director of Love Affair?';
    const film = ['Love Affair (1939 film) Love Affair is a 1939 film directed by Leo McCarey.'];
    expect(covers(question, film, 'Their only child was born in 1923, three years after the wedding.')).toBe(
      false,
    );
    expect(covers(question, film, 'Their only child, Mary McCarey, was born in 1923.')).toBe(true);
  });

  it('never for a question that names nothing (its relations have no order)', () => {
    expect(
      covers(
        'How much does the drone that flies for 42 minutes cost?',
        ['Our products Harbour makes two families of products: Kestrel drones for surveys.'],
        'The Kestrel 500 is our survey drone. It flies for 42 minutes and costs EUR 1,890.',
      ),
    ).toBe(false);
  });
});

describe('a lead whose page was already read', () => {
  it('stops on its own page only, not on a page whose title merely starts with its name', async () => {
    // The question's own search reads all three pages; none is Kansas's own page, and the district's page
    // holds a number and the question's words without saying how many districts there are.
    const result = await researchOver(
      [
        {
          title: 'Henry Worrall (artist)',
          text: 'Henry Worrall was an American artist and musician. He died in Topeka, Kansas, in 1902.',
        },
        {
          title: "Kansas's 4th congressional district",
          text: "Kansas's 4th congressional district is a congressional district in the south of the state, represented by Ron Estes since 2017.",
        },
        {
          title: 'Topeka',
          text: 'Topeka is the capital city of the state of Kansas and the seat of Shawnee County.',
        },
      ],
      'The state where Henry Worrall died has how many congressional districts?',
    );
    expect(result.steps?.[0]?.stopped).toBeUndefined();
    expect(result.steps?.length).toBeGreaterThan(1);
  });
});

describe('one sentence covering a question', () => {
  const page = (title: string, text: string) => ({
    url: `https://wiki.test/${encodeURIComponent(title)}`,
    title,
    text,
    markdown: text,
  });
  const coversWith = (question: string, text: string) =>
    coveredByOne(question, questionParts(analyzeQuestion(question)), [page('Page', text)]);

  it('reads a sentence with the one after it that opens with a pronoun', () => {
    const drone = 'The Kestrel 500 is our survey drone. It flies for 42 minutes and costs EUR 1,890.';
    expect(coversWith('What does the Kestrel 500 survey drone cost?', drone)).toBe(true);
  });

  it('not with a whole run of "She …" sentences, which names everything in a life', () => {
    const life =
      'Ada Morrow is an American poet. She grew up near Philadelphia and moved to New York City in 1983. ' +
      'She taught at Rutgers University. She served as the Director of The Frost Place Advanced Seminar ' +
      'from 2007 to 2010.';
    expect(coversWith('Where is the seminar Ada Morrow directed in 2007-2010 located?', life)).toBe(false);
  });
});
