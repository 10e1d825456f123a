/**
 * The console in the CLI: `serve`'s console options, where console data lives, and the operator's
 * commands (`citewise console …`), which do what the operator page does.
 *
 * Account data (users, organizations, sessions, usage) lives next to keys and credits: in the SQLite file
 * of the data directory, or in the `--store` PostgreSQL database (schema migration 2). Redis holds no
 * accounts: with `--store redis://…` they go to `--accounts-store` (SQLite by default, one instance; give a
 * `postgres://…` URL when several instances share the Redis).
 */
import type { AuditEntry, NewAuditEntry } from '../stores/audit.ts';
import { AUDIT_DEFAULTS } from '../console/audit.ts';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Logger } from '../engine/index.ts';
import { createSqliteAccountStore, createSqliteUsageStore } from '../stores/sqlite/accounts.ts';
import { createPostgresAccountStore, createPostgresUsageStore } from '../stores/postgres/accounts.ts';
import { createUsageRecorder, type BatchingUsageRecorder } from '../stores/usage-recorder.ts';
import type { AccountStore, UsageStore } from '../stores/account-types.ts';
import type { CreditStore, KeyStore } from '../stores/types.ts';
import { createCreditsService, type CreditsService } from '../engine/credits.ts';
import { createConsole, type Console, type SignupPolicy, type SsoOptions } from '../console/app.ts';
import { withConsoleKeys, type ConsoleKeyStore } from '../console/keys.ts';
import { createResetLink, setPassword } from '../console/password-reset.ts';
import { passwordProblem } from '../console/passwords.ts';
import type { SearchEngine } from '../engine/index.ts';
import {
  addSettingOptions,
  databasePath,
  resolveConsoleTable,
  resolveDataDir,
  resolvePublicUrl,
  resolveSetting,
  resolveStore,
  type CommandFlags,
} from './config.ts';
import type { ConsoleTableValues } from './settings.ts';
import { CONSOLE_SETTINGS, SERVE_SETTINGS, type Setting } from './settings.ts';
import { openCliStores, redact, storeKind, takeParameter } from './stores.ts';

/** The console's settings of `serve` (flag, environment variable, default): ported to the settings table. */

/** Flags of the console options. */
export interface ConsoleFlags {
  readonly console?: boolean;
  readonly signup?: string;
  readonly signupDomains?: string;
  readonly trustProxy?: boolean;
  readonly accountsStore?: string;
  readonly auditRetentionDays?: string;
  readonly dataDir?: string;
  readonly store?: string;
  readonly oidcIssuer?: string;
  readonly oidcClientId?: string;
  readonly oidcClientSecret?: string;
  readonly oidcOrganization?: string;
  readonly oidcAdminGroup?: string;
  readonly oidcScopes?: string;
  readonly oidcPasswordSignIn?: string;
}

/** The resolved console settings. */
export interface ConsoleSettings {
  readonly enabled: boolean;
  readonly signup: SignupPolicy;
  readonly signupDomains: readonly string[];
  readonly trustProxy: boolean;
  /** Where accounts live: `sqlite:PATH` or `postgres://…`. */
  readonly accountsStore: string;
  /** Whether accounts are in a local SQLite file (one instance). */
  readonly local: boolean;
  /** Days the audit log keeps an entry (0: forever). */
  readonly auditRetentionDays: number;
  /** Single sign-on, without the public URL (known once `serve` listens); `null` without --oidc-issuer. */
  readonly sso: Omit<SsoOptions, 'publicUrl'> | null;
}

/** Adds the console options to `serve` (from the settings table). */
export function addConsoleServeOptions(serve: Command): void {
  addSettingOptions(serve, CONSOLE_SETTINGS);
}

/** Resolves the console settings from flags and environment. */
export function resolveConsoleSettings(flags: ConsoleFlags, env: NodeJS.ProcessEnv): ConsoleSettings {
  const table = resolveConsoleTable(flags as CommandFlags, env);
  const dataDir = resolveDataDir(flags.dataDir, env);
  const store = resolveStore(flags.store, env);
  // Accounts live in the --store database when it is SQL; beside a Redis store, in SQLite in the data dir.
  const storeIsSql = store !== undefined && ['postgres', 'sqlite'].includes(storeKind(store));
  const accountsStore = table.accountsStore ?? (storeIsSql ? store : `sqlite:${databasePath(dataDir)}`);
  return {
    enabled: table.console ?? true,
    signup: table.signup ?? 'open',
    signupDomains: table.signupDomains ?? [],
    trustProxy: table.trustProxy ?? false,
    accountsStore,
    local: storeKind(accountsStore) === 'sqlite',
    auditRetentionDays: table.auditRetentionDays ?? AUDIT_DEFAULTS.retentionDays,
    sso: ssoSettings(table),
  };
}

