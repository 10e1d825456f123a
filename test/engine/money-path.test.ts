import { describe, expect, it } from 'vitest';
import { createCreditsService } from '../../src/engine/credits.ts';
import { createFairScheduler } from '../../src/scheduling/fair-scheduler.ts';
import { createMoneyPath, type MoneyPathOptions } from '../../src/engine/money-path.ts';
import { recordingCredits } from '../support/recording-credits.ts';

async function setup(overrides: Partial<MoneyPathOptions> = {}, balance = 10) {
  const { store, calls } = recordingCredits();
  await store.openAccount('acct', balance);
  const scheduler = createFairScheduler({ concurrency: 2, maxQueued: 2, maxAccountShare: 1 });
  const settleErrors: string[] = [];
  // The ledger the credits service writes: each settlement as [action, credits].
  const settled: [string, number][] = [];
  const ledger = {
    recordSearch: (usage: { kind: string; credits: number }) =>
      settled.push([usage.kind === 'charge' ? 'commit' : 'refund', usage.credits]),
  };
  const path = createMoneyPath({
    credits: createCreditsService({ store, ledger }),
    scheduler,
    creditCost: 1,
    requestTimeoutMs: 5_000,
    onSettleError: (_error, _id, action) => settleErrors.push(action),
    ...overrides,
  });
  let n = 0;
  const target = (signal = new AbortController().signal) => ({
    account: 'acct',
    requestId: `r${++n}`,
    keyId: 'key',
    signal,
  });
  return { path, calls, scheduler, store, target, settleErrors, settled };
}

async function* events(list: string[], failAfter?: number) {
  for (const [index, event] of list.entries()) {
    if (index === failAfter) throw new Error('pipeline failed');
    yield event;
  }
}

/** A promise to hold work open until the test releases it. */
function openGate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const isFinal = (event: string) => event === 'done';

