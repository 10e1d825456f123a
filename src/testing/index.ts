/**
 * `citewise/testing`: conformance suites for store implementations. Each `describeXxx(name, make)`
 * registers a vitest `describe` block (vitest is a peer dependency of this entry point).
 *
 * @example
 * ```ts
 * import { describeCreditStore } from 'citewise/testing';
 * describeCreditStore('my store', () => createMyCreditStore({ url: process.env.DB_URL }));
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export { describeKeyStore } from './key-store-suite.ts';
export type { MakeKeyStore } from './key-store-suite.ts';
export { describeCreditStore } from './credit-store-suite.ts';
export type { MakeCreditStore } from './credit-store-suite.ts';
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
