/** The per-host scheduler alone, on a fake clock: concurrency, token bucket, order of turns, speed. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FAST_HOST_SAMPLES,
  createHostScheduler,
  type SlotTicket,
} from '../../src/pipeline/fetch/host-scheduler.ts';
import { SPECULATIVE_PRIORITY } from '../../src/pipeline/types.ts';

const ticket = (owner: string, priority = 0): SlotTicket => ({
  owner: () => owner,
  priority: () => priority,
});
const never = new AbortController().signal;

/** A task that resolves when told to, recording when it started. */
function gate(log: string[], name: string): { task: () => Promise<string>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    task: async () => {
      log.push(name);
      await opened;
      return name;
    },
    open: () => open(),
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('host scheduler', () => {
  it('keeps at most `concurrency` tasks of a host running; other hosts are not held', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 2, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const log: string[] = [];
    const gates = ['a', 'b', 'c'].map((name) => gate(log, name));
    const runs = gates.map((g) => scheduler.run('one.test', ticket('A'), never, g.task));
    const other = scheduler.run('two.test', ticket('A'), never, async () => 'other');
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['a', 'b']);
    expect(scheduler.load('one.test')).toEqual({ running: 2, waiting: 1 });
    await expect(other).resolves.toBe('other');
    gates[0]!.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['a', 'b', 'c']);
    for (const g of gates) g.open();
    await Promise.all(runs);
    expect(scheduler.load('one.test')).toEqual({ running: 0, waiting: 0 });
  });

  it('starts `burst` tasks at once, then `ratePerSecond`', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 100, ratePerSecond: 4, burst: 3, fastMs: 200 },
      Date.now,
    );
    const started: number[] = [];
    const t0 = Date.now();
    const runs = Array.from({ length: 7 }, () =>
      scheduler.run('one.test', ticket('A'), never, async () => void started.push(Date.now() - t0)),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(runs);
    // Three from the full bucket, then one every 250 ms.
    expect(started).toEqual([0, 0, 0, 250, 500, 750, 1000]);
  });

  it('gives the turn to the lowest priority number, then to the owner running the fewest, then the oldest', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 1, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const log: string[] = [];
    const first = gate(log, 'A0');
    const running = scheduler.run('one.test', ticket('A', 0), never, first.task);
    await vi.advanceTimersByTimeAsync(0);
    const waiting = [
      ['A2', ticket('A', 2)],
      ['A1', ticket('A', 1)],
      ['B1', ticket('B', 1)],
      ['C0', ticket('C', 0)],
      ['B0', ticket('B', 0)],
    ] as const;
    const runs = waiting.map(([name, t]) =>
      scheduler.run('one.test', t, never, async () => void log.push(name)),
    );
    first.open();
    await Promise.all([running, ...runs]);
    // C0 and B0 share priority 0 and nobody runs: the older (C0) first. A1 and B1: the older A1.
    expect(log).toEqual(['A0', 'C0', 'B0', 'A1', 'B1', 'A2']);
  });

  it('starts a speculative task only with room to spare, and any needed task before it', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 4, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const log: string[] = [];
    const gates = ['A0', 'A1', 'A2'].map((name) => gate(log, name));
    const running = gates.map((g, i) => scheduler.run('one.test', ticket('A', i), never, g.task));
    // Three of the 4 slots are busy: the page read ahead waits, although a slot is free.
    const ahead = scheduler.run(
      'one.test',
      ticket('A', SPECULATIVE_PRIORITY + 5),
      never,
      async () => void log.push('A5 ahead'),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(['A0', 'A1', 'A2']);
    // A needed page of another search takes the free slot at once.
    await scheduler.run('one.test', ticket('B', 3), never, async () => void log.push('B3'));
    expect(log).toEqual(['A0', 'A1', 'A2', 'B3']);
    // A0 ends: two of 4 busy, room to spare, so the page read ahead starts.
    gates[0]!.open();
    await Promise.all([running[0], ahead]);
    expect(log).toEqual(['A0', 'A1', 'A2', 'B3', 'A5 ahead']);
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(running);
  });

  it('keeps a quarter of the burst for needed tasks: a speculative one waits for the bucket to refill', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 100, ratePerSecond: 10, burst: 8, fastMs: 200 },
      Date.now,
    );
    const started: string[] = [];
    const t0 = Date.now();
    const runs = [
      ...[0, 1, 2, 3, 4, 5, 6].map((i) =>
        scheduler.run(
          'one.test',
          ticket('A', i),
          never,
          async () => void started.push(`needed ${Date.now() - t0}`),
        ),
      ),
      scheduler.run(
        'one.test',
        ticket('A', SPECULATIVE_PRIORITY),
        never,
        async () => void started.push(`ahead ${Date.now() - t0}`),
      ),
    ];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(runs);
    // Seven needed tasks take 7 of the 8 tokens; the read-ahead waits until 2 are in again (100 ms).
    expect(started).toEqual([...Array.from({ length: 7 }, () => 'needed 0'), 'ahead 100']);
  });

  it('drops a waiting task whose signal aborts, without running it', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 1, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const log: string[] = [];
    const first = gate(log, 'first');
    const running = scheduler.run('one.test', ticket('A'), never, first.task);
    const controller = new AbortController();
    const dropped = scheduler.run(
      'one.test',
      ticket('B'),
      controller.signal,
      async () => void log.push('dropped'),
    );
    controller.abort(new Error('answered'));
    await expect(dropped).rejects.toThrow('answered');
    first.open();
    await running;
    expect(log).toEqual(['first']);
    expect(scheduler.load('one.test')).toEqual({ running: 0, waiting: 0 });
  });

  it('counts a host as fast with room after a few quick requests, not while it is full or slow', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 1, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const sleep = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));
    expect(scheduler.isFastWithRoom('quick.test')).toBe(false);
    for (let i = 0; i < FAST_HOST_SAMPLES; i++) {
      const run = scheduler.run('quick.test', ticket('A'), never, sleep(20));
      await vi.advanceTimersByTimeAsync(20);
      await run;
    }
    expect(scheduler.isFastWithRoom('quick.test')).toBe(true);
    const busy = scheduler.run('quick.test', ticket('A'), never, sleep(20));
    expect(scheduler.isFastWithRoom('quick.test')).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    await busy;
    for (let i = 0; i < FAST_HOST_SAMPLES; i++) {
      const run = scheduler.run('slow.test', ticket('A'), never, sleep(900));
      await vi.advanceTimersByTimeAsync(900);
      await run;
    }
    expect(scheduler.isFastWithRoom('slow.test')).toBe(false);
  });

  it('clear() rejects the waiting tasks', async () => {
    const scheduler = createHostScheduler(
      { concurrency: 1, ratePerSecond: 1000, burst: 100, fastMs: 200 },
      Date.now,
    );
    const first = gate([], 'first');
    const running = scheduler.run('one.test', ticket('A'), never, first.task);
    const waiting = scheduler.run('one.test', ticket('A'), never, async () => 'never');
    scheduler.clear(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    first.open();
    await running;
  });
});
