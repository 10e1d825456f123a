/**
 * Configuration of the `citewise` command: flags, then environment variables, then defaults.
 * This is the only module that reads `process.env` (it is handed in, so it stays testable).
 */
import { delimiter, join, resolve } from 'node:path';

/** Settings of `citewise serve`. */
export interface ServeConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Folders of the local index; empty = the package's docs/. */
  readonly corpus: readonly string[];
  readonly rateLimit: { readonly limit: number; readonly windowMs: number };
  readonly creditCost: number;
  readonly maintenance: boolean;
  readonly logLevel: string;
  /** Where keys and credits (and, for Redis/SQLite, limits) live: a store URL; absent = SQLite in dataDir. */
  readonly store: string | undefined;
  /** Where rate limits live when not in `store`: `redis://…` or `memory:`. */
  readonly limitsStore: string | undefined;
  /** Search provider spec: names joined by `,` (fallback) or `+` (fusion); `local` is the corpus index. */
  readonly search: string;
  /** Settings of the web search providers (keys come only from the environment). */
  readonly providers: {
    readonly searxngUrl?: string;
    /** Most SearXNG result pages read for one query. */
    readonly searxngPages: number;
    readonly braveApiKey?: string;
    readonly tavilyApiKey?: string;
    readonly serperApiKey?: string;
    readonly exaApiKey?: string;
    readonly wikipediaLanguage: string;
    readonly timeoutMs: number;
  };
  /** Hosts the page fetcher may reach although they resolve to private addresses (SSRF guard relaxation). */
  readonly allowPrivateHosts: readonly string[];
  /** Search results read first per request. */
  readonly maxResults: number;
  /** Most search results read when the first ones do not cover the question. */
  readonly expandToResults: number;
  /** Query coverage (0–1) of the best passage below which more results are read. */
  readonly minQueryCoverage: number;
  /** Token budget of the passages given to the answerer. */
  readonly maxPassageTokens: number;
  /** Deadline of one search request, in ms. */
  readonly requestTimeoutMs: number;
  /** Time by which the answer starts from the pages that arrived, in ms; undefined = the engine's default. */
  readonly maxLatencyMs?: number;
  /** Most time the last pages are waited for once 80 % arrived, in ms; undefined = the engine's default. */
  readonly stragglerGraceMs?: number;
  /** `provider:model-id` of the answer model; undefined = extractive answers. */
  readonly model?: string;
  /** Base URL for the model provider (OpenAI-compatible servers). */
  readonly modelBaseUrl?: string;
  /** `provider:model-id` of the embedding model. */
  readonly embeddingModel?: string;
  /** Answer extractively when the model fails. */
  readonly modelFallback: boolean;
}

/** Flags of `serve` as commander parses them (all optional strings). */
export interface ServeFlags {
  readonly port?: string;
  readonly host?: string;
  readonly dataDir?: string;
  readonly corpus?: readonly string[];
  readonly rateLimit?: string;
  readonly creditCost?: string;
  readonly maintenance?: boolean;
  readonly logLevel?: string;
  readonly store?: string;
  readonly limitsStore?: string;
  readonly search?: string;
  readonly searxngUrl?: string;
  readonly wikipediaLang?: string;
  readonly searchTimeout?: string;
  readonly allowPrivateHosts?: string;
  readonly maxResults?: string;
  readonly expandToResults?: string;
  readonly minQueryCoverage?: string;
  readonly maxPassageTokens?: string;
  readonly searxngPages?: string;
  readonly requestTimeout?: string;
  readonly maxLatency?: string;
  readonly stragglerGrace?: string;
  readonly model?: string;
  readonly modelBaseUrl?: string;
  readonly embeddingModel?: string;
  readonly modelFallback?: boolean;
}

