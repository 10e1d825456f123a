#!/usr/bin/env node
/**
 * The `citewise` command: `serve`, `keys create|list|revoke`, `credits grant|balance`.
 * Keys and balances live in SQLite inside the data directory, so the CLI can manage them while the
 * server runs.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import {
  createSearchEngine,
  DEFAULT_CORPUS,
  FREE_CREDITS,
  type Logger,
  type SearchEngineOptions,
} from '../engine.ts';
import { modelEnvironment, resolveEmbeddingModel, resolveModel } from '../models/index.ts';
import { withResilience } from '../resilience/index.ts';
import { createPageFetcher } from '../pipeline/fetch/index.ts';
import { createSearchProviderFromSpec } from '../pipeline/search/providers/index.ts';
import { createLocalIndexProvider } from '../pipeline/search/local-index.ts';
import { indexFilePath } from '../index-builder/store.ts';
import { registerIndexCommand } from './index-command.ts';
import { createServeListener, registerMcpCommand } from './mcp-command.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import type { PageFetcher, SearchProvider } from '../pipeline/types.ts';
import { openCliStores, type CliStores } from './stores.ts';
import { createConsoleNodeHandler } from '../console/adapters.ts';
import {
  addConsoleServeOptions,
  offerOperatorSetup,
  prepareServeConsole,
  registerConsoleCommand,
  type ConsoleFlags,
  type ServeConsole,
} from './console-command.ts';
import type { KeyRecord } from '../stores/types.ts';
import {
  ENVIRONMENT_VARIABLES,
  parseDuration,
  parseNonNegativeInteger,
  resolveDataDir,
  resolveServeConfig,
  resolveStore,
  type ServeConfig,
  type ServeFlags,
} from './config.ts';

const env = process.env;

/** Builds the command tree (exported for tests of `--help`). */
export function buildProgram(): Command {
  const program = new Command('citewise')
    .description('Web search answers for AI agents: a self-hostable /v1 search service and its admin tools.')
    .showHelpAfterError()
    .addHelpText(
      'after',
      `\nEnvironment variables (a flag wins over its variable):\n${Object.entries(ENVIRONMENT_VARIABLES)
        .map(([name, flag]) => `  ${name.padEnd(26)} ${flag}`)
        .join('\n')}`,
    );

  program
    .command('serve')
    .description('Start the HTTP service (POST /v1/search, GET /v1/balance).')
    .option('--port <port>', 'TCP port (default: 8787)')
    .option('--host <host>', 'interface to listen on (default: 127.0.0.1)')
    .option('--data-dir <dir>', 'where keys and credits are stored (default: .citewise)')
    .option('--corpus <dir...>', "folders the local index searches (default: the package's docs/)")
    .option('--rate-limit <n/window>', 'search requests per key and window, e.g. 60/1m (default: 60/1m)')
    .option('--credit-cost <n>', 'credits charged per search (default: 1)')
    .option('--maintenance', 'answer every /v1 request with 503')
    .option('--log-level <level>', 'pino log level: fatal, error, warn, info, debug, silent (default: info)')
    .option('--store <url>', STORE_HELP)
    .option(
      '--limits-store <url>',
      'where rate limits live if not in --store: redis://… (shared) or memory: (per instance; the default for postgres://)',
    )
    .option(
      '--search <spec>',
      'search providers: local, searxng, brave, tavily, serper, exa, wikipedia, duckduckgo; "a,b" = fallback, ' +
        '"a+b" = fusion (default: local)',
    )
    .option('--searxng-url <url>', 'base URL of your SearXNG instance (JSON output enabled)')
    .option('--searxng-pages <n>', 'most SearXNG result pages read for one query (default: 1)')
    .option(
      '--model <provider:model-id>',
      'answer with a model: openai:gpt-4o-mini, anthropic:claude-…, google:gemini-…, ollama:llama3.2, ' +
        'openai-compatible:<id> with --model-base-url (default: extractive answers, no model)',
    )
    .option(
      '--model-base-url <url>',
      'base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio)',
    )
    .option(
      '--embedding-model <provider:model-id>',
      're-rank passages with embeddings, e.g. openai:text-embedding-3-small',
    )
    .option('--model-fallback', 'answer extractively when the model fails, instead of a 500')
    .option('--wikipedia-lang <code>', 'Wikipedia language edition (default: en)')
    .option('--search-timeout <duration>', 'per-provider timeout (default: 10s)')
    .option('--max-results <n>', 'search results read first per request (default: 5)')
    .option(
      '--expand-to-results <n>',
      'most results read when the first ones do not cover the question (default: 40; = --max-results: never)',
    )
    .option(
      '--min-query-coverage <0-1>',
      "share of the question's words the best passage must hold to stop reading (default: 0.8)",
    )
    .option('--max-passage-tokens <n>', 'token budget of the passages given to the answerer (default: 4000)')
    .option('--request-timeout <duration>', 'deadline of one search request (default: 30s)')
    .option(
      '--allow-private-hosts <hosts>',
      'comma-separated hosts the fetcher may reach on private addresses, e.g. an intranet wiki (default: none)',
    )
    .option('--metrics-path <path>', 'serve Prometheus metrics at this path, e.g. /metrics (default: off)')
    .action(async (flags: ServeFlags & { metricsPath?: string }) => serve(flags));

  const keys = program.command('keys').description('Create, list and revoke API keys.');
  keys
    .command('create')
    .description('Create an API key (printed once, as the last line of output).')
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .option('--store <url>', STORE_HELP)
    .option('--account <id>', 'account the key spends from (default: a new account)')
    .option(
      '--credits <n>',
      `credits of a NEW account (default: ${FREE_CREDITS})`,
      integerOption('--credits'),
    )
    .option('--expires-in <duration>', 'key lifetime, e.g. 30d, 12h (default: never)', durationOption)
    .option('--name <label>', 'a label to tell keys apart')
    .action(
      async (flags: {
        dataDir?: string;
        account?: string;
        credits?: number;
        expiresIn?: number;
        name?: string;
      }) => {
        await withStores(flags, async (stores) => {
          const engine = createSearchEngine({
            keys: stores.keys,
            credits: stores.credits,
            rateLimiter: false,
          });
          const { key, record, accountCreated } = await engine.createKey({
            ...(flags.account ? { accountId: flags.account } : {}),
            ...(flags.credits !== undefined ? { credits: flags.credits } : {}),
            ...(flags.name ? { name: flags.name } : {}),
            ...(flags.expiresIn ? { expiresAt: Date.now() + flags.expiresIn } : {}),
          });
          const balance = await stores.credits.balance(record.accountId);
          console.log(
            `Created key ${record.id} for ${accountCreated ? 'new ' : ''}account ${record.accountId} ` +
              `(${balance} credits${record.expiresAt ? `, expires ${new Date(record.expiresAt).toISOString()}` : ''}).`,
          );
          console.log('Store it now: the key cannot be shown again.');
          console.log(key);
        });
      },
    );
  keys
    .command('list')
    .description('List keys (never the keys themselves, only their first characters).')
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .option('--store <url>', STORE_HELP)
    .option('--account <id>', 'only keys of this account')
    .option('--json', 'print JSON')
    .action(async (flags: { dataDir?: string; account?: string; json?: boolean }) => {
      await withStores(flags, async (stores) => {
        const records = await stores.keys.list(flags.account);
        if (flags.json) console.log(JSON.stringify(records, null, 2));
        else printKeyTable(records);
      });
    });
  keys
    .command('revoke')
    .description('Revoke a key by id (it stops working at once).')
    .argument('<id>', 'key id, as shown by `keys list`')
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .option('--store <url>', STORE_HELP)
    .action(async (id: string, flags: { dataDir?: string }) => {
      await withStores(flags, async (stores) => {
        if (!(await stores.keys.revoke(id))) throw new Error(`no key with id ${id}`);
        console.log(`Revoked ${id}.`);
      });
    });

  const credits = program.command('credits').description('Grant and inspect credits.');
  credits
    .command('grant')
    .description('Add credits to an account (creating it if needed).')
    .argument('<account>', 'account id')
    .argument('<n>', 'credits to add', integerOption('<n>'))
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .option('--store <url>', STORE_HELP)
    .action(async (account: string, amount: number, flags: { dataDir?: string }) => {
      await withStores(flags, async (stores) => {
        const balance = await stores.credits.grant(account, amount);
        console.log(`Granted ${amount} credits to ${account}; available: ${balance}.`);
      });
    });
  credits
    .command('balance')
    .description('Show the available credits of an account.')
    .argument('<account>', 'account id')
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .option('--store <url>', STORE_HELP)
    .action(async (account: string, flags: { dataDir?: string }) => {
      await withStores(flags, async (stores) => {
        if (!(await stores.credits.hasAccount(account))) throw new Error(`no account ${account}`);
        console.log(String(await stores.credits.balance(account)));
      });
    });
  program
    .command('migrate')
    .description('Apply pending schema migrations of the --store database (PostgreSQL), then exit.')
    .option('--store <url>', STORE_HELP)
    .option('--data-dir <dir>', 'data directory (default: .citewise)')
    .action(async (flags: StoreFlags) => {
      await withStores(flags, async (stores) => {
        console.log(`${stores.description}: ${await stores.migrate()}.`);
      });
    });
  registerIndexCommand(program);
  registerMcpCommand(program, (config, logger) => openEngine(config, logger));
  // After `mcp` copied serve's options: the console options are serve's alone.
  addConsoleServeOptions(program.commands.find((command) => command.name() === 'serve')!);
  registerConsoleCommand(program);
  return program;
}

