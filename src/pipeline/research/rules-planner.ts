/**
 * The model-free research planner. First round: the question as asked, plus each side of a comparison
 * (or each name the question gives) on its own. Next rounds: a beam of the best leads of what was read
 * ({@link findLeads}), each query's pages giving their own leads, so that a chain is followed link by link
 * ("Brother" → Pearl Jam → Seattle) and a comparison follows each side ("Which film's director was born
 * first, X or Y?" reads X and Y, then X's director and Y's director).
 */
import { bridgeText, readLeadPage } from './chain.ts';
import { countriesIn } from './countries.ts';
import { compositeNames, nextHopWords } from './hops.ts';
import { findLeads, nameKey, titledBy, type Lead, type LeadSource } from './leads.ts';
import { matchesVocabulary, meaningStems, relationVocabulary, type QuestionAnalysis } from './question.ts';
import { resolveResearchSettings } from './settings.ts';
import { chainAlreadyRead, covered } from './stop-rule.ts';
import {
  type PlannedQuery,
  type ResearchPlan,
  type ResearchPlanner,
  type ResearchSettings,
  type ResearchState,
  type SearchedQuery,
} from './types.ts';

/** A lead counts only if it scores at least this share of the best lead of the same query's pages. */
const MIN_LEAD_SHARE = 0.35;
/** Most names of a question searched on their own in the first round (besides comparison sides). */
const MAX_ENTITY_QUERIES = 4;
/** Most relation words added to a lead's name in its query. */
const MAX_ADDED_WORDS = 5;
/** A name on more than this share of the pages read (with at least 4 pages) is a site's, not a lead. */
const COMMON_SHARE = 0.25;
/** A name on fewer pages than this is never a site's name. */
const MIN_COMMON_PAGES = 4;
/** Words of a question that asks for a place holding another ("the state where X is"). */
const CONTAINER_WORDS = new Set(
  [
    'country',
    'state',
    'nation',
    'continent',
    'province',
    'region',
    'county',
    'city',
    'town',
    'territory',
  ].map((word) => meaningStems(word)[0]!),
);

/** Stems of the words for a country. */
const COUNTRY_WORDS = new Set(['country', 'nation'].map((word) => meaningStems(word)[0]!));

/**
 * Creates the model-free planner.
 * @param settings Its budgets (results read per query, leads per round), resolved once here; settings
 *   already resolved (`resolveResearchSettings`) are used as they are. @default RESEARCH_DEFAULTS
 */
export function createRulesPlanner(settings?: ResearchSettings): ResearchPlanner {
  const { questionResults, entityResults, leadResults, leadsPerRound } = resolveResearchSettings(settings);
  return {
    async first(analysis) {
      return { queries: firstQueries(analysis, questionResults, entityResults), found: [], planner: 'rules' };
    },
    async next(state) {
      return nextFromLeads(state, leadResults, leadsPerRound);
    },
  };
}

/** The first round: the question, then each side of a comparison or each name it gives. */
function firstQueries(
  analysis: QuestionAnalysis,
  questionResults: number,
  entityResults: number,
): PlannedQuery[] {
  const sides = analysis.sides;
  const queries: PlannedQuery[] = [
    {
      query: analysis.question,
      thread: 0,
      kind: 'question',
      focus: analysis.entities,
      results: questionResults,
    },
  ];
  const named = sides.length > 0 ? sides : analysis.entities.slice(0, MAX_ENTITY_QUERIES);
  named.forEach((name, index) => {
    if (nameKey(name) === nameKey(analysis.question)) return;
    queries.push({
      query: name,
      thread: sides.length > 0 ? index : 0,
      kind: sides.length > 0 ? 'side' : 'entity',
      focus: [name],
      origin: name,
      results: entityResults,
    });
  });
  return queries;
}

/**
 * What the question's own results (pages that merely share its words) count against those of a search for a
 * name: as lead sources ({@link sourcesOf}), and again in the beam, which ranks each lead against its own
 * query's best and so divides the sources' weight out.
 */
const QUESTION_LEAD_WEIGHT = 0.5;

/**
 * A query's documents as lead sources: earlier results weigh more, and the question's own results
 * {@link QUESTION_LEAD_WEIGHT} as much as those of a search for a name.
 */
function sourcesOf(searched: SearchedQuery): LeadSource[] {
  const kindWeight = searched.planned.kind === 'question' ? QUESTION_LEAD_WEIGHT : 1;
  return searched.documents.map((document, rank) => ({
    url: document.url,
    title: document.title,
    text: document.text,
    markdown: document.markdown,
    weight: kindWeight / (1 + rank),
  }));
}

