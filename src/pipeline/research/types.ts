/**
 * Types and defaults of the research depth: its settings (one table, {@link RESEARCH_DEFAULTS}), the plan a
 * planner proposes, and the steps a research search reports.
 */
import type { ChainSentence, ExtractedContent, SearchHit } from '../types.ts';
import type { Lead } from './leads.ts';
import type { QuestionAnalysis } from './question.ts';

/** Defaults of {@link ResearchSettings}. */
export const RESEARCH_DEFAULTS = {
  /** Most rounds of search → read → plan, the first included. */
  maxHops: 5,
  /** Most search queries in one research search. */
  maxQueries: 12,
  /** Most pages read (fetched and extracted, or taken from the provider) in one research search. */
  maxPages: 60,
  /**
   * Results read for the question's own query: a search engine's whole first page (SearXNG and most web
   * search APIs give 10). Reading them costs no query; the last two of ten held evidence that no lead reached.
   */
  questionResults: 10,
  /** Results read for each side of a comparison and each name the question gives. */
  entityResults: 3,
  /** Results read for each lead followed. */
  leadResults: 4,
  /**
   * Leads followed per round (each side of a comparison gets its best one first); the query budget
   * (`maxQueries`) still bounds them.
   */
  leadsPerRound: 5,
  /** Token budget of the passages handed to the answerer, shared by every hop's evidence. */
  maxPassageTokens: 12_000,
  /** Time after the request arrived by which research stops and the answer is written, in ms. */
  maxLatencyMs: 20_000,
  /** Credits charged per search query a research search sends (the first included). */
  creditsPerQuery: 1,
} as const;

/** Tuning of the research loop; every field has its default in {@link RESEARCH_DEFAULTS}. */
export interface ResearchSettings {
  /** @default RESEARCH_DEFAULTS.maxHops (5) */
  readonly maxHops?: number;
  /** @default RESEARCH_DEFAULTS.maxQueries (12) */
  readonly maxQueries?: number;
  /** @default RESEARCH_DEFAULTS.maxPages (60) */
  readonly maxPages?: number;
  /** @default RESEARCH_DEFAULTS.questionResults (10) */
  readonly questionResults?: number;
  /** @default RESEARCH_DEFAULTS.entityResults (3) */
  readonly entityResults?: number;
  /** @default RESEARCH_DEFAULTS.leadResults (4) */
  readonly leadResults?: number;
  /** @default RESEARCH_DEFAULTS.leadsPerRound (5) */
  readonly leadsPerRound?: number;
  /** @default RESEARCH_DEFAULTS.maxPassageTokens (12000) */
  readonly maxPassageTokens?: number;
}

/** Why a research search stopped looking. */
export type ResearchStopReason =
  'covered' | 'nothing_found' | 'no_leads' | 'hop_limit' | 'query_limit' | 'page_limit' | 'time_limit';

/** One round of a research search, as reported in the response (`include: ["steps"]`) and streamed. */
export interface ResearchStep {
  /** 1-based. */
  readonly hop: number;
  /** Who chose this round's queries: the model, or the rules (the model-free planner). */
  readonly planner: 'model' | 'rules';
  /** Set when a model plan was refused and the rules planned instead: why (malformed, empty, repeated, failed). */
  readonly fallback?: string;
  /** The queries searched. */
  readonly queries: readonly string[];
  /** URLs read in this round (never read again later). */
  readonly pages: readonly string[];
  /** What the round found that the next one follows: named things and where they were read. */
  readonly found: readonly string[];
  /** Set on the last round: why the research stopped. */
  readonly stopped?: ResearchStopReason;
}

/** A query the loop is asked to search. */
export interface PlannedQuery {
  readonly query: string;
  /** Line of research it belongs to (a side of a comparison; 0 for a question about one thing). */
  readonly thread: number;
  readonly kind: 'question' | 'entity' | 'side' | 'lead';
  /** What the query follows: its documents' leads count more where they speak of these. */
  readonly focus: readonly string[];
  /** Results of the search read. */
  readonly results: number;
  /** The lead it follows. */
  readonly lead?: Lead;
  /** The relation words the query adds to its lead's name (the next hop asked of it). */
  readonly hop?: readonly string[];
  /** The hops asked along its chain so far, this query's last: each is resolved by the lead it found. */
  readonly asked?: readonly (readonly string[])[];
  /** The question's name the line of research started from (a searched name, or a side). */
  readonly origin?: string;
  /** The sentences that led to it from the question's names, first hop first (empty in the first round). */
  readonly bridges?: readonly (ChainSentence & {
    readonly title: string;
    /** The lead the sentence named (the next link's name). */
    readonly lead?: string;
  })[];
}

/** A query searched and what was read of it. */
export interface SearchedQuery {
  readonly planned: PlannedQuery;
  readonly hits: readonly SearchHit[];
  /** The documents of the results read (extracted pages, or snippets when a page could not be read). */
  readonly documents: readonly ExtractedContent[];
}

/** What the planner sees. */
export interface ResearchState {
  readonly analysis: QuestionAnalysis;
  /** Every round so far, the latest last. */
  readonly rounds: readonly (readonly SearchedQuery[])[];
  /** True for a query already searched (compared case- and space-insensitively). */
  readonly searched: (query: string) => boolean;
  /** True for a named thing already known: in the question, searched, or the title of a page read. */
  readonly known: (name: string) => boolean;
  /** Queries still allowed. */
  readonly queriesLeft: number;
}

/** A planner's proposal for the next round. */
export interface ResearchPlan {
  readonly queries: readonly PlannedQuery[];
  /** What was found that these queries follow (for the step). */
  readonly found: readonly string[];
  /** Why there is nothing more to search, when `queries` is empty. */
  readonly stop?: ResearchStopReason;
  /**
   * Chains completed by pages already read (a lead whose own page an earlier query read): kept with the
   * latest round as if searched, for the evidence and the chain the answer names, at no cost.
   */
  readonly resolved?: readonly SearchedQuery[];
  readonly planner: 'model' | 'rules';
  readonly fallback?: string;
}

/** Proposes the queries of each round. */
export interface ResearchPlanner {
  /** The queries of the first round. */
  first(analysis: QuestionAnalysis, signal: AbortSignal): Promise<ResearchPlan>;
  /** The queries of the next round, from what the rounds so far read. */
  next(state: ResearchState, signal: AbortSignal): Promise<ResearchPlan>;
}
