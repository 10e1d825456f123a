/**
 * The sweep that finalizes jobs a dead worker left: it waits out the time a finalization may take, which
 * depends on the webhook deliveries the engine was configured with (`jobs.webhookAttempts`), not their default.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import type { ResearchJobQueue } from '../../src/jobs/records.ts';
import { createMemoryJobQueue } from '../../src/stores/memory/job-queue.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;

const engines: SearchEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

describe('finalizing a job its worker left', () => {
  it('refunds a job that ended 100 s ago when one webhook delivery is configured (grace 70 s, not 461 s)', async () => {
    const credits = createMemoryCreditStore();
    // The queue's clock runs 100 s behind: a job it ends now ended 100 s ago for the engine.
    const queue: ResearchJobQueue = createMemoryJobQueue({ now: () => Date.now() - 100_000 });
    const first = createSearchEngine({ corpus: [CORPUS], credits, jobs: { queue, workers: 0 } });
    engines.push(first);
    const { key, record } = await first.createKey({ credits: 100 });
    await first.research.create({ prompt: 'What is green tea?' }, { apiKey: key });
    const held = await credits.balance(record.accountId);
    expect(held).toBeLessThan(100);

    // A worker claims the job and dies after it ended, before finalizing it.
    const claimed = await queue.claim({ workerId: 'gone', leaseMs: 60_000 });
    expect(claimed).not.toBeNull();
    await queue.fail(claimed!.lease, { description: 'the worker died' });
    await first.close();
    engines.splice(0);

    const second = createSearchEngine({
      corpus: [CORPUS],
      credits,
      jobs: { queue, workers: 1, pollMs: 50, webhookSecret: SECRET, webhookAttempts: 1 },
    });
    engines.push(second);
    expect(await until(async () => (await credits.balance(record.accountId)) === 100, 3_000)).toBe(true);
  });
});
