/**
 * One account flooding the service must not keep another account's search waiting for more than one
 * search's duration. Checked through the real HTTP stack by order of events, not by timings: every search's
 * answer is held open until the test releases it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/index.ts';
import type { CreditStore } from '../../src/stores/types.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';
import { staticAnswerer } from '../../src/testing/index.ts';

/** Waits for what the test asserts by order; generous, as a shared machine may be slow to get there. */
const POLL = { timeout: 20_000 };

/** A credit store that counts the holds taken (a search takes its hold just before it queues). */
function countingCredits(): { credits: CreditStore; holds: () => number } {
  const base = createMemoryCreditStore();
  let holds = 0;
  const credits: CreditStore = Object.assign(Object.create(base) as CreditStore, {
    async reserve(...args: Parameters<CreditStore['reserve']>) {
      const reservation = await base.reserve(...args);
      holds++;
      return reservation;
    },
  });
  return { credits, holds: () => holds };
}

/** An answerer whose answers wait until the test releases them, recording who asked, in order. */
function heldAnswerer() {
  const started: string[] = [];
  const releases: Array<() => void> = [];
  const answerer = staticAnswerer(async (input) => {
    started.push(input.prompt);
    await new Promise<void>((resolve) => releases.push(resolve));
    return { answer: `answer to ${input.prompt}`, sources: input.passages.slice(0, 1).map((p) => p.url) };
  });
  const releaseOldest = () => releases.shift()?.();
  /** Releases answers one by one, from the `from`-th started, until `total` have been released. */
  async function releaseAll(from: number, total: number) {
    for (let released = from; released < total; released++) {
      await expect.poll(() => started.length, POLL).toBeGreaterThan(released);
      releaseOldest();
    }
  }
  return { answerer, started, releaseOldest, releaseAll };
}

describe('fair scheduling across accounts (over HTTP)', () => {
  let engine: SearchEngine | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    await engine?.close();
  });

  async function start(maxAccountShare: number) {
    const held = heldAnswerer();
    const { credits, holds } = countingCredits();
    engine = createSearchEngine({
      answerer: held.answerer,
      credits,
      maxConcurrentSearches: 2,
      maxQueuedSearches: 64,
      maxAccountShare,
      rateLimiter: false,
    });
    server = await ADAPTERS['node:http']!(engine);
    const flood = apiClient(server.baseUrl, (await engine.createKey()).key);
    const tenant = apiClient(server.baseUrl, (await engine.createKey()).key);
    return { ...held, holds, flood, tenant };
  }

  it('with a share cap, a flooding account leaves a slot free: the other account starts at once', async () => {
    const { started, releaseAll, flood, tenant } = await start(0.5);
    const flooding = Array.from({ length: 10 }, (_, i) => flood.post({ prompt: `flood ${i} API keys` }));
    await expect.poll(() => started.length, POLL).toBe(1);
    const own = tenant.post({ prompt: 'tenant API keys' });
    await expect.poll(() => started, POLL).toContain('tenant API keys');
    // The flood still holds only its one slot; nothing of it finished yet.
    expect(started.filter((prompt) => prompt.startsWith('flood'))).toHaveLength(1);
    await releaseAll(0, 11);
    expect((await own).status).toBe(200);
    expect((await Promise.all(flooding)).map((response) => response.status)).toEqual(Array(10).fill(200));
  });

  it('without a cap, the next free slot goes to the waiting account, not to the flood queued before it', async () => {
    const { started, holds, releaseOldest, releaseAll, flood, tenant } = await start(1);
    const flooding = Array.from({ length: 10 }, (_, i) => flood.post({ prompt: `flood ${i} API keys` }));
    await expect.poll(() => started.length, POLL).toBe(2);
    await expect.poll(holds, POLL).toBe(10);
    const own = tenant.post({ prompt: 'tenant API keys' });
    // The tenant's request reaches the queue behind the flood's eight waiting searches (right after its hold).
    await expect.poll(holds, POLL).toBe(11);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toHaveLength(2);
    releaseOldest();
    // One flood search finished (one search's duration): the tenant's search is the next to start.
    await expect.poll(() => started.length, POLL).toBe(3);
    expect(started[2]).toBe('tenant API keys');
    await releaseAll(1, 11);
    expect((await own).status).toBe(200);
    expect((await Promise.all(flooding)).map((response) => response.status)).toEqual(Array(10).fill(200));
  });
});
