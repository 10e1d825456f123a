import { afterEach } from 'vitest';

/** Runs `fn` so that a synchronous throw becomes a rejected promise (stores may throw either way). */
export function attempt<T>(fn: () => Promise<T> | T): Promise<T> {
  return Promise.resolve().then(fn);
}

/** Waits `ms` milliseconds of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Counts fulfilled and rejected results of `Promise.allSettled`. */
export function countSettled(results: readonly PromiseSettledResult<unknown>[]): {
  fulfilled: number;
  rejected: unknown[];
} {
  const rejected: unknown[] = [];
  let fulfilled = 0;
  for (const result of results) {
    if (result.status === 'fulfilled') fulfilled++;
    else rejected.push(result.reason);
  }
  return { fulfilled, rejected };
}

/** What a conformance suite opens for one test: a store, limiter or index, closed after the test. */
export interface Closable {
  close?(): Promise<void> | void;
}

/**
 * Returns `open`, which makes a fresh store with `make` and remembers it, and registers (vitest
 * `afterEach`) the closing of every store opened during the test. Call it inside a `describe` block.
 */
export function openedPerTest<Args extends unknown[], T extends Closable>(
  make: (...args: Args) => Promise<T> | T,
): (...args: Args) => Promise<T> {
  const opened: T[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0)) await item.close?.();
  });
  return async (...args: Args): Promise<T> => {
    const item = await make(...args);
    opened.push(item);
    return item;
  };
}
