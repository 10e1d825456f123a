/**
 * The job queue is generic, as BullMQ's `Queue<DataType, ResultType>`: a queue made for one kind of job
 * hands back records of that input and result (checked by the type checker: `npm run typecheck`), on every
 * backend, and knows nothing of research. The research jobs' queue is one such queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { ResearchJobResult } from '../../src/contract/research.ts';
import type { ResearchJobInput, ResearchJobQueue } from '../../src/jobs/records.ts';
import type { JobQueue, JobRecord } from '../../src/stores/job-queue.ts';
import { createMemoryJobQueue } from '../../src/stores/memory/job-queue.ts';
import { createSqliteJobQueue } from '../../src/stores/sqlite/job-queue.ts';

/** A kind of job that is not research: resizing an image. */
interface Resize {
  readonly url: string;
  readonly width: number;
}
interface Resized {
  readonly bytes: number;
}

const dirs: string[] = [];
const queues: JobQueue<Resize, Resized>[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close?.();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const BACKENDS: Record<string, () => JobQueue<Resize, Resized>> = {
  memory: () => createMemoryJobQueue<Resize, Resized>(),
  sqlite: () => {
    const dir = mkdtempSync(join(tmpdir(), 'citewise-typed-queue-'));
    dirs.push(dir);
    return createSqliteJobQueue<Resize, Resized>({ path: join(dir, 'jobs.db') });
  },
};

describe('a typed job queue', () => {
  for (const [name, open] of Object.entries(BACKENDS)) {
    it(`keeps a job of another kind, its input and result as given (${name})`, async () => {
      const queue = open();
      queues.push(queue);
      const { job } = await queue.enqueue({
        id: 'job_1',
        account: 'acct',
        input: { url: 'https://example.com/a.png', width: 320 },
      });
      expectTypeOf(job.input).toEqualTypeOf<Resize>();
      const claimed = await queue.claim({ workerId: 'w', leaseMs: 60_000 });
      expect(claimed?.job.input.width).toBe(320);
      const done = await queue.complete(claimed!.lease, { result: { bytes: 2_048 }, creditsUsed: 0 });
      expectTypeOf(done).toEqualTypeOf<JobRecord<Resize, Resized> | null>();
      const read = await queue.get('job_1');
      expectTypeOf(read!.result).toEqualTypeOf<Resized | null>();
      expect(read).toMatchObject({ status: 'completed', input: { width: 320 }, result: { bytes: 2_048 } });
    });
  }

  it('types the research jobs’ queue with their input and result', () => {
    expectTypeOf<ResearchJobQueue>().toEqualTypeOf<JobQueue<ResearchJobInput, ResearchJobResult>>();
    // A queue of one kind of job is not a queue of another.
    expectTypeOf<JobQueue<Resize, Resized>>().not.toMatchTypeOf<ResearchJobQueue>();
  });
});
