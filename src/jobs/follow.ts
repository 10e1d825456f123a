/**
 * Following a job's events: read from the queue after a position, then wait until the job may have new ones
 * (a worker of this process wrote one and said so with `notify`, or `eventPollMs` passed, for the workers of
 * other processes), until the terminal event.
 */
import { EventEmitter } from 'node:events';
import { MAX_EVENTS_READ } from '../stores/job-queue-common.ts';
import type { ResearchEvent } from '../contract/research.ts';
import { viewOf, type ResearchJobQueue, type ResearchJobRecord } from './records.ts';
import { isTerminal, type JobStatus } from '../stores/job-queue.ts';

/** What {@link createJobFollower} works with. */
export interface JobFollowerDeps {
  readonly queue: ResearchJobQueue;
  /** The longest wait for new events of a job no worker of this process runs. */
  readonly eventPollMs: number;
  /** Aborted when the service closes: every follow ends. */
  readonly closing: AbortSignal;
}

/** Follows the events of jobs. */
export interface JobFollower {
  /** Says the job has new events (or a new status): its followers read now. */
  readonly notify: (id: string) => void;
  /** The job's events after `after`, ending after the terminal one (or when `signal` or closing aborts). */
  readonly follow: (
    job: ResearchJobRecord,
    after: number,
    signal?: AbortSignal,
  ) => AsyncGenerator<ResearchEvent>;
}

/** Creates the event follower of the research service. */
export function createJobFollower(deps: JobFollowerDeps): JobFollower {
  const { queue, closing } = deps;
  const changes = new EventEmitter();
  changes.setMaxListeners(0);

  /** Waits until the job may have new events: one was written here, or `eventPollMs` passed. */
  function changed(id: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        changes.off(id, done);
        signal?.removeEventListener('abort', done);
        closing.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, deps.eventPollMs);
      changes.on(id, done);
      signal?.addEventListener('abort', done, { once: true });
      closing.addEventListener('abort', done, { once: true });
    });
  }

  async function* follow(
    job: ResearchJobRecord,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<ResearchEvent> {
    let last = after;
    while (!signal?.aborted && !closing.aborted) {
      const batch = await queue.events(job.id, { after: last });
      for (const event of batch) {
        last = event.id;
        if (isTerminal(event.type as JobStatus)) {
          yield { id: event.id, event: event.type, data: viewOf((await queue.get(job.id)) ?? job) };
          return;
        }
        yield { id: event.id, event: event.type, data: event.data };
      }
      if (batch.length === MAX_EVENTS_READ) continue;
      // Nothing new: a job that ended before `after` has nothing more to say.
      if (batch.length === 0 && isTerminal((await queue.get(job.id))?.status ?? 'cancelled')) return;
      await changed(job.id, signal);
    }
  }

  return {
    notify(id) {
      changes.emit(id);
    },
    follow,
  };
}