/** The SSO options of the `--oidc-*` settings; each one needed with `--oidc-issuer` is checked. */
function ssoSettings(table: ConsoleTableValues): Omit<SsoOptions, 'publicUrl'> | null {
  const { oidcIssuer: issuer, oidcClientId: clientId, oidcOrganization: organization } = table;
  if (issuer === undefined) return null;
  const missing = (flag: string, env: string) =>
    new InvalidArgumentError(`${flag} (${env}) is needed with --oidc-issuer`);
  if (clientId === undefined) throw missing('--oidc-client-id', 'CITEWISE_OIDC_CLIENT_ID');
  if (organization === undefined) throw missing('--oidc-organization', 'CITEWISE_OIDC_ORGANIZATION');
  return {
    issuer,
    clientId,
    organization,
    ...(table.oidcClientSecret !== undefined ? { clientSecret: table.oidcClientSecret } : {}),
    ...(table.oidcAdminGroup !== undefined ? { adminGroup: table.oidcAdminGroup } : {}),
    ...(table.oidcScopes !== undefined ? { scopes: table.oidcScopes } : {}),
    passwordSignIn: table.oidcPasswordSignIn ?? true,
  };
}

/** The console's stores, opened from the settings. */
export interface ConsoleStores {
  readonly accounts: AccountStore;
  readonly usage: UsageStore;
  readonly recorder: BatchingUsageRecorder;
  readonly description: string;
  close(): Promise<void>;
}

/** Opens the account and usage stores named by `accountsStore`. */
export function openConsoleStores(accountsStore: string, logger?: Logger): ConsoleStores {
  const accounts =
    storeKind(accountsStore) === 'postgres'
      ? createPostgresAccountStore(postgresOptions(accountsStore, 4))
      : createSqliteAccountStore({ path: sqlitePath(accountsStore) });
  const ledger = openUsageLedger(accountsStore, logger);
  return {
    accounts,
    usage: ledger.usage,
    recorder: ledger.recorder,
    description: redact(accountsStore),
    async close() {
      await ledger.close();
      await accounts.close?.();
    },
  };
}

/** The usage store (the credit ledger) named by `accountsStore`, with its batching recorder. */
interface UsageLedger {
  readonly usage: UsageStore;
  readonly recorder: BatchingUsageRecorder;
  /** Writes what the recorder holds, then closes the store. */
  close(): Promise<void>;
}

function openUsageLedger(accountsStore: string, logger?: Logger): UsageLedger {
  const usage =
    storeKind(accountsStore) === 'postgres'
      ? createPostgresUsageStore(postgresOptions(accountsStore, 2))
      : createSqliteUsageStore({ path: sqlitePath(accountsStore) });
  const recorder = createUsageRecorder(usage, {
    onError: (error) => logger?.warn({ err: error }, 'console: usage records not written yet; retrying'),
  });
  return {
    usage,
    recorder,
    async close() {
      await recorder.close();
      await usage.close?.();
    },
  };
}

function postgresOptions(accountsStore: string, maxConnections: number) {
  const { url, option: schema } = takeParameter(accountsStore, 'schema');
  return { connectionString: url, maxConnections, ...(schema ? { schema } : {}) };
}

function sqlitePath(accountsStore: string): string {
  return accountsStore.replace(/^sqlite:(\/\/)?/i, '');
}

/**
 * The credits service of an admin command (`keys create`, `credits grant`, `console grant`): the credit
 * store it is given, writing to the ledger where the console keeps it (the `--accounts-store`, else beside
 * keys and credits), so that the console's ledger and the balance agree whoever granted.
 */
