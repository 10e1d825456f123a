/**
 * The research loop: search → read → plan, round after round, until the planner finds nothing more to
 * follow or a budget (rounds, queries, pages, time) ends; then the evidence of every round is selected
 * under one token budget ({@link selectEvidence}). It runs on the pipeline's own stages: the same search
 * provider, page fetcher (SSRF guard, robots.txt, limits), extractor and ranker as any search. No query is
 * searched twice and no page read twice in one research search.
 */
import { createPageReader, type PageRead } from '../read.ts';
import type {
  AnswerVerdict,
  CallOptions,
  ChainSentence,
  ExtractedContent,
  Passage,
  SearchHit,
  SearchProvider,
} from '../types.ts';
import type { PipelineStages } from '../run.ts';
import { applyDomainFilters } from '../search/filters.ts';
import type { SearchFilters } from '../types.ts';
import { nameKey, titledBy } from './leads.ts';
import { chainSentences, documentsOf, readLeadPage } from './chain.ts';
import { sideSentences } from './comparison.ts';
import { foundNothing, partSentences, questionParts } from './coverage.ts';
import { analyzeQuestion, type QuestionAnalysis } from './question.ts';
import { selectEvidence } from './select.ts';
import { resolveResearchSettings } from './settings.ts';
import {
  type PlannedQuery,
  type ResearchPlan,
  type ResearchPlanner,
  type ResearchSettings,
  type ResearchState,
  type ResearchStep,
  type ResearchStopReason,
  type SearchedQuery,
} from './types.ts';

/** Results asked for when searching a name, among which the page titled by it is read first. */
const NAME_SEARCH_RESULTS = 10;

/** Everything one research search needs. */
export interface ResearchRun {
  /** The standalone question (the planned query of the prompt and its conversation). */
  readonly question: string;
  readonly filters: SearchFilters;
  readonly stages: Pick<PipelineStages, 'search' | 'fetcher' | 'extractor' | 'ranker'>;
  readonly planner: ResearchPlanner;
  /** Its budgets: resolved here when partial (a library call); the pipeline passes them resolved. */
  readonly settings: ResearchSettings;
  /** Time allowed to fetch and extract one page, in ms. */
  readonly pageTimeoutMs: number;
  /** Most time stragglers of a round are waited for once most of its pages arrived, in ms. */
  readonly stragglerGraceMs: number;
  /** Epoch ms by which research stops and the answer starts. */
  readonly answerBy: number;
  readonly call: CallOptions & { readonly deadline: number };
  /** Sees each step as it ends (the stream emits it). */
  readonly onStep?: (step: ResearchStep) => void;
}

/** What a research search gathered. */
export interface ResearchResult {
  readonly analysis: QuestionAnalysis;
  /** The evidence selected for the answerer, in order. */
  readonly passages: readonly Passage[];
  /** Every document read. */
  readonly documents: readonly ExtractedContent[];
  readonly steps: readonly ResearchStep[];
  /** Search queries sent. */
  readonly queries: number;
  /** Pages read (fetched and extracted, or taken from the provider). */
  readonly pages: number;
  /**
   * The leads whose own page was read (the links of the chains followed), in the order they were found:
   * what the answer is about besides the question's own names.
   */
  readonly followed: readonly string[];
  /** The chain the answer names: its end first, then its bridges (see chain.ts); empty when none. */
  readonly chain: readonly ChainSentence[];
  /** A comparison's verdict when its sides' ends decide it (see verdict.ts). */
  readonly verdict?: AnswerVerdict;
}

