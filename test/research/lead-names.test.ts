/**
 * How research reads names off a page and a question: a place after a comma is a place, not an adjective
 * ("Kirkwood, Missouri designed by …"); "New York" keeps its "New"; "by the Norwegian playwright Henrik
 * Ibsen" ties the name to "by"; "Young" after "Neil Young" is Neil Young; a biography's opening dates stand
 * for "born" and "died"; an actor before "as" and the question's character is tied to the question ("Bill
 * Pullman as Jack"), and so is a name a comma sets off after "by" and its description ("by Melbourne
 * drug-dealer, Dennis Allen"); a year after "the" opens an event's name ("the 1936 Summer Olympics"); a run
 * of capitalised words too long for one name is read as the names either side of its first "of"; a
 * people's word before a lower-case word ("the American film") is no name of the question; a name that
 * titles a page read is no site's name; initials do not cut a question's names; a search for a name reads
 * the pages that hold the whole name first; and a name the question completes with another hop ("the
 * Margraviate of the country where …") is searched with that hop's answer.
 */
import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { salientEntities } from '../../src/pipeline/query.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { findLeads, mentionsOf, type LeadSource } from '../../src/pipeline/research/leads.ts';
import { analyzeQuestion, relationVocabulary } from '../../src/pipeline/research/question.ts';
import { createRulesPlanner } from '../../src/pipeline/research/rules-planner.ts';
import type { ResearchState, SearchedQuery } from '../../src/pipeline/research/types.ts';
import { runPipeline } from '../../src/pipeline/run.ts';
import type { ExtractedContent } from '../../src/pipeline/types.ts';
import { handmadeWeb, type HandmadeWeb } from './web.ts';

const source = (title: string, text: string): LeadSource => ({
  url: `https://wiki.test/${encodeURIComponent(title)}`,
  title,
  text,
  weight: 1,
});

const leadsFor = (question: string, sources: LeadSource[], focus: string[]) =>
  findLeads(sources, {
    focus,
    vocabulary: relationVocabulary(analyzeQuestion(question).relations),
    known: () => false,
    containers: true,
  });

const names = (sentence: string) => mentionsOf(sentence).map((mention) => mention.name);

describe('names in sentences', () => {
  it('reads a place after a comma as a place, though it ends like "Pakistani" and a verb follows', () => {
    expect(
      names('The Lund House is a house in Kirkwood, Missouri designed by Frank Lloyd Wright.'),
    ).toContain('Missouri');
    expect(names('The museum in Helsinki, Uusimaa opened in 1901.')).toContain('Uusimaa');
    // A nationality before its noun is still no name.
    expect(names('Ahmed Rashid is a Pakistani journalist.')).not.toContain('Pakistani');
  });

  it('opens an event\'s name with the year after "the", not a name of one word', () => {
    expect(names('He competed in the road race at the 1936 Summer Olympics.')).toContain(
      '1936 Summer Olympics',
    );
    expect(names('It is a remake of the 2007 Thai film Alone.')).toEqual(['Alone']);
    expect(names('In 1990 Germany won the cup.')).toEqual(['Germany']);
  });

  it('reads a run too long for one name as the names on each side of its first "of"', () => {
    const found = names('She served as the Director of The Frost Place Advanced Seminar from 2007 to 2010.');
    expect(found).toContain('Frost Place Advanced Seminar');
    // One word before the "of" is a title, not a name.
    expect(found).not.toContain('Director');
  });

  it('keeps "New" in a name it opens', () => {
    expect(names("He is stuck in New York's airport.")).toContain('New York');
    expect(names('The team moved to New Jersey in 1977.')).toContain('New Jersey');
  });
});