export async function withCliCredits(
  flags: ConsoleFlags,
  store: CreditStore,
  work: (credits: CreditsService, ledger: BatchingUsageRecorder) => Promise<void>,
): Promise<void> {
  const { accountsStore } = resolveConsoleSettings({ ...flags, console: true }, process.env);
  const ledger = openUsageLedger(accountsStore);
  try {
    await work(createCreditsService({ store, ledger: ledger.recorder }), ledger.recorder);
  } finally {
    await ledger.close();
  }
}

/** The note of a grant made with the CLI, in the ledger. */
export const CLI_GRANT_NOTE = 'granted by the operator (CLI)';

/** What `serve` needs to run the console: the key store wrapper before the engine, the console after it. */
export interface ServeConsole {
  readonly settings: ConsoleSettings;
  readonly stores: ConsoleStores;
  /** Wraps the engine's key store (suspensions, playground keys). */
  wrapKeys(keys: KeyStore): ConsoleKeyStore;
  /**
   * Creates the console on the engine. `urls.resolved` is where browsers reach the service (the SSO
   * callback's base); `urls.configured` is `--public-url` when set, below which every link the console
   * builds goes (without it, links follow the request's origin).
   */
  start(
    engine: SearchEngine,
    logger: Logger,
    urls: { readonly resolved: string; readonly configured?: string | undefined },
  ): Console;
  /**
   * Whether maintenance mode is stored as on (by the operator page or `citewise console maintenance`):
   * read before the engine opens, so it holds from the first request (the console polls it afterwards).
   */
  storedMaintenance(): Promise<boolean>;
}

/** Opens the console's stores for `serve`, or returns `null` with `--no-console`. */
export function prepareServeConsole(
  flags: ConsoleFlags,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): ServeConsole | null {
  const settings = resolveConsoleSettings(flags, env);
  if (!settings.enabled) return null;
  // Opened on first use, after the key and credit stores: `serve` tells a first start by the SQLite
  // file not existing yet, and the console's tables live in the same file.
  let opened: ConsoleStores | undefined;
  const stores = () => (opened ??= openConsoleStores(settings.accountsStore, logger));
  return {
    settings,
    get stores() {
      return stores();
    },
    wrapKeys: (keys) => withConsoleKeys(keys, stores().accounts),
    storedMaintenance: async () => (await stores().accounts.getSetting('maintenance')) === 'on',
    start: (engine, log, urls) =>
      createConsole({
        ...(settings.sso ? { sso: { ...settings.sso, publicUrl: urls.resolved } } : {}),
        engine,
        accounts: stores().accounts,
        usage: stores().usage,
        recorder: stores().recorder,
        signup: settings.signup,
        signupDomains: settings.signupDomains,
        trustProxy: settings.trustProxy,
        ...(urls.configured === undefined ? {} : { publicUrl: urls.configured }),
        auditRetentionDays: settings.auditRetentionDays,
        logger: log,
      }),
  };
}

/**
 * At a start without an operator (local SQLite only: on a shared database several instances start at
 * once), writes a one-time operator setup link to `<data-dir>/operator-setup-link.txt` (mode 0600) and
 * shows it on a terminal; otherwise prints where it is.
 */