describe('money path: plain runs', () => {
  it('a success commits exactly once and frees the slot', async () => {
    const { path, calls, scheduler, store, target } = await setup();
    await expect(path.run(target(), async (call) => call.requestId)).resolves.toBe('r1');
    expect(calls).toEqual({ reserve: 1, commit: 1, refund: 0 });
    expect(await store.balance('acct')).toBe(9);
    expect(scheduler.running).toBe(0);
  });

  it('work that throws is refunded and the error passes through', async () => {
    const { path, calls, store, scheduler, target } = await setup();
    await expect(
      path.run(target(), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
    expect(await store.balance('acct')).toBe(10);
    expect(scheduler.running).toBe(0);
  });

  it('a result that is not chargeable (nothing found) is refunded', async () => {
    const { path, calls, store, target } = await setup();
    await path.run(
      target(),
      async () => ({ sources: [] }),
      (result) => result.sources.length > 0,
    );
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
    expect(await store.balance('acct')).toBe(10);
  });

  it('a partial charge commits that much of the hold and returns the rest; 0 refunds; never more than held', async () => {
    const { path, calls, store, target, settled } = await setup();
    await path.run(
      { ...target(), amount: 5 },
      async () => 3,
      (succeeded) => succeeded,
    );
    expect(await store.balance('acct')).toBe(7);
    await path.run(
      { ...target(), amount: 5 },
      async () => 0,
      (succeeded) => succeeded,
    );
    expect(await store.balance('acct')).toBe(7);
    await path.run(
      { ...target(), amount: 2 },
      async () => 9,
      (succeeded) => succeeded,
    );
    expect(await store.balance('acct')).toBe(5);
    expect(calls).toEqual({ reserve: 3, commit: 2, refund: 1 });
    expect(settled).toEqual([
      ['commit', 3],
      ['refund', 5],
      ['commit', 2],
    ]);
  });

  it('quota exceeded at the hold takes no slot and settles nothing', async () => {
    const { path, calls, scheduler, target } = await setup({}, 0);
    await expect(path.run(target(), async () => 'never')).rejects.toMatchObject({ status: 433 });
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 0 });
    expect(scheduler.running).toBe(0);
    expect(scheduler.waiting).toBe(0);
  });

  it('a full queue answers 503 and refunds its hold', async () => {
    const { path, calls, target, scheduler } = await setup();
    const gate = openGate();
    const running = [path.run(target(), () => gate.promise), path.run(target(), () => gate.promise)];
    const waiting = [path.run(target(), async () => 'w1'), path.run(target(), async () => 'w2')];
    await expect(path.run(target(), async () => 'refused')).rejects.toMatchObject({ status: 503 });
    expect(calls).toEqual({ reserve: 5, commit: 0, refund: 1 });
    gate.open();
    await Promise.all([...running, ...waiting]);
    expect(calls).toEqual({ reserve: 5, commit: 4, refund: 1 });
    expect(scheduler.running).toBe(0);
  });

  it('a client that leaves while waiting for a slot is refunded', async () => {
    const { path, calls, target } = await setup();
    const gate = openGate();
    const running = [path.run(target(), () => gate.promise), path.run(target(), () => gate.promise)];
    const client = new AbortController();
    const waiting = path.run(target(client.signal), async () => 'never');
    client.abort(new Error('client disconnected'));
    await expect(waiting).rejects.toThrow('client disconnected');
    gate.open();
    await Promise.all(running);
    expect(calls).toEqual({ reserve: 3, commit: 2, refund: 1 });
  });

  it('a client that leaves during the work is refunded, even if the work ignores the signal', async () => {
    const { path, calls, store, target } = await setup();
    const client = new AbortController();
    const result = path.run(target(client.signal), async () => {
      client.abort(new Error('gone'));
      await new Promise((resolve) => setImmediate(resolve));
      return 'late answer';
    });
    await result;
    expect(calls.refund).toBe(1);
    expect(calls.commit).toBe(0);
    expect(await store.balance('acct')).toBe(10);
  });

  it('the request deadline passing, while waiting for a slot or during the work, refunds', async () => {
    const { path, calls, scheduler, store, target } = await setup({ requestTimeoutMs: 100 });
    // Another account holds both slots for longer than the deadline.
    const live = new AbortController().signal;
    const others = [await scheduler.acquire('other', live), await scheduler.acquire('other', live)];
    await expect(path.run(target(), async () => 'never')).rejects.toMatchObject({ name: 'TimeoutError' });
    for (const release of others) release();
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return 'late answer';
    };
    await expect(path.run(target(), slow)).resolves.toBe('late answer');
    expect(calls).toEqual({ reserve: 2, commit: 0, refund: 2 });
    expect(scheduler.running).toBe(0);
    expect(await store.balance('acct')).toBe(10);
  });

  it('a failed commit is reported, not thrown: the answer is delivered', async () => {
    const { store } = recordingCredits();
    await store.openAccount('acct', 5);
    const settleErrors: string[] = [];
    const path = createMoneyPath({
      credits: createCreditsService({
        store: { ...store, commit: async () => Promise.reject(new Error('store down')) },
      }),
      scheduler: createFairScheduler(),
      creditCost: 1,
      requestTimeoutMs: 1_000,
      onSettleError: (_e, _id, action) => settleErrors.push(action),
    });
    await expect(
      path.run({ account: 'acct', requestId: 'x', signal: new AbortController().signal }, async () => 'ok'),
    ).resolves.toBe('ok');
    expect(settleErrors).toEqual(['commit']);
  });
});