/** Environment variables understood by the CLI, with the flag each stands for. */
export const ENVIRONMENT_VARIABLES = {
  CITEWISE_PORT: '--port',
  CITEWISE_HOST: '--host',
  CITEWISE_DATA_DIR: '--data-dir',
  CITEWISE_CORPUS: '--corpus (several folders separated by the path delimiter, ":" on Unix)',
  CITEWISE_RATE_LIMIT: '--rate-limit',
  CITEWISE_CREDIT_COST: '--credit-cost',
  CITEWISE_MAINTENANCE: '--maintenance (1 or true)',
  CITEWISE_LOG_LEVEL: '--log-level',
  CITEWISE_STORE: '--store (redis://…, postgres://…, sqlite:PATH)',
  CITEWISE_LIMITS_STORE: '--limits-store (redis://… or memory:)',
  CITEWISE_SEARCH: '--search',
  SEARXNG_URL: '--searxng-url',
  CITEWISE_SEARXNG_PAGES: '--searxng-pages',
  BRAVE_API_KEY: 'Brave Search API key (also BRAVE_SEARCH_API_KEY)',
  TAVILY_API_KEY: 'Tavily API key',
  SERPER_API_KEY: 'Serper API key',
  EXA_API_KEY: 'Exa API key',
  CITEWISE_WIKIPEDIA_LANG: '--wikipedia-lang',
  CITEWISE_SEARCH_TIMEOUT: '--search-timeout',
  CITEWISE_ALLOW_PRIVATE_HOSTS: '--allow-private-hosts (comma-separated)',
  CITEWISE_MAX_RESULTS: '--max-results',
  CITEWISE_EXPAND_TO_RESULTS: '--expand-to-results',
  CITEWISE_MIN_QUERY_COVERAGE: '--min-query-coverage',
  CITEWISE_MAX_PASSAGE_TOKENS: '--max-passage-tokens',
  CITEWISE_REQUEST_TIMEOUT: '--request-timeout',
  CITEWISE_MAX_LATENCY: '--max-latency',
  CITEWISE_STRAGGLER_GRACE: '--straggler-grace',
  CITEWISE_MODEL: '--model',
  CITEWISE_MODEL_BASE_URL: '--model-base-url',
  CITEWISE_EMBEDDING_MODEL: '--embedding-model',
  CITEWISE_MODEL_FALLBACK: '--model-fallback (1 or true)',
  OPENAI_API_KEY: 'key of openai: models (also ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY)',
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Default data directory, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.citewise';

/** Resolves `serve` settings: flag, else environment variable, else default. Throws a readable Error. */
export function resolveServeConfig(flags: ServeFlags, env: Env): ServeConfig {
  const corpusFromEnv = env.CITEWISE_CORPUS?.split(delimiter).filter(Boolean) ?? [];
  return {
    port: parsePort(flags.port ?? env.CITEWISE_PORT ?? '8787'),
    host: flags.host ?? env.CITEWISE_HOST ?? '127.0.0.1',
    dataDir: resolveDataDir(flags.dataDir, env),
    corpus: (flags.corpus?.length ? flags.corpus : corpusFromEnv).map((dir) => resolve(dir)),
    rateLimit: parseRateLimit(flags.rateLimit ?? env.CITEWISE_RATE_LIMIT ?? '60/1m'),
    creditCost: parseNonNegativeInteger('--credit-cost', flags.creditCost ?? env.CITEWISE_CREDIT_COST ?? '1'),
    maintenance: flags.maintenance ?? isTruthy(env.CITEWISE_MAINTENANCE),
    logLevel: flags.logLevel ?? env.CITEWISE_LOG_LEVEL ?? 'info',
    store: resolveStore(flags.store, env),
    limitsStore: flags.limitsStore ?? (env.CITEWISE_LIMITS_STORE || undefined),
    search: flags.search ?? env.CITEWISE_SEARCH ?? 'local',
    providers: {
      ...optional('searxngUrl', flags.searxngUrl ?? env.SEARXNG_URL),
      searxngPages: parsePositiveInteger(
        '--searxng-pages',
        flags.searxngPages ?? env.CITEWISE_SEARXNG_PAGES ?? '1',
      ),
      ...optional('braveApiKey', env.BRAVE_API_KEY ?? env.BRAVE_SEARCH_API_KEY),
      ...optional('tavilyApiKey', env.TAVILY_API_KEY),
      ...optional('serperApiKey', env.SERPER_API_KEY),
      ...optional('exaApiKey', env.EXA_API_KEY),
      wikipediaLanguage: flags.wikipediaLang ?? env.CITEWISE_WIKIPEDIA_LANG ?? 'en',
      timeoutMs: parseDuration(flags.searchTimeout ?? env.CITEWISE_SEARCH_TIMEOUT ?? '10s'),
    },
    allowPrivateHosts: splitList(flags.allowPrivateHosts ?? env.CITEWISE_ALLOW_PRIVATE_HOSTS ?? ''),
    maxResults: parsePositiveInteger('--max-results', flags.maxResults ?? env.CITEWISE_MAX_RESULTS ?? '5'),
    expandToResults: parsePositiveInteger(
      '--expand-to-results',
      flags.expandToResults ?? env.CITEWISE_EXPAND_TO_RESULTS ?? '40',
    ),
    minQueryCoverage: parseFraction(
      '--min-query-coverage',
      flags.minQueryCoverage ?? env.CITEWISE_MIN_QUERY_COVERAGE ?? '0.8',
    ),
    maxPassageTokens: parsePositiveInteger(
      '--max-passage-tokens',
      flags.maxPassageTokens ?? env.CITEWISE_MAX_PASSAGE_TOKENS ?? '4000',
    ),
    requestTimeoutMs: parseDuration(flags.requestTimeout ?? env.CITEWISE_REQUEST_TIMEOUT ?? '30s'),
    ...optionalDuration('maxLatencyMs', flags.maxLatency ?? env.CITEWISE_MAX_LATENCY),
    ...optionalDuration('stragglerGraceMs', flags.stragglerGrace ?? env.CITEWISE_STRAGGLER_GRACE),
    ...optional('model', flags.model ?? env.CITEWISE_MODEL),
    ...optional('modelBaseUrl', flags.modelBaseUrl ?? env.CITEWISE_MODEL_BASE_URL),
    ...optional('embeddingModel', flags.embeddingModel ?? env.CITEWISE_EMBEDDING_MODEL),
    modelFallback: flags.modelFallback ?? isTruthy(env.CITEWISE_MODEL_FALLBACK),
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

function optionalDuration<K extends string>(key: K, text: string | undefined): Partial<Record<K, number>> {
  return text ? ({ [key]: parseDuration(text) } as Record<K, number>) : {};
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function parseFraction(name: string, text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !(value >= 0 && value <= 1)) {
    throw new Error(`invalid ${name} "${text}": must be a number from 0 to 1`);
  }
  return value;
}

function parsePositiveInteger(name: string, text: string): number {
  const value = parseNonNegativeInteger(name, text);
  if (value < 1) throw new Error(`invalid ${name} "${text}": must be a positive integer`);
  return value;
}

/** The store URL from `--store`, else `CITEWISE_STORE`, else undefined (SQLite in the data directory). */
export function resolveStore(flag: string | undefined, env: Env): string | undefined {
  return flag ?? (env.CITEWISE_STORE || undefined);
}

/** The data directory from `--data-dir`, else `CITEWISE_DATA_DIR`, else `.citewise`. */
export function resolveDataDir(flag: string | undefined, env: Env): string {
  return resolve(flag ?? env.CITEWISE_DATA_DIR ?? DEFAULT_DATA_DIR);
}

/** The SQLite database inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'citewise.db');
}

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Parses `500ms`, `30s`, `1m`, `2h`, `30d`, `1w` (a bare unit means 1 of it) into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)?\s*(ms|s|sec|m|min|h|d|w)$/i.exec(text.trim());
  const unit = match?.[2] ? UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new Error(`invalid duration "${text}": use a number and a unit, e.g. 30s, 1m, 12h, 30d`);
  }
  const value = match[1] === undefined ? 1 : Number(match[1]);
  const ms = Math.round(value * unit);
  if (ms <= 0) throw new Error(`invalid duration "${text}": must be positive`);
  return ms;
}

/** Parses `N/DURATION`, e.g. `60/1m` or `10/s`, into a limit per window. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const [count, window] = text.split('/');
  if (count === undefined || window === undefined) {
    throw new Error(`invalid rate limit "${text}": use REQUESTS/WINDOW, e.g. 60/1m`);
  }
  const limit = Number(count);
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new Error(`invalid rate limit "${text}": REQUESTS must be a positive integer`);
  }
  return { limit, windowMs: parseDuration(window) };
}

/** Parses a TCP port (0 = any free port). */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid port "${text}"`);
  return port;
}

/** Parses a non-negative integer option. */
export function parseNonNegativeInteger(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw new Error(`invalid ${name} "${text}": must be a non-negative integer`);
  }
  return value;
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}