const STORE_HELP =
  'where keys and credits live: redis://…, postgres://…, sqlite:PATH (default: SQLite in the data dir; ' +
  'env CITEWISE_STORE)';

/** Opens the stores and the engine from `serve`'s settings (shared by `serve` and `mcp`). */
async function openEngine(
  config: ServeConfig,
  logger: Logger,
  metrics?: Metrics,
  serveConsole?: ServeConsole | null,
) {
  const models = await modelsFor(config);
  const stores = openStores({
    dataDir: config.dataDir,
    store: config.store,
    limitsStore: config.limitsStore,
  });
  const engine = createSearchEngine({
    keys: serveConsole ? serveConsole.wrapKeys(stores.keys) : stores.keys,
    ...(serveConsole ? { usage: serveConsole.stores.recorder } : {}),
    credits: stores.credits,
    rateLimiter: stores.rateLimiter(config.rateLimit),
    search: searchProviderFor(config),
    ...(config.allowPrivateHosts.length || metrics ? { fetcher: fetcherFor(config, metrics) } : {}),
    creditCost: config.creditCost,
    maxResults: config.maxResults,
    expandToResults: config.expandToResults,
    minQueryCoverage: config.minQueryCoverage,
    maxPassageTokens: config.maxPassageTokens,
    requestTimeoutMs: config.requestTimeoutMs,
    maintenance: config.maintenance,
    logger,
    ...models,
    ...(metrics ? { metrics: metrics.hook } : {}),
  });
  return { engine, stores, close: () => engine.close().then(() => stores.close()) };
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

/** The page fetcher of `serve`: created on first use, counted when metrics are on. */
function fetcherFor(config: ServeConfig, metrics: Metrics | undefined): PageFetcher {
  const create = () =>
    createPageFetcher(config.allowPrivateHosts.length ? { allowPrivateHosts: config.allowPrivateHosts } : {});
  return metrics ? metrics.instrumentFetcher(create) : create();
}

async function serve(flags: ServeFlags & ConsoleFlags & { metricsPath?: string }): Promise<void> {
  const config = resolveServeConfig(flags, env);
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.apiKey', '*.key'] });
  const metrics = flags.metricsPath ? createMetrics() : undefined;
  const serveConsole = prepareServeConsole(flags, env, logger);
  const { engine, stores } = await openEngine(config, logger, metrics, serveConsole);
  const consoleApp = serveConsole?.start(engine, logger) ?? null;
  // Only a new local database gets a first key: on a shared store (Redis, PostgreSQL) several instances
  // start at once, so its keys are made with `citewise keys create --store …`.
  const firstStart = stores.createdLocalDatabase;

  if (firstStart && (await stores.keys.list()).length === 0) {
    const { key, record } = await engine.createKey();
    console.log(
      `First start: created account ${record.accountId} with ${FREE_CREDITS} credits.\n` +
        `Its API key is shown only this once; store it now:\n\n${key}\n`,
    );
  }

  // /v1, MCP (Streamable HTTP) at /mcp with the same API keys, and metrics at --metrics-path if given.
  const listener = createServeListener(engine, metrics ? { metrics, metricsPath: flags.metricsPath } : {});
  // The console (at /, its own paths) in front of /v1, MCP and metrics; everything else falls through.
  const consoleListener = consoleApp ? createConsoleNodeHandler(consoleApp) : null;
  const server = createServer(
    consoleListener ? (req, res) => consoleListener(req, res, () => listener(req, res)) : listener,
  );
  // Cut slow clients: headers must arrive within 15 s and the whole request within 60 s.
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  await listen(server, config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const corpus = config.corpus.length ? config.corpus.join(', ') : `${DEFAULT_CORPUS} (built-in docs)`;
  if (serveConsole && consoleApp) {
    await offerOperatorSetup(
      serveConsole,
      consoleApp,
      `http://${formatHost(config.host)}:${port}`,
      config.dataDir,
      logger,
    );
  }
  console.log(`citewise listening on http://${formatHost(config.host)}:${port}`);
  logger.info(
    {
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

/** The search provider of a `--search` spec; `local` is the index over the corpus folders. */
function searchProviderFor(config: ServeConfig): SearchProvider {
  const { providers } = config;
  return createSearchProviderFromSpec(config.search, {
    // Each web provider gets its own retries (within the deadline) and circuit breaker.
    wrapProvider: (provider) => withResilience(provider),
    timeoutMs: providers.timeoutMs,
    ...(providers.searxngUrl
      ? { searxng: { baseUrl: providers.searxngUrl, pages: providers.searxngPages } }
      : {}),
    ...(providers.braveApiKey ? { brave: { apiKey: providers.braveApiKey } } : {}),
    ...(providers.tavilyApiKey ? { tavily: { apiKey: providers.tavilyApiKey } } : {}),
    ...(providers.serperApiKey ? { serper: { apiKey: providers.serperApiKey } } : {}),
    ...(providers.exaApiKey ? { exa: { apiKey: providers.exaApiKey } } : {}),
    wikipedia: { language: providers.wikipediaLanguage },
    providers: {
      local: createLocalIndexProvider({
        paths: config.corpus.length ? config.corpus : [DEFAULT_CORPUS],
        // The index built by `citewise index` (if any), re-read when it changes.
        indexFiles: [indexFilePath(config.dataDir)],
      }),
    },
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
  if (!store) mkdirSync(dataDir, { recursive: true });
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

function printKeyTable(records: readonly KeyRecord[]): void {
  if (records.length === 0) {
    console.log('No keys.');
    return;
  }
  const now = Date.now();
  const rows = records.map((r) => [
    r.id,
    r.accountId,
    `${r.prefix}…`,
    r.name ?? '',
    new Date(r.createdAt).toISOString().slice(0, 19) + 'Z',
    r.expiresAt ? new Date(r.expiresAt).toISOString().slice(0, 19) + 'Z' : 'never',
    r.revokedAt ? 'revoked' : r.expiresAt !== null && r.expiresAt <= now ? 'expired' : 'active',
  ]);
  const header = ['ID', 'ACCOUNT', 'KEY', 'NAME', 'CREATED', 'EXPIRES', 'STATUS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

function integerOption(name: string) {
  return (value: string): number => {
    try {
      return parseNonNegativeInteger(name, value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

function durationOption(value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

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