describe('money path: streams', () => {
  it('commits once, before the final event is passed on', async () => {
    const { path, calls, target } = await setup();
    const seen: string[] = [];
    const stream = await path.stream(target(), () => events(['sources', 'delta', 'done']), isFinal);
    for await (const event of stream) seen.push(`${event}:${calls.commit}`);
    expect(seen).toEqual(['sources:0', 'delta:0', 'done:1']);
    expect(calls).toEqual({ reserve: 1, commit: 1, refund: 0 });
  });

  it('settles at the first settling event (the first delta): a consumer that stops after it has paid', async () => {
    const { path, calls, target } = await setup();
    const seen: string[] = [];
    const settlesAt = (event: string) => event === 'delta' || event === 'done';
    const stream = await path.stream(
      target(),
      () => events(['sources', 'delta', 'delta', 'done']),
      settlesAt,
    );
    for await (const event of stream) {
      seen.push(`${event}:${calls.commit}`);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['sources:0', 'delta:1']);
    expect(calls).toEqual({ reserve: 1, commit: 1, refund: 0 });
  });

  it('events that fail midway are refunded', async () => {
    const { path, calls, scheduler, target } = await setup();
    const stream = await path.stream(target(), () => events(['sources', 'delta', 'done'], 2), isFinal);
    await expect(
      (async () => {
        for await (const event of stream) void event;
      })(),
    ).rejects.toThrow('pipeline failed');
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
    expect(scheduler.running).toBe(0);
  });

  it('a consumer that stops early is refunded', async () => {
    const { path, calls, scheduler, target } = await setup();
    const stream = await path.stream(target(), () => events(['sources', 'delta', 'done']), isFinal);
    for await (const event of stream) if (event === 'sources') break;
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
    expect(scheduler.running).toBe(0);
  });

  it('a stream that ends without a final event is refunded', async () => {
    const { path, calls, target } = await setup();
    const stream = await path.stream(target(), () => events(['sources']), isFinal);
    for await (const event of stream) void event;
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
  });

  it('a final event that is not chargeable is refunded', async () => {
    const { path, calls, target } = await setup();
    const stream = await path.stream(
      target(),
      () => events(['done']),
      isFinal,
      () => false,
    );
    for await (const event of stream) void event;
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
  });

  it('a client that leaves before reading the stream frees the slot and the credits', async () => {
    const { path, calls, scheduler, store, target } = await setup();
    const client = new AbortController();
    await path.stream(target(client.signal), () => events(['done']), isFinal);
    expect(scheduler.running).toBe(1);
    client.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect(scheduler.running).toBe(0);
    expect(calls).toEqual({ reserve: 1, commit: 0, refund: 1 });
    expect(await store.balance('acct')).toBe(10);
  });

  it('quota exceeded is thrown before the stream starts', async () => {
    const { path, target } = await setup({}, 0);
    await expect(path.stream(target(), () => events(['done']), isFinal)).rejects.toMatchObject({
      status: 433,
    });
  });
});

describe('money path: prepaid runs (a research job’s search, paid by the job’s own hold)', () => {
  it('holds, charges and refunds nothing, but takes a fair slot for the work and frees it after', async () => {
    const { path, calls, scheduler, store, target, settled } = await setup({}, 0);
    const gate = openGate();
    let runningInside = -1;
    const done = path.prepaid(target(), async (call) => {
      runningInside = scheduler.running;
      await gate.promise;
      return call.requestId;
    });
    await sleepUntil(() => runningInside >= 0);
    expect(runningInside).toBe(1);
    gate.open();
    await expect(done).resolves.toBe('r1');
    // An account with no credits left (the job's hold took them) still runs: nothing is held here.
    expect(calls).toEqual({ reserve: 0, commit: 0, refund: 0 });
    expect(settled).toEqual([]);
    expect(await store.balance('acct')).toBe(0);
    expect(scheduler.running).toBe(0);
  });

  it('aborts the work at the request deadline and frees the slot', async () => {
    const { path, scheduler, target } = await setup({ requestTimeoutMs: 50 });
    await expect(
      path.prepaid(
        target(),
        (call) =>
          new Promise((_, reject) =>
            call.signal.addEventListener('abort', () => reject(call.signal.reason as Error), { once: true }),
          ),
      ),
    ).rejects.toThrow('request deadline passed');
    expect(scheduler.running).toBe(0);
  });
});

async function sleepUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}