export async function offerOperatorSetup(
  serveConsole: ServeConsole,
  app: Console,
  baseUrl: string,
  dataDir: string,
  logger: Logger,
): Promise<void> {
  if (!serveConsole.settings.local || (await serveConsole.stores.accounts.hasOperator())) return;
  const link = `${baseUrl}${await app.createSetupLink()}`;
  const file = join(dataDir, 'operator-setup-link.txt');
  writeFileSync(file, `${link}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.info({ file }, 'console: no operator yet; wrote a one-time operator setup link');
  if (process.stderr.isTTY) {
    process.stderr.write(
      `\n┌ No operator yet. Open this one-time link (24 h) to become the instance operator:\n│ ${link}\n└ (also in ${file})\n\n`,
    );
  } else {
    process.stderr.write(`No operator yet: a one-time operator setup link is in ${file}\n`);
  }
}

/** Registers `citewise console …`: the operator's commands. */
export function registerConsoleCommand(program: Command): void {
  const command = program
    .command('console')
    .description('Operate the console: organizations, credits, suspensions, maintenance, the operator.');
  // The storage flags of serve, from the one settings table (flag, variable, default and meaning).
  const withStores = (sub: Command) =>
    addSettingOptions(
      addSettingOptions(sub, SERVE_SETTINGS, (name) => name === 'dataDir' || name === 'store'),
      CONSOLE_SETTINGS,
      (name) => name === 'accountsStore',
    );

  withStores(command.command('orgs').description('List organizations with members, credits and status.'))
    .option('--json', 'print JSON')
    .action(async (flags: ConsoleFlags & { json?: boolean }) =>
      run(flags, async ({ accounts, credits }) => {
        const rows = await Promise.all(
          (await accounts.listOrganizations()).map(async (o) => ({
            id: o.id,
            name: o.name,
            members: (await accounts.listMembers(o.id)).length,
            credits: await credits.balance(o.id),
            status: o.suspendedAt ? 'suspended' : 'active',
          })),
        );
        if (flags.json) console.log(JSON.stringify(rows, null, 2));
        else if (rows.length === 0) console.log('No organizations.');
        else
          for (const r of rows)
            console.log([r.id, r.status, `${r.credits} credits`, `${r.members} members`, r.name].join('  '));
      }),
    );

  withStores(
    command.command('grant').description('Grant credits to an organization (recorded in its ledger).'),
  )
    .argument('<organization>', 'organization id (see `console orgs`)')
    .argument('<n>', 'credits to add', positiveInteger)
    .action(async (organization: string, amount: number, flags: ConsoleFlags) =>
      run(flags, async ({ accounts, credits, stores }) => {
        if (!(await accounts.getOrganization(organization)))
          throw new Error(`no organization ${organization}`);
        const service = createCreditsService({ store: credits, ledger: stores.recorder });
        const balance = await service.grant(organization, amount, CLI_GRANT_NOTE);
        console.log(`Granted ${amount} credits to ${organization}; available: ${balance}.`);
        await operatorAudit(accounts, {
          action: 'credits_granted',
          organizationId: organization,
          target: organization,
          detail: `${amount} credits`,
        });
      }),
    );

  for (const [name, suspend] of [
    ['suspend', true],
    ['reactivate', false],
  ] as const) {
    withStores(
      command
        .command(name)
        .description(
          suspend
            ? 'Suspend an organization: its keys answer 401 (within 5 s on running instances).'
            : 'Reactivate a suspended organization.',
        ),
    )
      .argument('<organization>', 'organization id')
      .action(async (organization: string, flags: ConsoleFlags) =>
        run(flags, async ({ accounts }) => {
          if (!(await accounts.setSuspended(organization, suspend)))
            throw new Error(`no organization ${organization}`);
          console.log(`${suspend ? 'Suspended' : 'Reactivated'} ${organization}.`);
          await operatorAudit(accounts, {
            action: 'operator_action',
            organizationId: organization,
            target: organization,
            detail: suspend ? 'organization suspended' : 'organization reactivated',
          });
        }),
      );
  }

  withStores(
    command
      .command('maintenance')
      .description('Switch maintenance mode of every instance (503 on /v1 within 5 s).'),
  )
    .argument('<state>', 'on or off', (value: string) => {
      if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('give on or off');
      return value;
    })
    .action(async (state: 'on' | 'off', flags: ConsoleFlags) =>
      run(flags, async ({ accounts }) => {
        await accounts.setSetting('maintenance', state);
        console.log(`Maintenance ${state}.`);
        await operatorAudit(accounts, { action: 'operator_action', detail: `maintenance ${state}` });
      }),
    );

  withStores(command.command('operator').description('Make an existing console user the instance operator.'))
    .argument('<email>', 'the email the user signed up with')
    .option('--remove', 'take the operator role away instead')
    .action(async (email: string, flags: ConsoleFlags & { remove?: boolean }) =>
      run(flags, async ({ accounts }) => {
        const user = await accounts.findUserByEmail(email);
        if (!user)
          throw new Error(
            `no console user ${email}: sign up first, or use \`citewise console operator-link\``,
          );
        await accounts.setOperator(user.id, !flags.remove);
        await operatorAudit(accounts, {
          action: 'operator_action',
          target: user.email,
          detail: flags.remove ? 'operator role removed' : 'made the operator',
        });
        console.log(`${user.email} is ${flags.remove ? 'no longer' : 'now'} the operator.`);
      }),
    );

  addSettingOptions(
    withStores(
      command
        .command('operator-link')
        .description('Print a one-time link (24 h) that makes whoever opens it the operator.'),
    ),
    SERVE_SETTINGS,
    isLinkSetting,
  ).action(async (flags: LinkFlags) =>
    run(flags, async ({ app }) => {
      console.log(`${linkBase(flags)}${await app.createSetupLink()}`);
    }),
  );

  addSettingOptions(
    withStores(
      command
        .command('reset-password')
        .description(
          "Reset a console user's password: print a one-time link (24 h) that lets them choose a new one, " +
            'or with --password-stdin set it; either way every session of the account ends.',
        ),
    ),
    SERVE_SETTINGS,
    isLinkSetting,
  )
    .argument('<email>', 'the email the user signed up with')
    .option('--password-stdin', 'read the new password from standard input instead of printing a link')
    .action(async (email: string, flags: LinkFlags & { passwordStdin?: boolean }) =>
      run(flags, async ({ accounts }) => {
        const user = await accounts.findUserByEmail(email);
        if (!user) throw new Error(`no console user ${email}`);
        if (flags.passwordStdin) {
          const password = (await readStdin()).replace(/\r?\n$/, '');
          const problem = passwordProblem(password);
          if (problem) throw new Error(problem);
          await setPassword(accounts, user, password);
          await operatorAudit(accounts, {
            action: 'password_reset',
            target: user.email,
            detail: 'set by the operator (CLI)',
          });
          console.log(`Set a new password for ${user.email}; every session of the account ended.`);
          return;
        }
        console.log(`${linkBase(flags)}${await createResetLink(accounts, user)}`);
        await operatorAudit(accounts, {
          action: 'operator_action',
          target: user.email,
          detail: 'password reset link made (CLI)',
        });
      }),
    );
}

