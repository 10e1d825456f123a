/**
 * `citewise/testing`: what tests of an application embedding citewise need.
 *
 * - Stage fakes, as the AI SDK ships `MockLanguageModel`: {@link fakeSearchProvider} (fixed hits),
 *   {@link fakeFetcher} (fixed pages), {@link staticAnswerer} (a fixed answer); each records what it was
 *   asked. {@link request} sends one HTTP request to an engine in-process.
 * - Conformance suites for store implementations: each `describeXxx(name, make)` registers a vitest
 *   `describe` block (vitest is a peer dependency of this entry point).
 *
 * @example
 * ```ts
 * import { describeCreditStore, fakeSearchProvider, staticAnswerer } from 'citewise/testing';
 * describeCreditStore('my store', () => createMyCreditStore({ url: process.env.DB_URL }));
 * const engine = createSearchEngine({
 *   search: fakeSearchProvider([{ url: 'https://example.com/a', title: 'A', content: 'Text of A.' }]),
 *   answerer: staticAnswerer({ answer: 'A says so [1].', sources: ['https://example.com/a'] }),
 * });
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export {
  FAKE_PAGE_DEFAULTS,
  fakeFetcher,
  fakeSearchProvider,
  staticAnswerer,
  type FakeFetcher,
  type FakePage,
  type FakeSearchProvider,
  type StaticAnswerer,
} from './fakes.ts';
export { request, type Handler, type RequestOptions, type TestResponse } from './request.ts';
export { describeKeyStore } from './key-store-suite.ts';
export type { MakeKeyStore } from './key-store-suite.ts';
export { describeCreditStore } from './credit-store-suite.ts';
export type { DescribeCreditStoreOptions, MakeCreditStore } from './credit-store-suite.ts';
export type { MakeCreditStorePair } from './credit-budget-suite.ts';
export { describeRateLimiter } from './rate-limiter-suite.ts';
export type { MakeRateLimiter } from './rate-limiter-suite.ts';
export { describeIdempotencyStore } from './idempotency-store-suite.ts';
export type { MakeIdempotencyStore } from './idempotency-store-suite.ts';
export { describeAccountStore } from './account-store-suite.ts';
export type { MakeAccountStore } from './account-store-suite.ts';
export { describeUsageStore } from './usage-store-suite.ts';
export type { MakeUsageStore } from './usage-store-suite.ts';
export { describeJobQueue } from './job-queue-suite.ts';
export type { JobQueueSuiteOptions, MakeJobQueue } from './job-queue-suite.ts';
export { describeDocumentIndex } from './document-index-suite.ts';
export type { MakeDocumentIndex } from './document-index-suite.ts';
