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
