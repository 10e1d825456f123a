import { describe, expect, it } from 'vitest';
import { createFairScheduler } from '../../src/scheduling/fair-scheduler.ts';
import { CitewiseError } from '../../src/errors.ts';

const live = () => new AbortController().signal;

/** Acquires and records the order in which slots are granted. */
function recorder(scheduler: ReturnType<typeof createFairScheduler>) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const request = (account: string, label: string, signal = live()) =>
    scheduler.acquire(account, signal).then((release) => {
      granted.push(label);
      releases.set(label, release);
      return release;
    });
  return { granted, releases, request };
}

describe('createFairScheduler', () => {
  it('caps the running searches of one account at its share, leaving slots for others', async () => {
    const scheduler = createFairScheduler({ concurrency: 4, maxQueued: 10, maxAccountShare: 0.5 });
    const { granted, request } = recorder(scheduler);
    for (let i = 1; i <= 5; i++) void request('flood', `flood${i}`);
    await Promise.resolve();
    expect(granted).toEqual(['flood1', 'flood2']);
    await request('other', 'other1');
    expect(granted).toEqual(['flood1', 'flood2', 'other1']);
    expect(scheduler.running).toBe(3);
    expect(scheduler.waiting).toBe(3);
  });

  it('serves waiting searches round-robin across accounts, not first-come', async () => {
    const scheduler = createFairScheduler({ concurrency: 1, maxQueued: 10, maxAccountShare: 1 });
    const { granted, releases, request } = recorder(scheduler);
    await request('a', 'a0');
    void request('a', 'a1');
    void request('a', 'a2');
    void request('a', 'a3');
    void request('b', 'b1');
    void request('c', 'c1');
    const order = ['a0', 'a1', 'b1', 'c1', 'a2', 'a3'];
    for (const label of order.slice(0, -1)) {
      releases.get(label)!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(granted).toEqual(order);
  });

  it('a flooding account waits behind its own searches: a newcomer gets the next free slot', async () => {
    const scheduler = createFairScheduler({ concurrency: 2, maxQueued: 64, maxAccountShare: 1 });
    const { granted, releases, request } = recorder(scheduler);
    await request('flood', 'f1');
    await request('flood', 'f2');
    for (let i = 3; i <= 30; i++) void request('flood', `f${i}`);
    void request('tenant', 't1');
    releases.get('f1')!();
    await new Promise((resolve) => setImmediate(resolve));
    // 28 flood searches were queued before t1, but the tenant runs nothing: it gets the next free slot.
    expect(granted.slice(2)).toEqual(['t1']);
    releases.get('f2')!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted.slice(2)).toEqual(['t1', 'f3']);
  });

  it('a full queue, or an account past its share of the queue, answers 503 with Retry-After', async () => {
    const scheduler = createFairScheduler({ concurrency: 1, maxQueued: 4, maxAccountShare: 0.5 });
    await scheduler.acquire('a', live());
    void scheduler.acquire('a', live());
    void scheduler.acquire('a', live());
    const ownShare = await scheduler.acquire('a', live()).catch((error: unknown) => error);
    expect(ownShare).toBeInstanceOf(CitewiseError);
    expect((ownShare as CitewiseError).status).toBe(503);
    expect((ownShare as CitewiseError).retryAfterMs).toBeGreaterThan(0);
    // Another account still has room: the flood did not fill the queue for everybody.
    void scheduler.acquire('b', live());
    void scheduler.acquire('b', live());
    expect(scheduler.waiting).toBe(4);
    await expect(scheduler.acquire('c', live())).rejects.toMatchObject({ status: 503 });
  });

  it('a waiting search that is aborted leaves the queue and rejects with the abort reason', async () => {
    const scheduler = createFairScheduler({ concurrency: 1, maxQueued: 4, maxAccountShare: 1 });
    const release = await scheduler.acquire('a', live());
    const controller = new AbortController();
    const waiting = scheduler.acquire('b', controller.signal);
    expect(scheduler.waiting).toBe(1);
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(scheduler.waiting).toBe(0);
    release();
    expect(scheduler.running).toBe(0);
    await expect(scheduler.acquire('c', AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('release is idempotent and close refuses waiting searches', async () => {
    const scheduler = createFairScheduler({ concurrency: 1, maxQueued: 4 });
    const release = await scheduler.acquire('a', live());
    const waiting = scheduler.acquire('b', live());
    scheduler.close();
    await expect(waiting).rejects.toMatchObject({ status: 503 });
    release();
    release();
    expect(scheduler.running).toBe(0);
    await expect(scheduler.acquire('a', live())).rejects.toMatchObject({ status: 503 });
  });

  it('refuses bad options', () => {
    expect(() => createFairScheduler({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createFairScheduler({ maxQueued: -1 })).toThrow(RangeError);
    expect(() => createFairScheduler({ maxAccountShare: 0 })).toThrow(RangeError);
    expect(() => createFairScheduler({ maxAccountShare: 1.5 })).toThrow(RangeError);
  });
});