/** Names that stand on too many of the pages read to be about any of them (a site's name, a byline). */
function commonNames(state: ResearchState): (name: string) => boolean {
  const documents = new Map(state.rounds.flat().flatMap((q) => q.documents.map((d) => [d.url, d] as const)));
  if (documents.size < MIN_COMMON_PAGES) return () => false;
  const texts = [...documents.values()].map((document) => ` ${nameKey(document.text)} `);
  // A name that titles a page read ("History of Mississippi") is what those pages are about, not a site's.
  const titles = [...documents.values()].map((document) => ` ${nameKey(document.title)} `);
  const cache = new Map<string, boolean>();
  return (name) => {
    const key = ` ${nameKey(name)} `;
    let common = cache.get(key);
    if (common === undefined) {
      const holding = texts.filter((text) => text.includes(key)).length;
      common =
        holding >= MIN_COMMON_PAGES &&
        holding / texts.length > COMMON_SHARE &&
        !titles.some((title) => title.includes(key));
      cache.set(key, common);
    }
    return common;
  };
}

/**
 * The query for a lead: its name and the next hop of its chain ({@link nextHopWords}: "Daniel Alfredson
 * birth place" for "the main international airport in the birth place of the director of …"); when every
 * hop is asked or held, the question's relation words that the page it was found on does not speak of, at
 * most {@link MAX_ADDED_WORDS}.
 */
function leadQuery(
  lead: Lead,
  state: ResearchState,
  sourceText: string,
  bridges: readonly { readonly text: string; readonly title: string }[],
  origin: string | undefined,
  asked: readonly (readonly string[])[],
): { query: string; hop?: string[]; asked?: readonly (readonly string[])[] } {
  const hop = nextHopWords(state.analysis, bridges.map(bridgeText), origin, asked);
  if (hop.length > 0) return { query: [lead.name, ...hop].join(' '), hop, asked: [...asked, hop] };
  const onPage = meaningStems(sourceText);
  const missing = state.analysis.relationWords.filter((word) => {
    const stem = meaningStems(word)[0];
    if (stem === undefined) return false;
    const vocabulary = relationVocabulary([stem]);
    return !onPage.some((s) => matchesVocabulary(s, vocabulary));
  });
  return { query: [lead.name, ...missing.slice(0, MAX_ADDED_WORDS)].join(' ') };
}

/**
 * Queries for the question's names that another hop completes ({@link compositeNames}): "Margraviate of
 * Austria" for "What is the Margraviate of the country where …" once "Austria" is a lead that resolves that
 * relation (a country for "country"; for another relation, a lead whose sentence speaks of it besides the
 * lead's own name: not "United States" for "the state where …"), unless that page was read. One a round.
 */
function compositeQueries(
  state: ResearchState,
  chosen: readonly Candidate[],
  planned: number,
  results: number,
): PlannedQuery[] {
  if (planned >= state.queriesLeft) return [];
  const read = state.rounds.flat().flatMap((searched) => searched.documents.map((d) => nameKey(d.title)));
  for (const { prefix, stems } of compositeNames(state.analysis)) {
    const countries = stems.some((stem) => COUNTRY_WORDS.has(stem));
    const vocabulary = relationVocabulary(stems);
    const resolves = (lead: Lead) =>
      countries
        ? isCountry(lead.name)
        : meaningStems(lead.sentence.replaceAll(lead.name, ' ')).some((stem) =>
            matchesVocabulary(stem, vocabulary),
          );
    const candidate = chosen.find(
      ({ lead }) =>
        lead.related &&
        resolves(lead) &&
        !state.searched(`${prefix} ${lead.name}`) &&
        !read.includes(nameKey(`${prefix} ${lead.name}`)),
    );
    if (!candidate) continue;
    const { lead, from } = candidate;
    const query = `${prefix} ${lead.name}`;
    return [
      {
        query,
        thread: from.planned.thread,
        kind: 'lead',
        focus: [query],
        results,
        ...(from.planned.origin === undefined ? {} : { origin: from.planned.origin }),
      },
    ];
  }
  return [];
}

/** Whether `name` is a country's own name ("Austria"), not a longer name holding one ("Austrian Airlines"). */
function isCountry(name: string): boolean {
  const [country] = countriesIn(name);
  return country !== undefined && nameKey(country) === nameKey(name);
}

/** What the leads of a lead's search that did not read the lead's own page count, against the others'. */
const UNHELD_WEIGHT = 0.5;

/** What a first-round lead that nothing ties to the question (no relation word, no "by") counts. */
const UNRELATED_LEAD_WEIGHT = 0.5;

/** A lead that may be followed, the query whose pages gave it, and how the beam ranks it. */
interface Candidate {
  readonly lead: Lead;
  readonly from: SearchedQuery;
  /**
   * For the beam: the lead's score as a share of the best lead of the same query's pages (so that one long
   * page about a name, naming many things many times, does not crowd out the leads of another name's
   * search), weighed by where it came from; for a query's first lead, its score.
   */
  readonly rank: number;
}

