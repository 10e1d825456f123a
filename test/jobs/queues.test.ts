/** The job queue conformance suite on the in-process and SQLite queues. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createMemoryJobQueue } from '../../src/stores/memory/job-queue.ts';
import { createSqliteJobQueue } from '../../src/stores/sqlite/job-queue.ts';
import type { JobQueue } from '../../src/stores/job-queue.ts';
import { describeJobQueue } from '../../src/testing/index.ts';

const memory = new Map<string, JobQueue>();
describeJobQueue('memory', (scope) => {
  let queue = memory.get(scope);
  if (!queue) memory.set(scope, (queue = createMemoryJobQueue()));
  // Every handle of a scope is the same queue; closing one must not close the others.
  return { ...queue, close: async () => {} };
});

const dir = mkdtempSync(join(tmpdir(), 'citewise-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
describeJobQueue('sqlite', (scope) => createSqliteJobQueue({ path: join(dir, `${scope}.db`) }));