/** Runs the research loop. Throws only when the request is aborted or the search provider fails at once. */
export async function runResearch(run: ResearchRun): Promise<ResearchResult> {
  const { call, stages } = run;
  const {
    maxHops,
    maxQueries,
    maxPages,
    maxPassageTokens: maxTokens,
  } = resolveResearchSettings(run.settings);
  const analysis = analyzeQuestion(run.question);

  const searchedKeys = new Set<string>();
  const knownKeys = new Set([...analysis.entities, ...analysis.sides].map(nameKey));
  const reads = new Map<string, PageRead>();
  const rounds: SearchedQuery[][] = [];
  const steps: ResearchStep[] = [];
  const reader = createPageReader({
    fetcher: stages.fetcher,
    extractor: stages.extractor,
    pageTimeoutMs: run.pageTimeoutMs,
    stragglerGraceMs: run.stragglerGraceMs,
    answerBy: run.answerBy,
    call,
  });
  const state = (): ResearchState => ({
    analysis,
    rounds,
    searched: (query) => searchedKeys.has(queryKey(query)),
    known: (name) => knownKeys.has(nameKey(name)),
    queriesLeft: maxQueries - searchedKeys.size,
  });

  try {
    let plan: ResearchPlan = await run.planner.first(analysis, call.signal);
    for (let hop = 1; ; hop++) {
      const queries = plan.queries
        .filter(
          (q, i, all) =>
            !searchedKeys.has(queryKey(q.query)) &&
            all.findIndex((o) => queryKey(o.query) === queryKey(q.query)) === i,
        )
        .slice(0, maxQueries - searchedKeys.size);
      for (const q of queries) searchedKeys.add(queryKey(q.query));
      const results = await Promise.all(queries.map((q) => searchOne(stages.search, q, run.filters, call)));
      // Read each query's top results; a page another query (or round) already read is reused.
      const fresh: SearchHit[] = [];
      const round: { planned: PlannedQuery; urls: string[]; hits: SearchHit[] }[] = results.map((hits, i) => {
        const planned = queries[i]!;
        const urls: string[] = [];
        for (const hit of titleMatchesFirst(hits, planned)) {
          if (urls.length >= planned.results) break;
          if (!reads.has(hit.url)) {
            if (reads.size + fresh.length >= maxPages) continue;
            if (!fresh.some((h) => h.url === hit.url)) fresh.push(hit);
          }
          urls.push(hit.url);
        }
        return { planned, urls, hits };
      });
      for (const read of reader.read(fresh)) reads.set(read.hit.url, read);
      await reader.settle(fresh.map((hit) => reads.get(hit.url)!));
      call.signal.throwIfAborted();
      const searched: SearchedQuery[] = round.map(({ planned, urls, hits }) => ({
        planned,
        hits,
        documents: urls.flatMap((url) => reads.get(url)?.document ?? []),
      }));
      rounds.push(searched);
      for (const q of queries) knownKeys.add(nameKey(q.lead?.name ?? q.query));

      let stopped: ResearchStopReason | undefined;
      // Research that found nothing of the question in its first round would only wander: it stops there,
      // charged for the queries it sent before it knew.
      if (hop === 1 && foundNothing(analysis, questionParts(analysis), documentsOf(searched)))
        stopped = 'nothing_found';
      else if (Date.now() >= run.answerBy) stopped = 'time_limit';
      else if (hop >= maxHops) stopped = 'hop_limit';
      else if (reads.size >= maxPages) stopped = 'page_limit';
      else if (searchedKeys.size >= maxQueries) stopped = 'query_limit';
      const next: ResearchPlan | undefined = stopped
        ? undefined
        : await run.planner.next(state(), call.signal);
      // A plan of queries already searched has nothing new: research stops there.
      // A chain completed by pages already read joins this round as if searched (it sent no query).
      searched.push(...(next?.resolved ?? []));
      const unseen = next?.queries.filter((q) => !searchedKeys.has(queryKey(q.query))) ?? [];
      if (next && unseen.length === 0) stopped = next.stop ?? 'no_leads';
      const step: ResearchStep = {
        hop,
        planner: plan.planner,
        ...(plan.fallback ? { fallback: plan.fallback } : {}),
        queries: queries.map((q) => q.query),
        pages: fresh.map((hit) => hit.url),
        found: next?.found ?? [],
        ...(stopped ? { stopped } : {}),
      };
      steps.push(step);
      run.onStep?.(step);
      if (stopped || !next) break;
      plan = next;
    }
  } finally {
    reader.stop();
  }
  call.signal.throwIfAborted();
  const { passages, documents } = await selectEvidence(analysis.question, rounds, stages.ranker, maxTokens);
  return {
    analysis,
    passages,
    documents,
    steps,
    queries: searchedKeys.size,
    pages: reads.size,
    followed: followedLeads(rounds),
    ...answerChain(analysis, rounds, documents),
  };
}

/**
 * The hits of a search for a name with the pages titled by that name first (the page about "Seattle"
 * before pages that mention Seattle more often), in search order otherwise.
 */
function titleMatchesFirst(hits: readonly SearchHit[], planned: PlannedQuery): SearchHit[] {
  if (planned.kind === 'question') return [...hits];
  const names = planned.focus.map(nameKey).filter(Boolean);
  const titled = (hit: SearchHit) => names.some((name) => titledBy(hit.title, name));
  const whole = (hit: SearchHit) => {
    const text = ` ${nameKey(`${hit.title} ${hit.snippet ?? ''}`)} `;
    return names.some((name) => name.includes(' ') && text.includes(` ${name} `));
  };
  const rank = (hit: SearchHit) => (titled(hit) ? 0 : whole(hit) ? 1 : 2);
  return hits
    .map((hit, i) => ({ hit, i, r: rank(hit) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.hit);
}

/** The names of the leads searched whose own page (titled by the name) was among what was read. */
function followedLeads(rounds: readonly (readonly SearchedQuery[])[]): string[] {
  const names: string[] = [];
  for (const searched of rounds.flat()) if (readLeadPage(searched)) names.push(searched.planned.lead!.name);
  return [...new Set(names)];
}

/**
 * The sentences the answer opens with: each side's end and bridge for a comparison, the end of the chain
 * followed and its bridges, or, for a question that one sentence per part answers, those sentences.
 */
function answerChain(
  analysis: QuestionAnalysis,
  rounds: readonly (readonly SearchedQuery[])[],
  documents: readonly ExtractedContent[],
): { chain: ChainSentence[]; verdict?: AnswerVerdict } {
  if (analysis.sides.length > 0) {
    const sides = sideSentences(analysis, rounds);
    if (sides.sentences.length > 0)
      return { chain: sides.sentences, ...(sides.verdict ? { verdict: sides.verdict } : {}) };
  } else {
    const chain = chainSentences(analysis, rounds);
    if (chain.length > 0) return { chain };
  }
  return { chain: partSentences(analysis.question, questionParts(analysis), documents) };
}

/** How queries are compared: lower-case, single spaces. */
function queryKey(query: string): string {
  return query.toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** One query's results (filtered by domain even when the provider cannot filter); none when it fails. */
async function searchOne(
  provider: SearchProvider,
  planned: PlannedQuery,
  filters: SearchFilters,
  call: CallOptions,
): Promise<SearchHit[]> {
  const withFilters = Object.keys(filters).length ? { filters } : {};
  try {
    // A search for a name looks further down the list for the page titled by it.
    const limit =
      planned.kind === 'question' ? planned.results + 3 : Math.max(planned.results + 3, NAME_SEARCH_RESULTS);
    const hits = await provider.search({ query: planned.query, limit, ...withFilters }, call);
    return applyDomainFilters(hits, filters);
  } catch (error) {
    call.signal?.throwIfAborted();
    if (planned.kind === 'question') throw error;
    // A follow-up search that fails costs its lead, not the research.
    return [];
  }
}
