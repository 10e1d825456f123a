/**
 * `citewise/console`: sign-up, organizations and members, API keys, usage and credits, a playground and
 * the operator's page, served next to `/v1` (see docs/console.md).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createSearchEngine } from 'citewise';
 * import { createNodeHandler } from 'citewise/node';
 * import { createSqliteStores } from 'citewise/sqlite';
 * import {
 *   createConsole, createConsoleNodeHandler, createSqliteAccountStore, createSqliteUsageStore,
 *   createUsageRecorder, withConsoleKeys,
 * } from 'citewise/console';
 *
 * const stores = createSqliteStores({ path: '.citewise/citewise.db' });
 * const accounts = createSqliteAccountStore({ database: stores.database });
 * const usage = createSqliteUsageStore({ database: stores.database });
 * const recorder = createUsageRecorder(usage);
 * const engine = createSearchEngine({
 *   keys: withConsoleKeys(stores.keys, accounts), credits: stores.credits, usage: recorder,
 * });
 * const console = createConsole({ engine, accounts, usage, recorder });
 * const api = createNodeHandler(engine);
 * const ui = createConsoleNodeHandler(console);
 * createServer((req, res) => ui(req, res, () => api(req, res))).listen(8787);
 * ```
 */
export { CONSOLE_DEFAULTS, createConsole } from './app.ts';
export type { Console, ConsoleOptions, ConsoleRequest, SignupPolicy, SsoOptions } from './app.ts';
export { SSO_DEFAULTS } from './oidc.ts';
export { createConsoleNodeHandler, createConsoleFetchHandler } from './adapters.ts';
export type { ConsoleAdapterOptions } from './adapters.ts';
export { withConsoleKeys, isConsoleKeyStore } from './keys.ts';
export { AUDIT_DEFAULTS, auditFrom, auditUserEvent, createAuditLog } from './audit.ts';
export type { AuditLog, AuditLogOptions } from './audit.ts';
export { AUDIT_ACTIONS } from '../stores/audit.ts';
export type { ConsoleKeyStore, ConsoleKeysOptions } from './keys.ts';
export { PASSWORD_MIN_LENGTH, hashPassword, verifyPassword } from './passwords.ts';
export { CONTENT_SECURITY_POLICY } from './security.ts';
// The console's stores (users, organizations, sessions, usage), by backend, and the usage recorder.
export type * from '../stores/account-types.ts';
export { ROLES } from '../stores/account-types.ts';
export {
  createMemoryAccountStore,
  createMemoryUsageStore,
  type MemoryAccountStoreOptions,
} from '../stores/memory/accounts.ts';
export {
  createSqliteAccountStore,
  createSqliteUsageStore,
  migrateSqliteConsole,
} from '../stores/sqlite/accounts.ts';
export {
  createPostgresAccountStore,
  createPostgresUsageStore,
  type PostgresAccountStoreOptions,
} from '../stores/postgres/accounts.ts';
export {
  createUsageRecorder,
  USAGE_RECORDER_DEFAULTS,
  type BatchingUsageRecorder,
  type UsageRecorderOptions,
} from '../stores/usage-recorder.ts';
