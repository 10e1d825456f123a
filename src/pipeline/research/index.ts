/** The research depth: a loop of search → read → plan over the pipeline's stages (see loop.ts). */
export { runResearch } from './loop.ts';
export type { ResearchRun, ResearchResult } from './loop.ts';
export { createRulesPlanner } from './rules-planner.ts';
export { createModelResearchPlanner, MODEL_PLANNER_DEFAULTS } from './model-planner.ts';
export type { ModelResearchPlannerOptions } from './model-planner.ts';
export { analyzeQuestion } from './question.ts';
export type { QuestionAnalysis } from './question.ts';
export { findLeads } from './leads.ts';
export type { Lead, LeadSource, LeadQuery } from './leads.ts';
export { RESEARCH_DEFAULTS } from './types.ts';
export type {
  PlannedQuery,
  ResearchPlan,
  ResearchPlanner,
  ResearchSettings,
  ResearchState,
  ResearchStep,
  ResearchStopReason,
  SearchedQuery,
} from './types.ts';
