/**
 * The build's read workers hold their next batches: a worker works through every batch posted to it while
 * the main thread is busy (writing the index), not one batch per turn of the main thread's event loop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createReadPool, type ReadPool } from '../../src/index-builder/read-pool.ts';

type Payload = { counter: SharedArrayBuffer; value: number; crash?: boolean };
const workerUrl = new URL('./fixtures/count-worker.ts', import.meta.url);

/** Blocks this thread (as a long synchronous write does) until `counter` reaches `count` or 10 s pass. */
function blockUntil(counter: SharedArrayBuffer, count: number): number {
  const view = new Int32Array(counter);
  const until = Date.now() + 10_000;
  while (Atomics.load(view, 0) < count && Date.now() < until)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  return Atomics.load(view, 0);
}

describe('createReadPool', () => {
  let pool: ReadPool<Payload, { value: number }> | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('a worker works through the batches posted to it while the main thread is blocked', async () => {
    pool = createReadPool<Payload, { value: number }>(workerUrl, 1);
    const counter = new SharedArrayBuffer(4);
    const answers = [1, 2, 3, 4].map((value) => pool!.run({ counter, value }));
    // The main thread never returns to its event loop meanwhile: no answer is handled before all ran.
    expect(blockUntil(counter, 4)).toBe(4);
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4].map((value) => ({ value })));
  });

  it('spreads batches over its workers, the least loaded first', async () => {
    pool = createReadPool<Payload, { value: number }>(workerUrl, 2);
    const counter = new SharedArrayBuffer(4);
    const answers = Array.from({ length: 6 }, (_, value) => pool!.run({ counter, value }));
    expect(blockUntil(counter, 6)).toBe(6);
    expect((await Promise.all(answers)).map(({ value }) => value)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a worker that exits rejects the batches it holds; the next batch gets a new worker', async () => {
    pool = createReadPool<Payload, { value: number }>(workerUrl, 1);
    const counter = new SharedArrayBuffer(4);
    const crashed = pool.run({ counter, value: 1, crash: true });
    const held = pool.run({ counter, value: 2 });
    await expect(crashed).rejects.toThrow('read worker exited with code 3');
    await expect(held).rejects.toThrow('read worker exited with code 3');
    await expect(pool.run({ counter, value: 3 })).resolves.toEqual({ value: 3 });
  });

  it('rejects batches after close, and a bad size', async () => {
    pool = createReadPool<Payload, { value: number }>(workerUrl, 1);
    await pool.close();
    await expect(pool.run({ counter: new SharedArrayBuffer(4), value: 1 })).rejects.toThrow('closed');
    expect(() => createReadPool(workerUrl, 0)).toThrow(RangeError);
  });
});
