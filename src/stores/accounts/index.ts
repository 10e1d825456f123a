/** Account and usage stores of the console (memory, SQLite, PostgreSQL) and the batching usage recorder. */
export type * from './types.ts';
export { ROLES } from './types.ts';
export { createMemoryAccountStore, createMemoryUsageStore } from './memory.ts';
export type { MemoryAccountStoreOptions } from './memory.ts';
export { createSqliteAccountStore, createSqliteUsageStore, migrateSqliteConsole } from './sqlite.ts';
export { createPostgresAccountStore, createPostgresUsageStore } from './postgres.ts';
export type { PostgresAccountStoreOptions } from './postgres.ts';
export { createUsageRecorder } from './recorder.ts';
export type { BatchingUsageRecorder, UsageRecorderOptions } from './recorder.ts';
