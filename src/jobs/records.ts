/**
 * What a research job is on the generic {@link JobQueue}: its input (the validated request and what it was
 * created with) and its result, the queue typed with them, and the job as `GET /v1/research/{id}` shows it.
 */
import type { ParsedResearchRequest, ResearchJob, ResearchJobResult } from '../contract/research.ts';
import type { ClaimedJob, JobEvent, JobQueue, JobRecord } from '../stores/job-queue.ts';

/** What a job stores as its input: the request, and what it was created with. */
export interface ResearchJobInput {
  readonly request: ParsedResearchRequest;
  /** Credits held for the job: the most its run may be charged. */
  readonly reserved: number;
  /** The job's time limit, in ms. */
  readonly timeLimitMs: number;
}

/** The queue of research jobs: a {@link JobQueue} of their input and result. */
export type ResearchJobQueue = JobQueue<ResearchJobInput, ResearchJobResult>;
/** A stored research job. */
export type ResearchJobRecord = JobRecord<ResearchJobInput, ResearchJobResult>;
/** A research job a worker claimed. */
export type ClaimedResearchJob = ClaimedJob<ResearchJobInput, ResearchJobResult>;

const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

/** The public view of a job; `steps` of a running job come from its events (see {@link stepsOf}). */
export function viewOf(job: ResearchJobRecord, steps?: readonly unknown[]): ResearchJob {
  const request = job.input.request;
  const result = job.status === 'completed' ? job.result : null;
  const shownSteps = result?.steps ?? steps;
  const view: Record<string, unknown> = {
    id: job.id,
    status: job.status,
    prompt: request.prompt,
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    completed_at: iso(job.completedAt),
    answer: result?.answer,
    response_type: request.output_schema ? 'json' : (request.response_type ?? 'markdown'),
    sources: result?.sources,
    citations: result?.citations,
    grounding: result?.grounding,
    steps: shownSteps && shownSteps.length > 0 ? shownSteps : undefined,
    output: result?.output,
    credits_used: job.creditsUsed,
    error: job.error ? { description: job.error.description } : undefined,
    metadata: request.metadata,
  };
  for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
  return view as unknown as ResearchJob;
}

/** The steps of a job's latest run, from its event log. */
export function stepsOf(events: readonly JobEvent[]): unknown[] {
  const lastRun = events.findLastIndex(
    (event) => event.type === 'status' && (event.data as { status?: string }).status === 'running',
  );
  return events
    .slice(lastRun + 1)
    .filter((event) => event.type === 'step')
    .map((event) => event.data);
}