describe('lead scores', () => {
  it('ties a name to "by" across its description ("by the Norwegian playwright Henrik Ibsen")', () => {
    const play = source(
      'Brand (play)',
      'Brand is a play by the Norwegian playwright Henrik Ibsen. It was first staged in Stockholm, Sweden.',
    );
    const ibsen = leadsFor('What country was the author of Brand a citizen of?', [play], ['Brand']).find(
      (lead) => lead.name === 'Henrik Ibsen',
    );
    expect(ibsen?.related).toBe(true);
  });

  it('ties to "by" the name a comma sets off after its description ("by Melbourne drug-dealer, Dennis Allen")', () => {
    const band = source(
      'The Kelpies',
      'The Kelpies are an Australian rock band formed in Melbourne. Their keyboard player joined after Chris ' +
        'Stockton was shot in the stomach by Melbourne drug-dealer, Dennis Allen, who was crashing a party.',
    );
    const question = 'In what year did the man who shot Chris Stockton, of The Kelpies, die?';
    const leads = leadsFor(question, [band], ['The Kelpies']);
    const allen = leads.find((lead) => lead.name === 'Dennis Allen');
    const melbourne = leads.find((lead) => lead.name === 'Melbourne');
    expect(allen?.related).toBe(true);
    expect(allen!.score).toBeGreaterThan(melbourne!.score);
  });

  it('ties an actor to the question\'s character in a cast list ("Bill Pullman as Jack")', () => {
    const film = source(
      'Harbour Lights (film)',
      'Harbour Lights is a 1995 comedy film directed by Ana Reyes and written by Tom Hale and Ida Voss. It ' +
        'stars Mia Lund as Lucy, a ferry clerk, and Bill Pullman as Jack, the brother of a man she saves, ' +
        'along with Peter Boyle as Ned.',
    );
    const question = 'The character Jack from Harbour Lights was born in what year?';
    const known = new Set(['jack', 'harbour lights']);
    const leads = findLeads([film], {
      focus: ['Harbour Lights'],
      vocabulary: relationVocabulary(analyzeQuestion(question).relations),
      known: (name) => known.has(name.toLowerCase()),
    });
    const pullman = leads.find((lead) => lead.name === 'Bill Pullman');
    const lund = leads.find((lead) => lead.name === 'Mia Lund');
    expect(pullman?.related).toBe(true);
    expect(pullman!.score).toBeGreaterThan(lund!.score);
  });

  it('counts a surname written alone for the full name, not as a lead of its own', () => {
    const album = source(
      'Decade (album)',
      'Decade is an album by the Canadian musician Neil Young. In 1976 Young chose its songs, and later ' +
        'Young wrote its notes; with David Briggs, Young sequenced it.',
    );
    const leads = leadsFor('Who is the sibling of the performer of Decade?', [album], ['Decade']);
    expect(leads.map((lead) => lead.name)).not.toContain('Young');
    expect(leads[0]?.name).toBe('Neil Young');
  });

  it('takes the name, not the abbreviation in brackets after it', () => {
    const mounds = source(
      'Pocahontas Mounds',
      'The mounds were added to the National Register Information System (NRIS) in 1969, near Jackson ' +
        'International Airport (JAN).',
    );
    const names = leadsFor('When were the Pocahontas Mounds listed?', [mounds], ['Pocahontas Mounds']).map(
      (lead) => lead.name,
    );
    expect(names).toContain('National Register Information System');
    expect(names).not.toContain('NRIS');
    expect(names).not.toContain('JAN');
  });

  it("reads a biography's opening dates as its birth and death", () => {
    const life = source(
      'Steven Blankaart',
      'Steven Blankaart (24 October 1650, Middelburg – 23 February 1704, Amsterdam) was a Dutch physician.',
    );
    const question = 'In which country is the city where Steven Blankaart was born?';
    const leads = leadsFor(question, [life], ['Steven Blankaart']);
    expect(leads.find((lead) => lead.name === 'Middelburg')?.related).toBe(true);
    const death = leadsFor('Where did Steven Blankaart die?', [life], ['Steven Blankaart']);
    expect(death[0]?.name).toBe('Amsterdam');
  });
});

describe('the names of a question', () => {
  it("leave out a people's word before a lower-case word: it names no page to search", () => {
    const analysis = analyzeQuestion(
      'Who directed the 2009 American science fiction film starring the actor who played Dexter Morgan?',
    );
    expect(analysis.entities).toEqual(['Dexter Morgan']);
    expect(analysis.relations).not.toContain('american');
    expect(analyzeQuestion('Which club signed Gennaro Gattuso for what Scottish team?').entities).toEqual([
      'Gennaro Gattuso',
    ]);
    // A people's word that is itself a name's start stays ("American Idol").
    expect(analyzeQuestion('Who won American Idol in 2004?').entities).toEqual(['American Idol']);
  });

  it('are not cut at an initial or a title', () => {
    expect(salientEntities('Where was Hyman B. Samuels born?')).toEqual(['Hyman B Samuels']);
    expect(salientEntities('What did Mr. Smith see in St. Louis?')).toEqual(['Mr Smith', 'St Louis']);
    expect(salientEntities('Who is Ada Lind? Where is Bo Park.')).toEqual(['Ada Lind', 'Bo Park']);
  });
});

const page = (title: string, text: string): ExtractedContent => ({
  url: `https://wiki.test/${encodeURIComponent(title)}`,
  title,
  text,
  markdown: text,
});

describe('site names', () => {
  it('are not a name that titles one of the pages read', async () => {
    const question =
      'When did the state where Pocahontas Mounds is located become part of the United States?';
    const analysis = analyzeQuestion(question);
    const mounds = page(
      'Pocahontas Mounds',
      'Pocahontas Mounds is an archaeological site in Hinds County, Mississippi.',
    );
    // The question's own search read pages about the state: its name stands on most of them.
    const others = [
      page('History of Mississippi', 'Mississippi became a state in 1817.'),
      page('Jackson, Mississippi', 'Jackson is the capital of Mississippi.'),
      page('Natchez', 'Natchez was the first capital of Mississippi.'),
      page('Gulf Coast', 'The Gulf Coast of Mississippi has many beaches.'),
    ];
    const round: SearchedQuery[] = [
      {
        planned: { query: question, thread: 0, kind: 'question', focus: [], results: 8 },
        hits: [],
        documents: others,
      },
      {
        planned: {
          query: 'Pocahontas Mounds',
          thread: 0,
          kind: 'entity',
          focus: ['Pocahontas Mounds'],
          results: 3,
          origin: 'Pocahontas Mounds',
        },
        hits: [],
        documents: [mounds],
      },
    ];
    const state: ResearchState = {
      analysis,
      rounds: [round],
      searched: () => false,
      known: (name) => name === 'Pocahontas Mounds',
      queriesLeft: 10,
    };
    const plan = await createRulesPlanner().next(state, new AbortController().signal);
    expect(plan.queries[0]?.lead?.name).toBe('Mississippi');
  });
});

