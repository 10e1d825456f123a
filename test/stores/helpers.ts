/** Helpers the store test files share. */

/** A manual clock for exact-time tests: `now()` stands still until `advance(ms)`. */
export function manualClock(start = 1_700_000_000_000) {
  let time = start;
  return {
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

/** Wraps one store of a set so that closing it closes the whole set (its shared pool or client). */
export function closing<T extends object>(store: T, stores: { close(): Promise<void> }): T {
  return Object.assign(Object.create(store) as T, { close: () => stores.close() });
}
