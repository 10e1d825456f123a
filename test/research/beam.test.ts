/**
 * The beam of leads is not filled by a chain that lost its subject: a lead's search that read no page of
 * the lead's own gives leads that count half and never go first, so the chain whose link held is followed.
 * Nor by one long page: each query's leads are ranked against that query's best, so the second lead of a
 * short page is followed before the third of a page that names its things again and again. Between leads
 * ranked alike, one read on a page about a name of the question goes first.
 */
import { describe, expect, it } from 'vitest';
import { nameKey } from '../../src/pipeline/research/leads.ts';
import { analyzeQuestion } from '../../src/pipeline/research/question.ts';
import { createRulesPlanner } from '../../src/pipeline/research/rules-planner.ts';
import type { PlannedQuery, ResearchState, SearchedQuery } from '../../src/pipeline/research/types.ts';
import type { ExtractedContent } from '../../src/pipeline/types.ts';

const QUESTION = 'What is the birth place of the spouse of the director of Glass Harbor?';

const page = (title: string, text: string): ExtractedContent => ({
  url: `https://wiki.test/${encodeURIComponent(title)}`,
  title,
  text,
  markdown: text,
});

const FILM = page(
  'Glass Harbor',
  'Glass Harbor is a 1961 drama film directed by Orla Vance and shot at Pelican Studios.',
);

/** A search for a lead of the film's page, and what it read. */
function followed(name: string, documents: ExtractedContent[]): SearchedQuery {
  const sentence = FILM.text;
  const planned: PlannedQuery = {
    query: `${name} spouse`,
    thread: 0,
    kind: 'lead',
    focus: [name],
    results: 3,
    origin: 'Glass Harbor',
    lead: { name, score: 1, url: FILM.url, title: FILM.title, sentence, related: true },
    hop: ['spouse'],
    asked: [['spouse']],
    bridges: [{ text: sentence, url: FILM.url, title: FILM.title, lead: name }],
  };
  return { planned, hits: [], documents };
}

describe('the beam of leads', () => {
  it("follows the chain whose search read the lead's own page before one that lost its subject", async () => {
    const analysis = analyzeQuestion(QUESTION);
    const first: SearchedQuery = {
      planned: {
        query: 'Glass Harbor',
        thread: 0,
        kind: 'entity',
        focus: ['Glass Harbor'],
        results: 3,
        origin: 'Glass Harbor',
      },
      hits: [],
      documents: [FILM],
    };
    // The director's page names her spouse once; the studio's search never found the studio's page, only
    // a page busy with spouses and directors of other people.
    const director = followed('Orla Vance', [
      page(
        'Orla Vance',
        'Orla Vance was an Irish film director. She married the painter Tomas Reyes in 1958.',
      ),
    ]);
    const studio = followed('Pelican Studios', [
      page(
        'Harbor films of 1961',
        'The studio was run by Ada Lark, spouse of the director Ben Lark; her birth place is unknown, and she married the director in 1950.',
      ),
    ]);
    const known = new Set(['glass harbor', 'orla vance', 'pelican studios']);
    const state: ResearchState = {
      analysis,
      rounds: [[first], [studio, director]],
      searched: () => false,
      known: (name) => known.has(nameKey(name)),
      queriesLeft: 8,
    };
    const plan = await createRulesPlanner({ leadsPerRound: 1 }).next(state, new AbortController().signal);
    expect(plan.queries.map((q) => q.query)).toEqual(['Tomas Reyes birth place']);
  });

  it("ranks each name's leads against that name's best, so one long page does not fill the beam", async () => {
    const analysis = analyzeQuestion(
      'When did the country containing Kohala Park leave the Northern Commonwealth?',
    );
    const searchedName = (name: string, document: ExtractedContent): SearchedQuery => ({
      planned: { query: name, thread: 0, kind: 'entity', focus: [name], results: 3, origin: name },
      hits: [],
      documents: [document],
    });
    const suburb = searchedName(
      'Kohala Park',
      page(
        'Kohala Park',
        'Kohala Park is a suburb in Veridia City, Lorania. It lies in the east of Veridia City, near the harbour of Veridia City.',
      ),
    );
    // The union's page names its own things many times: each of them outscores the country of the suburb.
    const union = searchedName(
      'Northern Commonwealth',
      page(
        'Northern Commonwealth',
        'The Northern Commonwealth was a union of countries led by Arvenland. Arvenland left the Northern ' +
          'Commonwealth in 1931, and Governor Hale of Arvenland signed the Treaty of Skell. Governor Hale later ' +
          'led the Northern Commonwealth council. The Treaty of Skell let each country leave. Arvenland and ' +
          'Governor Hale kept the Skell Canal. The Skell Canal joined the countries of the Northern Commonwealth.',
      ),
    );
    const known = new Set(['kohala park', 'northern commonwealth']);
    const state: ResearchState = {
      analysis,
      rounds: [[suburb, union]],
      searched: () => false,
      known: (name) => known.has(nameKey(name)),
      queriesLeft: 8,
    };
    const plan = await createRulesPlanner({ leadsPerRound: 3 }).next(state, new AbortController().signal);
    expect(plan.queries.map((q) => q.lead?.name)).toEqual(['Arvenland', 'Veridia City', 'Lorania']);
  });

  it("takes, between leads ranked alike, the one read on a page about the question's own name", async () => {
    const analysis = analyzeQuestion(
      'Where is the district that Rannoch Knoll is part of located in Norland?',
    );
    const lost = (name: string, document: ExtractedContent): SearchedQuery => ({
      planned: {
        query: `${name} located`,
        thread: 0,
        kind: 'lead',
        focus: [name],
        results: 3,
        origin: 'Rannoch Knoll',
        lead: { name, score: 1, url: document.url, title: 'Elsewhere', sentence: '', related: true },
      },
      hits: [],
      documents: [document],
    });
    // Neither search read its lead's own page; one read a page about another district, the other the page
    // of the hill the question names.
    const other = lost(
      'Upper Fell District',
      page('Kesk District', 'Kesk District is a district located in Varmland, part of Varsky Province.'),
    );
    const hill = lost(
      'Walter Knoll',
      page('Rannoch Knoll', 'Rannoch Knoll is a hill in the northern part of the Fell District.'),
    );
    const known = new Set(['rannoch knoll', 'norland', 'upper fell district', 'walter knoll']);
    const state: ResearchState = {
      analysis,
      rounds: [[other, hill]],
      searched: () => false,
      known: (name) => known.has(nameKey(name)),
      queriesLeft: 8,
    };
    const plan = await createRulesPlanner({ leadsPerRound: 1 }).next(state, new AbortController().signal);
    expect(plan.queries.map((q) => q.lead?.name)).toEqual(['Fell District']);
  });
});