/** Asks `prompt` at the research depth over a handmade web, reading one result of the question's search. */
function research(web: HandmadeWeb, prompt: string) {
  return runPipeline(
    { prompt, context: [], responseType: 'text', filters: {}, depth: 'research' },
    { search: web.search, ranker: createBm25Ranker(), answerer: createExtractiveAnswerer() },
    { maxResults: 5, maxPassageTokens: 4000, pageTimeoutMs: 5000, research: { questionResults: 1 } },
    { signal: new AbortController().signal, requestId: 'lead-names', deadline: Date.now() + 20_000 },
  );
}

describe('a search for a name', () => {
  it('reads the pages that hold the whole name before those that share one of its words', async () => {
    const web = handmadeWeb(
      [
        { title: 'Glass Harbor', text: 'Glass Harbor is a 1961 drama film directed by Orla Vance.' },
        // Pages busy with "Orla", "Vance" and spouses, but of other people: no page holds "Orla Vance".
        ...['Quinn', 'Marsh', 'Hale', 'Doyle', 'Frey', 'Lund', 'Moss', 'Reed'].map((last) => ({
          title: `Orla ${last}`,
          text: `Orla ${last} was a singer; her spouse was Sam Vance. Orla and Vance toured, spouse and Vance.`,
        })),
        {
          title: 'Tidewater (film)',
          text: 'Tidewater is directed by Orla Vance and stars Tomas Reyes, her spouse since 1955.',
        },
      ],
      { fetched: false },
    );
    const result = await research(web, 'Who is the spouse of the director of Glass Harbor?');
    expect(result.passages.map((p) => p.text).join('\n')).toContain('Tomas Reyes');
  });
});

describe('a name that another hop completes', () => {
  it('is searched with the country that hop found ("Margraviate of Austria")', async () => {
    const margraviates = ['Baden', 'Meissen', 'Brandenburg', 'Moravia', 'Istria', 'Verona'].map((place) => ({
      title: `Margraviate of ${place}`,
      text: `The Margraviate of ${place} was a margraviate of the Holy Roman Empire, ruled by a margrave.`,
    }));
    const web = handmadeWeb([
      ...margraviates,
      {
        title: 'Margraviate of Austria',
        text: 'The Margraviate of Austria was a march, a frontier county of the Duchy of Bavaria.',
      },
      {
        title: 'Lindenhof Garden',
        text: 'The Lindenhof Garden is a botanical garden located in Graz, Austria.',
      },
      { title: 'Graz', text: 'Graz is the second city of Austria. Austria holds Graz. Austria, Austria.' },
      // Pages about the country that its search reads first.
      ...['Austria', 'Economy of Austria', 'Politics of Austria', 'Geography of Austria'].map((title) => ({
        title,
        text: `${title} : Austria is a country in Central Europe. The country of Austria is a federal country.`,
      })),
    ]);
    const result = await research(
      web,
      'What is the Margraviate of the country where the Lindenhof Garden is located an instance of?',
    );
    expect(web.queries).toContain('Margraviate of Austria');
    expect(result.passages.map((p) => p.text).join('\n')).toContain('was a march');
  });
});

describe('a name that another hop completes, with a lead named by the relation', () => {
  it('is not searched with "United States" for "the state where …"', async () => {
    const web = handmadeWeb([
      {
        title: 'Hollis Chapel',
        text: 'Hollis Chapel is a church in Hollis, Ohio, United States, built in 1841.',
      },
      { title: 'Dunmore', text: 'Dunmore is a city in Ohio. Its area code is 513.' },
    ]);
    await research(web, 'What is the area code for Dunmore in the state where the Hollis Chapel is?');
    expect(web.queries).not.toContain('Dunmore in United States');
  });
});

describe('the first round', () => {
  it('searches each of four names a question gives', async () => {
    const question =
      'What part of the state, in which the character played by the actor who played Captain Vale in ' +
      'Iron Coast is stuck in The Gate, is Rochford in?';
    const plan = await createRulesPlanner().first(analyzeQuestion(question), new AbortController().signal);
    expect(plan.queries.map((q) => q.query)).toEqual([
      question,
      'Captain Vale',
      'Iron Coast',
      'The Gate',
      'Rochford',
    ]);
  });
});