/** The settings of the service the operator commands' links point at: its public URL, else its host and port. */
const LINK_SETTINGS = new Set(['publicUrl', 'host', 'port']);

function isLinkSetting(name: string): boolean {
  return LINK_SETTINGS.has(name);
}

/** Flags of the commands that print a link. */
type LinkFlags = ConsoleFlags & { publicUrl?: string; host?: string; port?: string };

/**
 * The base of the links the operator commands print, as serve resolves its public URL: --public-url (or
 * CITEWISE_PUBLIC_URL), else `http://<host>:<port>` from --host and --port (or CITEWISE_HOST, CITEWISE_PORT,
 * else serve's defaults), the same settings the running service was started with.
 */
function linkBase(flags: LinkFlags): string {
  const resolve = <T>(setting: Setting<T>) => resolveSetting(setting, flags as CommandFlags, process.env);
  return resolvePublicUrl(
    resolve(SERVE_SETTINGS.publicUrl),
    resolve(SERVE_SETTINGS.host) ?? SERVE_SETTINGS.host.default,
    resolve(SERVE_SETTINGS.port) ?? Number(SERVE_SETTINGS.port.default),
  ).replace(/\/+$/, '');
}

/** All of standard input, as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Opened {
  readonly accounts: AccountStore;
  readonly credits: CreditStore;
  readonly stores: ConsoleStores;
  readonly app: Console;
}

async function run(flags: ConsoleFlags, work: (opened: Opened) => Promise<void>): Promise<void> {
  const env = process.env;
  const settings = resolveConsoleSettings({ ...flags, console: true }, env);
  const dataDir = resolveDataDir(flags.dataDir, env);
  const core = openCliStores({ dataDir, store: resolveStore(flags.store, env) });
  const stores = openConsoleStores(settings.accountsStore);
  try {
    const { createSearchEngine } = await import('../engine/index.ts');
    const engine = createSearchEngine({
      keys: withConsoleKeys(core.keys, stores.accounts),
      credits: core.credits,
      rateLimiter: false,
      fetcher: false,
      extractor: false,
    });
    const app = createConsole({
      engine,
      accounts: stores.accounts,
      usage: stores.usage,
      recorder: stores.recorder,
      settingsPollMs: 3_600_000,
    });
    await work({ accounts: stores.accounts, credits: core.credits, stores, app });
    await app.close();
  } finally {
    await stores.close();
    await core.close();
  }
}

/** An operator command's audit entry (actor `operator`, no address). */
function operatorAudit(accounts: AccountStore, entry: Omit<NewAuditEntry, 'actor'>): Promise<AuditEntry> {
  return accounts.appendAudit({ ...entry, actor: 'operator' });
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError('must be a positive whole number');
  }
  return parsed;
}
