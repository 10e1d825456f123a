import { CitewiseError } from '../errors.ts';

/**
 * Runs `work` again while it fails with a 503 (`service_unavailable`: the database is unreachable), for up to
 * `budgetMs`, waiting 100 ms, then twice as long each time up to 1 s. Only for idempotent work: a settlement
 * whose first attempt ran but lost its reply returns `false` on retry.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, budgetMs: number): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await work();
    } catch (error) {
      const retry = error instanceof CitewiseError && error.code === 'service_unavailable';
      if (!retry || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
