/**
 * Research jobs: the generic {@link JobQueue} interface with its in-process implementation, the research
 * jobs' queue type, the options and wire types of `engine.research` and `/v1/research`. The SQLite, Redis (BullMQ) and PostgreSQL (pg-boss) queues
 * are in `citewise/sqlite`, `citewise/redis` and `citewise/postgres`; the conformance suite is
 * `describeJobQueue` in `citewise/testing`.
 */
export { createMemoryJobQueue, type MemoryJobQueueOptions } from '../stores/memory/job-queue.ts';
export {
  isTerminal,
  JobQueueFullError,
  TERMINAL_STATUSES,
  type ClaimedJob,
  type ClaimOptions,
  type EnqueueJobInput,
  type HeartbeatResult,
  type JobError,
  type JobEvent,
  type JobLease,
  type JobPage,
  type JobQueue,
  type JobRecord,
  type JobStatus,
  type ListJobsOptions,
} from '../stores/job-queue.ts';
export { JOBS_DEFAULTS, type ResearchJobsOptions } from './options.ts';
export {
  parseResearchRequest,
  researchRequestSchema,
  type ParsedResearchRequest,
  type ResearchEvent,
  type ResearchJob,
  type ResearchJobList,
  type ResearchListQuery,
  type ResearchRequest,
  type ResearchJobResult,
} from '../contract/research.ts';
export type { ResearchJobInput, ResearchJobQueue, ResearchJobRecord } from './records.ts';
export type { ResearchOutcome, ResearchRunContext, ResearchRunner } from './runner.ts';
export type { ResearchCallOptions, ResearchJobsApi } from './engine.ts';
