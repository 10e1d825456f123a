/**
 * Research jobs: the {@link JobQueue} interface with its in-process implementation, the options and wire
 * types of `engine.research` and `/v1/research`. The SQLite, Redis (BullMQ) and PostgreSQL (pg-boss) queues
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
  type ResearchJob,
  type ResearchRequest,
  type ResearchJobResult,
} from './request.ts';
export type { ResearchEvent, ResearchJobList, ResearchListQuery } from './research-jobs.ts';
export type { ResearchOutcome, ResearchRunContext, ResearchRunner } from './runner.ts';
export type { ResearchCallOptions, ResearchJobsApi } from './engine.ts';
