/** Shared setup for the fetcher tests: fetchers pointed at the fixture web, and error assertions. */
import { expect } from 'vitest';
import {
  createPageFetcher,
  type FetchErrorCode,
  type PageFetcherInstance,
  type PageFetcherOptions,
} from '../../src/pipeline/fetch/index.ts';
import { FIXTURE_HOST, fakeResolver } from './fixture-web.ts';

/** Fetchers created by {@link makeFetcher}; close them in `afterEach` with {@link closeFetchers}. */
const open: PageFetcherInstance[] = [];

/** A fetcher that may reach only `fixture.test` (→ 127.0.0.1) among private hosts. Robots and cache off unless asked. */
export function makeFetcher(options: PageFetcherOptions = {}): PageFetcherInstance {
  const fetcher = createPageFetcher({
    resolver: fakeResolver({ [FIXTURE_HOST]: ['127.0.0.1'] }),
    allowPrivateHosts: [FIXTURE_HOST],
    robots: false,
    cache: false,
    ...options,
  });
  open.push(fetcher);
  return fetcher;
}

export async function closeFetchers(): Promise<void> {
  await Promise.all(open.splice(0).map((fetcher) => fetcher.close()));
}

/** Call options with a deadline `ms` from now. */
export function call(ms = 10_000, signal: AbortSignal = new AbortController().signal) {
  return { signal, requestId: 'test', deadline: Date.now() + ms };
}

/** Asserts the promise rejects with a FetchError of this code. */
export async function expectFetchError(promise: Promise<unknown>, code: FetchErrorCode): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'FetchError', code });
}
