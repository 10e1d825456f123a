/**
 * The job workers' fair share: by default the jobs of one account hold at most half of a process's workers
 * (at least 1), so with the default 2 workers an account whose jobs hang (a provider that never answers)
 * leaves one worker for the others: another account's job runs and finishes at once. Over HTTP (node:http
 * adapter, real sockets).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { defaultMaxRunningPerAccount, JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { researchClient, type JobBody } from './support.ts';

const running: { engine: SearchEngine; server: RunningServer }[] = [];
afterEach(async () => {
  for (const { engine, server } of running.splice(0)) {
    await server.close();
    await engine.close();
  }
});

describe('job workers: one account holds at most half of them', { timeout: 60_000 }, () => {
  it('half of the workers, rounded down, at least 1', () => {
    expect(JOBS_DEFAULTS.workers).toBe(2);
    expect([1, 2, 3, 4, 8].map(defaultMaxRunningPerAccount)).toEqual([1, 1, 1, 2, 4]);
  });

  it("with the default 2 workers, an account's two hanging jobs leave a worker for another account's job", async () => {
    let hanging = 0;
    const engine = createSearchEngine({
      rateLimiter: false,
      jobs: {
        // The default number of workers and the default share: nothing about fairness is configured.
        run: async (request, { signal }) => {
          if (request.prompt.startsWith('hang')) {
            hanging++;
            await new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
            );
          }
          return { result: { answer: `Answered: ${request.prompt}.`, sources: [] }, creditsUsed: 0 };
        },
      },
    });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    const a = researchClient(server.baseUrl, (await engine.createKey({ credits: 100 })).key);
    const b = researchClient(server.baseUrl, (await engine.createKey({ credits: 100 })).key);

    const jobsOfA: JobBody[] = [];
    for (const prompt of ['hang one', 'hang two']) {
      const response = await a.create({ prompt });
      expect(response.status).toBe(202);
      jobsOfA.push((await response.json()) as JobBody);
    }
    await expect.poll(() => hanging, { timeout: 10_000 }).toBe(1);

    const started = performance.now();
    const created = (await (await b.create({ prompt: 'What time is it?' })).json()) as JobBody;
    const events = await b.allEvents(created.id);
    expect(events.at(-1)).toMatchObject({ event: 'completed', data: { status: 'completed' } });
    // Well under a worker's poll interval plus the run: B did not wait for one of A's jobs to end.
    expect(performance.now() - started).toBeLessThan(5_000);

    // A's second job still waits: A holds one of the two workers, not both.
    const statuses = await Promise.all(
      jobsOfA.map(async (job) => ((await (await a.get(job.id)).json()) as JobBody).status),
    );
    expect(statuses.sort()).toEqual(['queued', 'running']);
    expect(hanging).toBe(1);
  });
});
