export { createMemoryKeyStore } from './key-store.ts';
export type { MemoryKeyStore, MemoryKeyStoreOptions, StoredKey } from './key-store.ts';
export { createMemoryCreditStore } from './credit-store.ts';
export type { MemoryCreditStoreOptions } from './credit-store.ts';
export { createMemoryRateLimiter } from './rate-limiter.ts';
export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './rate-limiter.ts';
export { createMemoryIdempotencyStore } from './idempotency-store.ts';
export type { MemoryIdempotencyStoreOptions } from './idempotency-store.ts';