/** The next round: the best leads of the latest round's queries (a beam of `leadsPerRound`). */
function nextFromLeads(state: ResearchState, leadResults: number, leadsPerRound: number): ResearchPlan {
  const latest = state.rounds.at(-1) ?? [];
  const { analysis } = state;
  if (covered(state)) return { queries: [], found: [], planner: 'rules', stop: 'covered' };
  const vocabulary = relationVocabulary(analysis.relations);
  const comparison = analysis.sides.length > 0;
  const common = commonNames(state);
  const containers = analysis.relations.some((stem) => CONTAINER_WORDS.has(stem));
  const commonWords = new Set(analysis.question.match(/\b\p{Ll}[\p{L}'’-]*/gu) ?? []);
  // Each query's leads; the best lead of each query that searched a name (or a side) goes first, then the
  // beam takes the best of the rest, each ranked against its own query's best lead.
  const candidates: Candidate[] = [];
  const firsts: Candidate[] = [];
  for (const searched of latest) {
    // In a comparison, the question's own results belong to no side: each side follows its own pages.
    if (comparison && searched.planned.kind === 'question') continue;
    const leads = findLeads(sourcesOf(searched), {
      focus: searched.planned.focus,
      vocabulary,
      known: state.known,
      common,
      containers,
      commonWords,
    });
    const top = leads[0]?.score ?? 0;
    // A lead's search that did not read the lead's own page has lost its subject: its leads may be
    // followed, at half their score, but none goes first.
    const held = !searched.planned.lead || readLeadPage(searched);
    for (const lead of leads) {
      if (lead.score < top * MIN_LEAD_SHARE) break;
      // Past the first round, only leads tied to the question by a relation are followed: the others
      // (a name that merely stands near the subject) would spend queries without reaching evidence.
      if (state.rounds.length > 1 && !lead.related) continue;
      const weight =
        (held ? 1 : UNHELD_WEIGHT) *
        (searched.planned.kind === 'question' ? QUESTION_LEAD_WEIGHT : 1) *
        (lead.related ? 1 : UNRELATED_LEAD_WEIGHT);
      candidates.push({ lead, from: searched, rank: (lead.score / top) * weight });
    }
    const best = leads[0];
    if (best && held && searched.planned.kind !== 'question' && (state.rounds.length === 1 || best.related))
      firsts.push({ lead: best, from: searched, rank: best.score });
  }
  // Between leads ranked alike, one read on a page about a name of the question comes first.
  const questionKeys = analysis.entities.map(nameKey);
  const onQuestionPage = (c: Candidate) => (questionKeys.some((key) => titledBy(c.lead.title, key)) ? 1 : 0);
  candidates.sort((a, b) => b.rank - a.rank || onQuestionPage(b) - onQuestionPage(a));
  firsts.sort((a, b) => b.rank - a.rank);
  const chosen: typeof candidates = [];
  const taken = new Set<string>();
  const choose = (candidate: (typeof candidates)[number]) => {
    const key = nameKey(candidate.lead.name);
    if (chosen.length >= leadsPerRound || taken.has(key) || state.searched(candidate.lead.name)) return;
    taken.add(key);
    chosen.push(candidate);
  };
  for (const candidate of firsts) choose(candidate);
  for (const candidate of candidates) choose(candidate);
  const queries: PlannedQuery[] = chosen.map(({ lead, from }) => {
    const source = from.documents.find((d) => d.url === lead.url);
    const bridges = [
      ...(from.planned.bridges ?? []),
      { text: lead.quote ?? lead.sentence, url: lead.url, title: lead.title, lead: lead.name },
    ];
    return {
      ...leadQuery(
        lead,
        state,
        source?.text ?? lead.sentence,
        bridges,
        from.planned.origin,
        from.planned.asked ?? [],
      ),
      bridges,
      ...(from.planned.origin === undefined ? {} : { origin: from.planned.origin }),
      thread: from.planned.thread,
      kind: 'lead',
      focus: [lead.name],
      results: leadResults,
      lead,
    };
  });
  queries.push(...compositeQueries(state, chosen, queries.length, leadResults));
  const found = chosen.map(
    ({ lead }) => `${lead.name} (${lead.column ? `${lead.column}, ` : ''}in ${lead.title})`,
  );
  const read = chainAlreadyRead(state, queries);
  if (read) return { queries: [], found, planner: 'rules', stop: 'covered', resolved: [read] };
  const allowed = queries.filter((q) => !state.searched(q.query)).slice(0, Math.max(0, state.queriesLeft));
  if (allowed.length === 0)
    return { queries: [], found, planner: 'rules', stop: queries.length > 0 ? 'query_limit' : 'no_leads' };
  return { queries: allowed, found, planner: 'rules' };
}
