#!/usr/bin/env node
/**
 * The `citewise` command: `serve`, `keys create|list|revoke`, `credits grant|balance`.
 * Keys and balances live in SQLite inside the data directory, so the CLI can manage them while the
 * server runs.
 */
import { recordCliAudit, registerAuditCommand } from './audit-command.ts';
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import { mkdirSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { limitConnections } from '../http/connection-limits.ts';
import { isLoopbackHost, LOOPBACK_HOST_NAMES } from '../mcp/hosts.ts';
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import {
  createSearchEngine,
  ENGINE_DEFAULTS,
  type Logger,
  type SearchEngineOptions,
} from '../engine/index.ts';
import { modelEnvironment, resolveEmbeddingModel, resolveModel } from '../models/index.ts';
import { withResilience } from '../resilience/index.ts';
import { createPageFetcher } from '../pipeline/fetch/index.ts';
import { createSearchProviderFromSpec } from '../pipeline/search/providers/index.ts';
import { createLocalIndexProvider } from '../pipeline/search/local-index.ts';
import { openDataDirIndex } from '../index-builder/store.ts';
import { registerIndexCommand } from './index-command.ts';
import { createServeListener, registerMcpCommand } from './mcp-command.ts';
import { registerWorkerCommand } from './worker-command.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import type { PageFetcher, SearchProvider } from '../pipeline/types.ts';
import { openCliStores, type CliStores } from './stores.ts';
import { PACKAGE_VERSION } from '../package-info.ts';
import { createConsoleNodeHandler } from '../console/adapters.ts';
import {
  addConsoleServeOptions,
  CLI_GRANT_NOTE,
  offerOperatorSetup,
  prepareServeConsole,
  registerConsoleCommand,
  type ServeConsole,
  withCliCredits,
} from './console-command.ts';
import type { UsageRecorder } from '../stores/account-types.ts';
import type { KeyBudget, KeyRecord } from '../stores/types.ts';
import { describeBudget, formatBudget, parseBudget } from '../stores/budgets.ts';
import { registerKeyBudgetCommand } from './budget-command.ts';
import {
  addSettingOptions,
  environmentHelp,
  parseDuration,
  resolveDataDir,
  resolvePublicUrl,
  resolveServeConfig,
  resolveStore,
  type CommandFlags,
  type ServeConfig,
} from './config.ts';
import { CONSOLE_SETTINGS, parseNonNegativeInteger, SERVE_SETTINGS } from './settings.ts';
import { firstKeyPath, firstKeyText, writeFirstKey, type FirstKeyNotice } from './first-key.ts';
import { sqliteFiles, widerThanOwner } from './file-modes.ts';
import { corpusFolders, noAnswerTextFor } from './corpus.ts';
import { openSignupExposure } from './exposure.ts';
import { checkSearchRequirements, modelRequirementError } from './requirements.ts';

const env = process.env;

/** Builds the command tree (exported for tests of `--help`). */
export function buildProgram(): Command {
  const program = new Command('citewise')
    .version(PACKAGE_VERSION)
    .description('Web search answers for AI agents: a self-hostable /v1 search service and its admin tools.')
    .showHelpAfterError()
    .addHelpText('after', `\n${environmentHelp()}`);

  const serveCommand = program
    .command('serve')
    .description('Start the HTTP service (POST /v1/search, GET /v1/balance).');
  addSettingOptions(serveCommand, SERVE_SETTINGS).action(async (flags: CommandFlags) => serve(flags));

  const keys = program.command('keys').description('Create, list and revoke API keys.');
  withLedgerOptions(
    keys.command('create').description('Create an API key (printed once, as the last line of output).'),
  )
    .option('--account <id>', 'an existing account the key spends from (default: a new account)')
    .option('--create-account', 'create the --account if it does not exist yet')
    .option(
      '--credits <n>',
      `credits of the account when this command creates it (default: ${ENGINE_DEFAULTS.freeCredits})`,
      integerOption(),
    )
    .option('--expires-in <duration>', 'key lifetime, e.g. 30d, 12h (default: never)', durationOption)
    .option('--name <label>', 'a label to tell keys apart')
    .option(
      '--budget <credits[/day|/month]>',
      'what the key may spend a UTC day, a UTC month or in all, e.g. 500/day (default: no budget)',
      commanderParser(parseBudget),
    )
    .action(async (flags: KeyCreateFlags) => {
      await withStores(flags, async (stores) =>
        withCliCredits(flags, stores.credits, (_credits, ledger) => createKeyCommand(stores, flags, ledger)),
      );
    });
  withStoreOptions(
    keys.command('list').description('List keys (never the keys themselves, only their first characters).'),
  )
    .option('--account <id>', 'only keys of this account')
    .option('--json', 'print JSON')
    .action(async (flags: StoreFlags & { account?: string; json?: boolean }) => {
      await withStores(flags, async (stores) => {
        const records = await stores.keys.list(flags.account);
        const now = Date.now();
        const withStatus = records.map((record) => ({ ...record, status: keyStatus(record, now) }));
        if (flags.json) console.log(JSON.stringify(withStatus, null, 2));
        else printKeyTable(withStatus);
      });
    });
  withLedgerOptions(
    keys
      .command('revoke')
      .description('Revoke a key by id (it stops working at once).')
      .argument('<id>', 'key id, as shown by `keys list`'),
  ).action(async (id: string, flags: StoreFlags) => {
    await withStores(flags, async (stores) => {
      if (!(await stores.keys.revoke(id))) throw new Error(`no key with id ${id}`);
      console.log(`Revoked ${id}.`);
      const record = (await stores.keys.list()).find((k) => k.id === id);
      await recordCliAudit(flags, {
        actor: 'cli',
        action: 'key_revoked',
        organizationId: record?.accountId ?? null,
        target: id,
        detail: record?.name ?? null,
      });
    });
  });

  registerKeyBudgetCommand(keys, withLedgerOptions, withStores);

  const credits = program.command('credits').description('Grant and inspect credits.');
  withLedgerOptions(
    credits
      .command('grant')
      .description('Add credits to an existing account (with --create-account: to a new one).')
      .argument('<account>', 'account id')
      .argument('<n>', 'credits to add', integerOption()),
  )
    .option('--create-account', 'create the account (with these credits) if it does not exist yet')
    .action(async (account: string, amount: number, flags: StoreFlags & { createAccount?: boolean }) => {
      await withStores(flags, async (stores) => {
        if (!flags.createAccount && !(await stores.credits.hasAccount(account))) {
          throw new Error(
            `no account ${account}: check the id (keys list shows them) or add --create-account`,
          );
        }
        await withCliCredits(flags, stores.credits, async (service) => {
          const balance = await service.grant(account, amount, CLI_GRANT_NOTE);
          console.log(`Granted ${amount} credits to ${account}; available: ${balance}.`);
          await recordCliAudit(flags, {
            actor: 'cli',
            action: 'credits_granted',
            organizationId: account,
            target: account,
            detail: `${amount} credits`,
          });
        });
      });
    });
  withStoreOptions(
    credits
      .command('balance')
      .description('Show the available credits of an account.')
      .argument('<account>', 'account id'),
  ).action(async (account: string, flags: StoreFlags) => {
    await withStores(flags, async (stores) => {
      if (!(await stores.credits.hasAccount(account))) throw new Error(`no account ${account}`);
      console.log(String(await stores.credits.balance(account)));
    });
  });
  withStoreOptions(
    program
      .command('migrate')
      .description('Apply pending schema migrations of the --store database (PostgreSQL), then exit.'),
  ).action(async (flags: StoreFlags) => {
    await withStores(flags, async (stores) => {
      console.log(`${stores.description}: ${await stores.migrate()}.`);
    });
  });
  registerIndexCommand(program);
  registerMcpCommand(program, (config, logger) => openEngine(config, logger));
  registerWorkerCommand(program, (config, logger) => openEngine(config, logger));
  // After `mcp` copied serve's options: the console options are serve's alone.
  addConsoleServeOptions(program.commands.find((command) => command.name() === 'serve')!);
  registerConsoleCommand(program);
  registerAuditCommand(program);
  return program;
}

/** Adds the shared `--data-dir` and `--store` flags (from the settings table) to an admin command. */
function withStoreOptions(command: Command): Command {
  return addSettingOptions(command, SERVE_SETTINGS, (name) => name === 'dataDir' || name === 'store');
}

/** The store flags and `--accounts-store` (where the credit ledger is), for a command that grants credits. */
function withLedgerOptions(command: Command): Command {
  return addSettingOptions(withStoreOptions(command), CONSOLE_SETTINGS, (name) => name === 'accountsStore');
}

interface KeyCreateFlags extends StoreFlags {
  readonly account?: string;
  readonly createAccount?: boolean;
  readonly credits?: number;
  readonly expiresIn?: number;
  readonly name?: string;
  readonly budget?: KeyBudget;
}

/**
 * `keys create`: an unknown `--account` is refused unless `--create-account` (a typo must not open a new
 * account with free credits), and `--credits` is refused when no account is created (it would be ignored).
 */
async function createKeyCommand(
  stores: CliStores,
  flags: KeyCreateFlags,
  ledger: UsageRecorder,
): Promise<void> {
  const accountExists = flags.account !== undefined && (await stores.credits.hasAccount(flags.account));
  if (flags.account !== undefined && !accountExists && !flags.createAccount) {
    throw new Error(
      `no account ${flags.account}: check the id (keys list shows them) or add --create-account to create it`,
    );
  }
  if (accountExists && flags.credits !== undefined) {
    throw new Error(
      `--credits applies only when an account is created, and ${flags.account} exists; ` +
        `use: citewise credits grant ${flags.account} ${flags.credits}`,
    );
  }
  const engine = createSearchEngine({
    keys: stores.keys,
    credits: stores.credits,
    usage: ledger,
    rateLimiter: false,
  });
  const { key, record, accountCreated } = await engine.createKey({
    ...(flags.account ? { accountId: flags.account } : {}),
    ...(flags.credits !== undefined ? { credits: flags.credits } : {}),
    ...(flags.name ? { name: flags.name } : {}),
    ...(flags.expiresIn ? { expiresAt: Date.now() + flags.expiresIn } : {}),
    ...(flags.budget ? { budget: flags.budget } : {}),
  });
  const balance = await stores.credits.balance(record.accountId);
  const expires =
    (record.expiresAt ? `, expires ${new Date(record.expiresAt).toISOString()}` : '') +
    (record.budget ? `, budget ${describeBudget(record.budget)}` : '');
  console.log(
    `Created key ${record.id} for ${accountCreated ? 'new ' : ''}account ${record.accountId} ` +
      `(${balance} credits${expires}).`,
  );
  console.log('Store it now: the key cannot be shown again.');
  console.log(key);
  await recordCliAudit(flags, {
    actor: 'cli',
    action: 'key_created',
    organizationId: record.accountId,
    target: record.id,
    detail:
      [record.name, record.budget ? `budget ${describeBudget(record.budget)}` : null]
        .filter(Boolean)
        .join(', ') || null,
  });
}

/**
 * Opens the stores and the engine from `serve`'s settings (shared by `serve` and `mcp`). `publicUrl` is
 * where clients reach the service (the base of corpus document URLs); `serve` passes its own address.
 */
async function openEngine(
  config: ServeConfig,
  logger: Logger,
  metrics?: Metrics,
  publicUrl: string = resolvePublicUrl(config.publicUrl, config.host, config.port),
  serveConsole?: ServeConsole | null,
) {
  // Refuse, before anything opens, settings that would only fail on the first search.
  checkSearchRequirements(config);
  for (const spec of [config.model, config.embeddingModel]) {
    const problem = spec === undefined ? undefined : modelRequirementError(spec, config, env);
    if (problem) throw new Error(problem);
  }
  const folders = corpusFolders(config);
  // The index `citewise index` builds (index.sqlite, or the shared PostgreSQL index), read at search time;
  // a legacy index.json is migrated into it first.
  const documentIndex = await openDataDirIndex(config.dataDir, {
    ...(config.indexStore === 'sqlite' ? {} : { indexStore: config.indexStore }),
    log: (message) => logger.info({ dataDir: config.dataDir }, message),
  });
  const local = createLocalIndexProvider({
    paths: folders.paths,
    fallbackPaths: folders.fallbackPaths,
    documentIndex: documentIndex.index,
    // Documents are served by the engine at <publicUrl>/docs/…; their sources are those URLs.
    publicUrl,
  });
  // The corpus folders are read, and the document index opened, now rather than in the first search (a
  // failure is left to that search, which tries again and answers with the error).
  await local.load().catch(() => undefined);
  const models = await modelsFor(config);
  const noAnswerText = noAnswerTextFor(config.search, local);
  const stores = openStores({
    dataDir: config.dataDir,
    store: config.store,
    limitsStore: config.limitsStore,
  });
  // Read before the engine opens (the console's stores after the key and credit stores: see
  // prepareServeConsole): applied a query later, a restart would serve searches for that long.
  const maintenance = config.maintenance || ((await serveConsole?.storedMaintenance()) ?? false);
  const engine = createSearchEngine({
    keys: serveConsole ? serveConsole.wrapKeys(stores.keys) : stores.keys,
    ...(serveConsole ? { usage: serveConsole.stores.recorder } : {}),
    credits: stores.credits,
    rateLimiter: stores.rateLimiter(config.rateLimit),
    // On the store's backend, so a retry sent to another instance replays instead of charging again.
    idempotency: stores.idempotency,
    search: searchProviderFor(config, local),
    // Accounts' documents, in the same index (owned by their account): POST /v1/documents.
    documents: {
      index: documentIndex.index,
      maxDocuments: config.maxAccountDocuments,
      maxBytes: config.maxAccountDocumentBytes,
    },
    corpus: folders.served,
    ...(config.synonyms ? { synonyms: config.synonyms } : {}),
    publicUrl,
    indexedFiles: local.indexedFile,
    fetcher: fetcherFor(config, metrics),
    contentCache: config.contentCacheBytes > 0 ? { maxBytes: config.contentCacheBytes } : false,
    creditCost: config.creditCost,
    extractCreditCost: config.extractCreditCost,
    extractFailedShare: config.extractFailedShare,
    strictGrounding: config.strictGrounding,
    tavilyPrefix: config.tavilyPrefix,
    maxResults: config.maxResults,
    expandToResults: config.expandToResults,
    minQueryCoverage: config.minQueryCoverage,
    minDeeperPageMentions: config.minDeeperPageMentions,
    minDeeperSnippetCoverage: config.minDeeperSnippetCoverage,
    cheapResults: config.cheapResults,
    maxPassageTokens: config.maxPassageTokens,
    research: {
      maxHops: config.researchMaxHops,
      maxQueries: config.researchMaxQueries,
      maxPages: config.researchMaxPages,
      maxPassageTokens: config.researchMaxPassageTokens,
      maxLatencyMs: config.researchMaxLatencyMs,
      creditsPerQuery: config.researchCreditsPerQuery,
    },
    requestTimeoutMs: config.requestTimeoutMs,
    maxConcurrentSearches: config.maxConcurrentSearches,
    maxQueuedSearches: config.maxQueuedSearches,
    maxAccountShare: config.maxAccountShare,
    ...(config.maxLatencyMs === undefined ? {} : { maxLatencyMs: config.maxLatencyMs }),
    ...(config.stragglerGraceMs === undefined ? {} : { stragglerGraceMs: config.stragglerGraceMs }),
    maintenance,
    logger,
    ...models,
    ...(noAnswerText ? { noAnswerText } : {}),
    ...(metrics ? { metrics: metrics.hook } : {}),
    // Research jobs on the store's own queue: they survive restarts and spread over instances.
    jobs: {
      queue: stores.jobQueue({ leaseMs: config.jobLeaseMs }),
      workers: config.jobWorkers,
      maxQueuedPerAccount: config.maxQueuedJobs,
      ...(config.maxAccountJobs === undefined ? {} : { maxRunningPerAccount: config.maxAccountJobs }),
      maxStreamsPerKey: config.maxStreamsPerKey,
      maxStreamsPerAccount: config.maxStreamsPerAccount,
      leaseMs: config.jobLeaseMs,
      ...(config.webhookSecret ? { webhookSecret: config.webhookSecret } : {}),
      // Webhooks have their own allow-list: hosts opened to the page fetcher stay closed to them.
      ...(config.allowWebhookHosts?.length ? { allowPrivateHosts: config.allowWebhookHosts } : {}),
    },
  });
  return {
    engine,
    stores,
    documentIndex,
    close: () =>
      engine
        .close()
        .then(() => stores.close())
        .finally(() => documentIndex.close()),
  };
}

/** The answer and embedding models of `--model` / `--embedding-model`, keys from the providers' variables. */
async function modelsFor(
  config: ServeConfig,
): Promise<Pick<SearchEngineOptions, 'model' | 'embeddingModel' | 'modelFallback'>> {
  const connection = (spec: string) => ({
    ...modelEnvironment(spec, env),
    ...(config.modelBaseUrl ? { baseUrl: config.modelBaseUrl } : {}),
  });
  return {
    ...(config.model ? { model: await resolveModel(config.model, connection(config.model)) } : {}),
    ...(config.embeddingModel
      ? {
          embeddingModel: await resolveEmbeddingModel(
            config.embeddingModel,
            modelEnvironment(config.embeddingModel, env),
          ),
        }
      : {}),
    modelFallback: config.modelFallback,
  };
}

/** The page fetcher of `serve`, with its per-host limits: counted when metrics are on. */
function fetcherFor(config: ServeConfig, metrics: Metrics | undefined): PageFetcher {
  const allowPrivateHosts = config.allowPrivateHosts ?? [];
  const create = () =>
    createPageFetcher({
      perHostConcurrency: config.perHostConcurrency,
      perHostRate: config.perHostRate,
      perHostBurst: config.perHostBurst,
      ...(allowPrivateHosts.length ? { allowPrivateHosts } : {}),
    });
  return metrics ? metrics.instrumentFetcher(create) : create();
}

async function serve(flags: CommandFlags): Promise<void> {
  const config = resolveServeConfig(flags, env);
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.apiKey', '*.key'] });
  const metrics = config.metricsPath ? createMetrics() : undefined;
  // Listen first: with --port 0 the port, and so the public URL of corpus documents, is known only then.
  // Requests that arrive before the engine is open are answered 503, except the liveness probe: the
  // process serves HTTP, so /healthz is 200 (/readyz says 503 until the service can take searches).
  const opened: { listener?: RequestListener } = {};
  const server = createServer((req, res) => {
    if (opened.listener) return opened.listener(req, res);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    if (new URL(req.url ?? '/', 'http://localhost').pathname === '/healthz') {
      return res.writeHead(200, json).end(JSON.stringify({ status: 'ok' }));
    }
    res.writeHead(503, { ...json, 'retry-after': '1' });
    res.end(JSON.stringify({ error: { description: 'Service Unavailable: starting' } }));
  });
  // Caps on open connections; idle and slow ones make room first (a flood cannot keep requests out).
  limitConnections(server, {
    maxConnections: config.maxConnections,
    maxConnectionsPerAddress: config.maxConnectionsPerAddress,
  });
  // Cut slow clients: headers must arrive within 15 s and the whole request within 60 s.
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  await listen(server, config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const publicUrl = resolvePublicUrl(config.publicUrl, config.host, port);
  const serveConsole = prepareServeConsole(flags, env, logger);
  const { engine, stores, documentIndex } = await openEngine(
    config,
    logger,
    metrics,
    publicUrl,
    serveConsole,
  );
  const consoleApp =
    serveConsole?.start(engine, logger, { resolved: publicUrl, configured: config.publicUrl }) ?? null;
  // Web pages are extracted on worker threads: start them now, not in the first search.
  if (config.search.split(/[,+]/).some((name) => name.trim() !== 'local')) await engine.warm();
  warnOfWideFiles(config, stores, serveConsole, logger);
  // Only a new local database gets a first key: on a shared store (Redis, PostgreSQL) several instances
  // start at once, so its keys are made with `citewise keys create --store …`.
  const firstStart = stores.createdLocalDatabase;

  let firstKey: Omit<FirstKeyNotice, 'baseUrl'> | undefined;
  if (firstStart && (await stores.keys.list()).length === 0) {
    const { key, record } = await engine.createKey();
    // Written before listening, so a start that fails (port taken) does not lose the key.
    const file = await writeFirstKey(config.dataDir, key);
    const credits = await stores.credits.balance(record.accountId);
    firstKey = { key, accountId: record.accountId, credits, file };
    // The log says only that a key was made and where it is, never the key.
    logger.info({ file }, 'first key created');
  }

  // /v1, MCP (Streamable HTTP) at /mcp with the same API keys, and metrics at --metrics-path if given.
  const listener = createServeListener(engine, {
    logger,
    ...(metrics ? { metrics, metricsPath: config.metricsPath } : {}),
    ...mcpHostsOption(config.mcpAllowedHosts, config.host),
  });
  // The console (at /, its own paths) in front of /v1, MCP and metrics; everything else falls through.
  const consoleListener = consoleApp ? createConsoleNodeHandler(consoleApp) : null;
  opened.listener = consoleListener
    ? (req, res) => consoleListener(req, res, () => listener(req, res))
    : listener;
  const corpus = corpusFolders(config).description;
  const baseUrl = `http://${formatHost(config.host)}:${port}`;
  if (serveConsole && consoleApp) {
    await offerOperatorSetup(serveConsole, consoleApp, publicUrl, config.dataDir, logger);
  }
  // stdout holds JSON log lines only (the `ready` line has the URL); a person at a terminal reads it on stderr.
  if (process.stderr.isTTY) process.stderr.write(`citewise listening on ${baseUrl}\n`);
  if (firstKey) process.stderr.write(firstKeyText({ ...firstKey, baseUrl }, process.stderr.isTTY === true));
  const exposure = openSignupExposure(config.host, serveConsole?.settings, ENGINE_DEFAULTS.freeCredits);
  if (exposure) logger.warn(exposure.fields, exposure.message);
  logger.info(
    {
      url: baseUrl,
      port,
      host: config.host,
      dataDir: config.dataDir,
      search: config.search,
      corpus,
      maintenance: config.maintenance,
    },
    'ready',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop accepting; idle keep-alive sockets close now, busy ones after their response.
    server.close(() => {
      void (consoleApp?.close() ?? Promise.resolve())
        .then(() => engine.close())
        .then(() => stores.close())
        .then(() => documentIndex.close())
        .then(() => serveConsole?.stores.close())
        .then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => {
      logger.warn('in-flight requests did not finish within 30 s; exiting');
      process.exit(1);
    }, 30_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Logs the data files that other users of the machine can read (see file-modes.ts). */
function warnOfWideFiles(
  config: ServeConfig,
  stores: CliStores,
  serveConsole: ServeConsole | null,
  logger: Logger,
): void {
  const accounts = serveConsole?.settings.accountsStore;
  const files = [
    config.dataDir,
    ...(stores.localDatabase ? sqliteFiles(stores.localDatabase) : []),
    ...(accounts?.startsWith('sqlite:') ? sqliteFiles(accounts.replace(/^sqlite:(\/\/)?/i, '')) : []),
    firstKeyPath(config.dataDir),
  ];
  for (const { path, mode, wanted } of widerThanOwner(files)) {
    logger.warn(
      { path, mode },
      `${path} is open to other users (mode ${mode}) and holds password hashes, key hashes or the ledger: chmod ${wanted} ${path}`,
    );
  }
}

/** The search provider of a `--search` spec; `local` is the index over the corpus folders. */
function searchProviderFor(config: ServeConfig, local: SearchProvider): SearchProvider {
  return createSearchProviderFromSpec(config.search, {
    // Each web provider gets its own retries (within the deadline) and circuit breaker.
    wrapProvider: (provider) => withResilience(provider),
    timeoutMs: config.searchTimeoutMs,
    ...(config.searxngUrl ? { searxng: { baseUrl: config.searxngUrl, pages: config.searxngPages } } : {}),
    ...(config.braveApiKey ? { brave: { apiKey: config.braveApiKey } } : {}),
    ...(config.tavilyApiKey ? { tavily: { apiKey: config.tavilyApiKey } } : {}),
    ...(config.serperApiKey ? { serper: { apiKey: config.serperApiKey } } : {}),
    ...(config.exaApiKey ? { exa: { apiKey: config.exaApiKey } } : {}),
    wikipedia: { language: config.wikipediaLanguage },
    providers: { local },
  });
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

interface StoreFlags {
  readonly dataDir?: string;
  readonly store?: string;
  readonly limitsStore?: string;
}

function openStores(flags: StoreFlags): CliStores {
  const dataDir = resolveDataDir(flags.dataDir, env);
  const store = resolveStore(flags.store, env);
  // The data directory holds the database (password hashes, keys, the ledger): its owner's only.
  if (!store) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return openCliStores({ dataDir, store, limitsStore: flags.limitsStore });
}

async function withStores(flags: StoreFlags, work: (stores: CliStores) => Promise<void>): Promise<void> {
  const stores = openStores(flags);
  try {
    await work(stores);
  } finally {
    await stores.close();
  }
}

/** Whether a key works: `revoked`, `expired` (its expiry passed) or `active`. */
function keyStatus(record: KeyRecord, now: number): 'active' | 'revoked' | 'expired' {
  if (record.revokedAt !== null) return 'revoked';
  return record.expiresAt !== null && record.expiresAt <= now ? 'expired' : 'active';
}

function printKeyTable(records: readonly (KeyRecord & { status: string })[]): void {
  if (records.length === 0) {
    console.log('No keys.');
    return;
  }
  const rows = records.map((r) => [
    r.id,
    r.accountId,
    `${r.prefix}…`,
    r.name ?? '',
    new Date(r.createdAt).toISOString().slice(0, 19) + 'Z',
    r.expiresAt ? new Date(r.expiresAt).toISOString().slice(0, 19) + 'Z' : 'never',
    r.status,
    r.budget ? formatBudget(r.budget) : '',
  ]);
  const header = ['ID', 'ACCOUNT', 'KEY', 'NAME', 'CREATED', 'EXPIRES', 'STATUS', 'BUDGET'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

/** A commander argument parser from a settings parser (commander names the flag in its error). */
function commanderParser<T>(parse: (text: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError(`It ${(error as Error).message}.`);
    }
  };
}

const integerOption = () => commanderParser(parseNonNegativeInteger);
const durationOption = commanderParser(parseDuration);

/** Runs the CLI; errors print one line to stderr and exit 1. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    console.error(`citewise: ${error instanceof Error ? error.message : String(error)}`);
    // Exit now: an open store connection (Redis, PostgreSQL) would otherwise keep the process alive.
    process.exit(1);
  }
}

if (import.meta.main) await main();

/**
 * Host names accepted at /mcp: the list given (`*` = any host), else the loopback names when the service
 * listens on loopback (a DNS-rebinding guard), else any host.
 */
function mcpHostsOption(
  given: readonly string[] | undefined,
  host: string,
): { mcpAllowedHosts?: readonly string[] } {
  if (given === undefined) return isLoopbackHost(host) ? { mcpAllowedHosts: LOOPBACK_HOST_NAMES } : {};
  return given.includes('*') ? {} : { mcpAllowedHosts: given };
}
