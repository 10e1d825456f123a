/**
 * The settings table of the `citewise` command: every setting once, with its flag, environment variable,
 * default, meaning and parser. The commander options, the environment parsing, the variable list of
 * `--help` and docs/reference/configuration.md are all generated from it, so they cannot disagree.
 * Defaults the library also has come from {@link ENGINE_DEFAULTS}.
 */
import { AUDIT_DEFAULTS } from '../console/audit.ts';
import { DOCUMENTS_DEFAULTS } from '../contract/documents.ts';
import { normalizeTavilyPrefix } from '../http/compat/tavily.ts';
import { readFileSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { parseSynonymRules } from '../text/synonym-rules.ts';
import { ENGINE_DEFAULTS } from '../engine/index.ts';
import { RESEARCH_DEFAULTS } from '../pipeline/research/types.ts';
import { CONNECTION_LIMIT_DEFAULTS } from '../http/connection-limits.ts';
import { parseModelSpec } from '../models/resolve.ts';
import { CONTENT_CACHE_DEFAULTS } from '../pipeline/extract/content-cache.ts';
import { FETCHER_DEFAULTS } from '../pipeline/fetch/fetcher.ts';
import { JOBS_DEFAULTS } from '../jobs/options.ts';
import { assertWebhookSecret } from '../jobs/webhooks.ts';
import { issuerProblem, SSO_DEFAULTS } from '../console/oidc.ts';
import {
  DEFAULT_PROVIDER_TIMEOUT_MS,
  parseProviderSpec,
  SEARCH_PROVIDER_NAMES,
} from '../pipeline/search/providers/index.ts';

/** Headings of the configuration page, in page order. */
export const SETTING_GROUPS = {
  server: 'Server',
  storage: 'Keys, credits and limits storage',
  limits: 'Limits and credits',
  search: 'Search providers and corpus',
  fetching: 'Fetching pages',
  ranking: 'Reading and ranking',
  research: 'Research depth (`depth: "research"`)',
  models: 'Models',
  mcp: 'MCP over stdio (`citewise mcp`)',
  console: 'Console (sign-up, organizations, keys, usage and playground at `/`)',
  jobs: 'Research jobs (`POST /v1/research`, `citewise worker`)',
} as const;

/** A group of settings on the configuration page. */
export type SettingGroup = keyof typeof SETTING_GROUPS;

/**
 * One setting. `parse` turns the text of the flag or variable (or of `default`) into the value, and throws
 * an Error whose message completes "--flag (VARIABLE) …", e.g. "must be a positive integer".
 */
export interface Setting<T> {
  /** The commander flag with its placeholder, e.g. `--port <port>`; absent for secrets (environment only). */
  readonly flag?: string;
  /** The environment variable. */
  readonly env: string;
  /** Further variables read when `env` is unset, e.g. `BRAVE_SEARCH_API_KEY`. */
  readonly alsoEnv?: readonly string[];
  readonly group: SettingGroup;
  /** What the setting does: the help text and the "meaning" column. */
  readonly meaning: string;
  /** The value used when neither flag nor variable is given, as text (parsed like user input). */
  readonly default?: string;
  /** How the default reads where it is not a value (computed, or "none"). */
  readonly defaultText?: string;
  readonly parse: (text: string) => T;
  /** For a repeatable flag (`<dir...>`): turns the flag's values into the setting's value. */
  readonly parseItems?: (items: readonly string[]) => T;
  /** A switch: the flag takes no value and means `true`. */
  readonly isSwitch?: boolean;
  /**
   * A `--no-…` switch: giving the flag means `false`. Commander reports such a flag as `true` when it is
   * absent, so only `false` counts as given (the variable and the default decide otherwise).
   */
  readonly negated?: boolean;
  /** Only `serve` has it (not `mcp`, which runs over stdio). */
  readonly serveOnly?: boolean;
  /** A secret: never echoed in an error, never shown. */
  readonly secret?: boolean;
  /** The search provider that cannot run without this setting. */
  readonly requiredBy?: string;
}

/** The error a parser throws; the resolver adds which flag and variable it is about. */
export class SettingValueError extends Error {
  override readonly name = 'SettingValueError';
}

// ---------------------------------------------------------------------------------------------------------
// Parsers

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const DURATION_HINT = 'duration such as 500ms, 30s, 1m, 12h or 30d';

/** Parses `500ms`, `30s`, `1m`, `2h`, `30d`, `1w` (a bare unit means 1 of it) into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)?\s*(ms|s|sec|m|min|h|d|w)$/i.exec(text.trim());
  const unit = match?.[2] ? DURATION_UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new SettingValueError(`must be a ${DURATION_HINT}`);
  const ms = Math.round((match[1] === undefined ? 1 : Number(match[1])) * unit);
  if (ms <= 0) throw new SettingValueError(`must be a positive ${DURATION_HINT}`);
  return ms;
}

/** Writes milliseconds in the largest unit that divides them: 30000 → `30s`, 60000 → `1m`. */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = DURATION_UNITS[unit]!;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Parses `N/DURATION`, e.g. `60/1m` or `10/s`, into a limit per window. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const [count, window, ...rest] = text.split('/');
  const hint = 'must be REQUESTS/WINDOW, e.g. 60/1m';
  if (count === undefined || window === undefined || rest.length > 0) throw new SettingValueError(hint);
  const limit = Number(count.trim());
  if (!/^\d+$/.test(count.trim()) || !Number.isSafeInteger(limit) || limit < 1) {
    throw new SettingValueError(`${hint} (REQUESTS a positive integer)`);
  }
  try {
    return { limit, windowMs: parseDuration(window) };
  } catch {
    throw new SettingValueError(`${hint} (WINDOW a ${DURATION_HINT})`);
  }
}

/** Writes a rate limit as `N/DURATION`. */
export function formatRateLimit(rateLimit: { readonly limit: number; readonly windowMs: number }): string {
  return `${rateLimit.limit}/${formatDuration(rateLimit.windowMs)}`;
}

/** Parses a non-negative integer. */
export function parseNonNegativeInteger(text: string): number {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw new SettingValueError('must be a non-negative integer');
  }
  return value;
}

/** Parses an integer of at least 1. */
export function parsePositiveInteger(text: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new SettingValueError('must be a positive integer');
  return value;
}

function integerFrom(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
    if (!(value >= min && value <= max))
      throw new SettingValueError(`must be an integer from ${min} to ${max}`);
    return value;
  };
}

/** Parses a TCP port (0 = any free port). */
export const parsePort = integerFrom(0, 65_535);

function parseFraction(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !(value >= 0 && value <= 1)) {
    throw new SettingValueError('must be a number from 0 to 1');
  }
  return value;
}

function parsePositiveNumber(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !(value > 0 && Number.isFinite(value))) {
    throw new SettingValueError('must be a positive number');
  }
  return value;
}

const BYTE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Parses a size in bytes: `134217728`, `512KiB`, `128MiB`, `1GiB`; 0 is allowed (off). */
export function parseByteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kib|mib|gib)?$/i.exec(text.trim());
  const bytes = match ? Math.round(Number(match[1]) * BYTE_UNITS[(match[2] ?? '').toLowerCase()]!) : NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new SettingValueError('must be a size such as 134217728, 512KiB, 128MiB or 1GiB (0 = off)');
  }
  return bytes;
}

/** Writes a size in bytes in the largest binary unit that divides it: 134217728 → `128MiB`. */
export function formatByteSize(bytes: number): string {
  for (const unit of ['GiB', 'MiB', 'KiB'] as const) {
    const size = BYTE_UNITS[unit.toLowerCase()]!;
    if (bytes > 0 && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

function parseShare(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !(value > 0 && value <= 1)) {
    throw new SettingValueError('must be a number greater than 0 and at most 1');
  }
  return value;
}

function parseSignupPolicy(text: string): 'open' | 'invite-only' {
  const value = text.trim();
  if (value !== 'open' && value !== 'invite-only') throw new SettingValueError('must be open or invite-only');
  return value;
}

function parseDomainList(text: string): string[] {
  const domains = text
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
    .filter(Boolean);
  const bad = domains.find((domain) => !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(domain));
  if (bad !== undefined) throw new SettingValueError(`must be domains such as example.com ("${bad}" is not)`);
  return domains;
}

function parseIssuer(text: string): string {
  const problem = issuerProblem(text.trim());
  if (problem) throw new SettingValueError(problem);
  return text.trim();
}

function parseScopes(text: string): string[] {
  const scopes = text.split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid'))
    throw new SettingValueError('must include openid, e.g. "openid email profile"');
  return scopes;
}

function parseAccountsStore(text: string): string {
  const value = text.trim();
  if (!/^(sqlite:|postgres(ql)?:\/\/)/i.test(value)) {
    throw new SettingValueError('must be sqlite:PATH or postgres://…');
  }
  return value;
}

const TRUE_WORDS = /^(1|true|yes|on)$/i;
const FALSE_WORDS = /^(0|false|no|off)$/i;

function parseBoolean(text: string): boolean {
  if (TRUE_WORDS.test(text.trim())) return true;
  if (FALSE_WORDS.test(text.trim())) return false;
  throw new SettingValueError('must be true or false (1, yes, on / 0, no, off)');
}

function parseText(text: string): string {
  if (text.trim() === '') throw new SettingValueError('must not be empty');
  return text.trim();
}

function parseHttpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SettingValueError('must be an http(s) URL, e.g. http://127.0.0.1:8888');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SettingValueError('must be an http(s) URL, e.g. http://127.0.0.1:8888');
  }
  return text.trim();
}

/** Log levels of pino. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function parseLogLevel(text: string): string {
  const level = text.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new SettingValueError(`must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return level;
}

function parseHostList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function parseFolders(items: readonly string[]): string[] {
  return items.filter(Boolean).map((dir) => resolve(dir));
}

/** Kinds of store a `--store` / `--limits-store` URL can name. */
export type StoreKind = 'redis' | 'postgres' | 'sqlite' | 'memory';

/** The kind of store a URL names, or undefined. */
export function storeKindOf(url: string): StoreKind | undefined {
  if (/^rediss?:\/\//i.test(url)) return 'redis';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^sqlite:/i.test(url)) return 'sqlite';
  if (/^memory:?$/i.test(url)) return 'memory';
  return undefined;
}

function parseStore(text: string): string {
  const kind = storeKindOf(text.trim());
  if (kind === 'memory') {
    throw new SettingValueError('cannot be memory: it would lose keys and credits on exit');
  }
  if (!kind) throw new SettingValueError('must be redis://…, rediss://…, postgres://… or sqlite:PATH');
  return text.trim();
}

function parseIndexStore(text: string): string {
  const value = text.trim();
  if (value === 'sqlite' || /^postgres(?:ql)?:\/\/./i.test(value)) return value;
  throw new SettingValueError('must be sqlite or postgres://…');
}

function parseLimitsStore(text: string): string {
  const kind = storeKindOf(text.trim());
  if (kind !== 'redis' && kind !== 'memory') throw new SettingValueError('must be redis://… or memory:');
  return text.trim();
}

const SEARCH_NAMES: readonly string[] = ['local', ...SEARCH_PROVIDER_NAMES];

function parseSearchSpec(text: string): string {
  let names: string[];
  try {
    names = parseProviderSpec(text).flat();
  } catch (error) {
    throw new SettingValueError(
      `must be provider names joined by "," (fallback) or "+" (fusion): ${(error as Error).message}`,
    );
  }
  const unknown = names.find((name) => !SEARCH_NAMES.includes(name));
  if (unknown !== undefined) {
    throw new SettingValueError(`names an unknown provider "${unknown}" (known: ${SEARCH_NAMES.join(', ')})`);
  }
  return text.trim();
}

function parseModel(text: string): string {
  try {
    parseModelSpec(text.trim());
  } catch (error) {
    throw new SettingValueError((error as Error).message);
  }
  return text.trim();
}

function parseMetricsPath(text: string): string {
  if (!text.startsWith('/')) throw new SettingValueError('must be a path starting with "/", e.g. /metrics');
  return text;
}

/** A path for the Tavily-compatible routes, or `off` (as `false`). */
function parseTavilyPrefix(text: string): string | false {
  return text.trim().toLowerCase() === 'off' ? false : normalizeTavilyPrefix(text.trim());
}

function parseWebhookSecret(text: string): string {
  try {
    assertWebhookSecret(text.trim());
  } catch {
    throw new SettingValueError('must be whsec_ followed by the base64 of 24 to 64 random bytes');
  }
  return text.trim();
}

/** The rules of a synonyms file (checked now, so a bad rule stops the start with its line). */
function parseSynonymsFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new SettingValueError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    parseSynonymRules(text);
  } catch (error) {
    throw new SettingValueError(`${file}: ${(error as Error).message}`);
  }
  return text.split(/\r?\n/);
}

function parsePublicUrl(text: string): string {
  return parseHttpUrl(text).replace(/\/+$/, '');
}

// ---------------------------------------------------------------------------------------------------------
// The table

/**
 * Every setting of `citewise serve` (and of `citewise mcp`, which runs the same engine), keyed by its name in
 * {@link ServeConfig}. Order = order in `--help` and on the configuration page.
 */
export const SERVE_SETTINGS = {
  port: {
    flag: '--port <port>',
    env: 'CITEWISE_PORT',
    group: 'server',
    meaning: 'TCP port to listen on (0 = any free port).',
    default: '8787',
    parse: parsePort,
    serveOnly: true,
  },
  host: {
    flag: '--host <host>',
    env: 'CITEWISE_HOST',
    group: 'server',
    meaning: 'Interface to listen on; 0.0.0.0 or :: to accept connections from other machines.',
    default: '127.0.0.1',
    parse: parseText,
    serveOnly: true,
  },
  tavilyPrefix: {
    flag: '--tavily-prefix <path>',
    env: 'CITEWISE_TAVILY_PREFIX',
    group: 'server',
    meaning:
      'Path of the Tavily-compatible routes (<path>/search and <path>/extract), for clients written for ' +
      'Tavily; "off" serves none.',
    default: ENGINE_DEFAULTS.tavilyPrefix,
    parse: parseTavilyPrefix,
  },
  publicUrl: {
    flag: '--public-url <url>',
    env: 'CITEWISE_PUBLIC_URL',
    group: 'server',
    meaning:
      'Base URL clients reach the service at (behind a proxy: its public address); the sources of local ' +
      'documents are links below it, `<public URL>/docs/<path>`.',
    defaultText: 'http://<host>:<port>',
    parse: parsePublicUrl,
  },
  maxConnections: {
    flag: '--max-connections <n>',
    env: 'CITEWISE_MAX_CONNECTIONS',
    group: 'server',
    meaning:
      'Most open connections in total; at the cap the oldest idle one is closed to make room, and near it ' +
      'idle connections are cut sooner.',
    default: String(CONNECTION_LIMIT_DEFAULTS.maxConnections),
    parse: parsePositiveInteger,
    serveOnly: true,
  },
  maxConnectionsPerAddress: {
    flag: '--max-connections-per-address <n>',
    env: 'CITEWISE_MAX_CONNECTIONS_PER_ADDRESS',
    group: 'server',
    meaning: 'Most open connections from one client address.',
    default: String(CONNECTION_LIMIT_DEFAULTS.maxConnectionsPerAddress),
    parse: parsePositiveInteger,
    serveOnly: true,
  },
  mcpAllowedHosts: {
    flag: '--mcp-allowed-hosts <hosts>',
    env: 'CITEWISE_MCP_ALLOWED_HOSTS',
    group: 'server',
    meaning:
      'Comma-separated host names accepted in the Host and Origin headers at /mcp (a DNS-rebinding guard), ' +
      'or * for any host.',
    defaultText: 'localhost, 127.0.0.1 and ::1 when --host is a loopback address, else any host',
    parse: parseHostList,
    serveOnly: true,
  },
  maintenance: {
    flag: '--maintenance',
    env: 'CITEWISE_MAINTENANCE',
    group: 'server',
    meaning: 'Answer every /v1 request with 503 (maintenance mode).',
    default: String(ENGINE_DEFAULTS.maintenance),
    parse: parseBoolean,
    isSwitch: true,
    serveOnly: true,
  },
  logLevel: {
    flag: '--log-level <level>',
    env: 'CITEWISE_LOG_LEVEL',
    group: 'server',
    meaning: `Level of the JSON log (on stdout; for mcp on stderr): ${LOG_LEVELS.join(', ')}.`,
    default: 'info',
    parse: parseLogLevel,
  },
  metricsPath: {
    flag: '--metrics-path <path>',
    env: 'CITEWISE_METRICS_PATH',
    group: 'server',
    meaning:
      'Serve Prometheus metrics at this path, e.g. /metrics (no API key: keep it off public networks).',
    defaultText: 'off',
    parse: parseMetricsPath,
    serveOnly: true,
  },
  dataDir: {
    flag: '--data-dir <dir>',
    env: 'CITEWISE_DATA_DIR',
    group: 'storage',
    meaning: 'Directory of the SQLite database (keys, credits, limits), the first key and the local index.',
    default: '.citewise',
    parse: (text: string) => resolve(parseText(text)),
  },
  store: {
    flag: '--store <url>',
    env: 'CITEWISE_STORE',
    group: 'storage',
    meaning:
      'Where keys and credits live: redis://…, postgres://… (several instances) or sqlite:PATH. ' +
      'Add ?schema=NAME (PostgreSQL) or ?prefix=P (Redis) to share a server.',
    defaultText: 'SQLite in the data directory',
    parse: parseStore,
  },
  limitsStore: {
    flag: '--limits-store <url>',
    env: 'CITEWISE_LIMITS_STORE',
    group: 'storage',
    meaning:
      'Where rate limits live when not in --store: redis://… (shared by instances) or memory: (per instance).',
    defaultText: 'the store; memory: with postgres://',
    parse: parseLimitsStore,
  },
  indexStore: {
    flag: '--index-store <where>',
    env: 'CITEWISE_INDEX_STORE',
    group: 'storage',
    meaning:
      'Where the document index lives: sqlite (index.sqlite in the data directory) or postgres://… ' +
      '(one index shared by several instances; add ?schema=NAME to share a server).',
    default: 'sqlite',
    parse: parseIndexStore,
  },
  rateLimit: {
    flag: '--rate-limit <n/window>',
    env: 'CITEWISE_RATE_LIMIT',
    group: 'limits',
    meaning: 'Search requests allowed per API key and window, e.g. 60/1m or 10/1s.',
    default: formatRateLimit(ENGINE_DEFAULTS.rateLimit),
    parse: parseRateLimit,
  },
  creditCost: {
    flag: '--credit-cost <n>',
    env: 'CITEWISE_CREDIT_COST',
    group: 'limits',
    meaning:
      'Cost of one search, in credits, whether or not its answer cites the pages it read; a search that found no page at all costs nothing.',
    default: String(ENGINE_DEFAULTS.creditCost),
    parse: parseNonNegativeInteger,
  },
  extractCreditCost: {
    flag: '--extract-credit-cost <n>',
    env: 'CITEWISE_EXTRACT_CREDIT_COST',
    group: 'limits',
    meaning:
      'Cost of one page read by POST /v1/extract, in credits; a page that failed costs --extract-failed-share of it.',
    default: String(ENGINE_DEFAULTS.extractCreditCost),
    parse: parseNonNegativeInteger,
  },
  extractFailedShare: {
    flag: '--extract-failed-share <0-1>',
    env: 'CITEWISE_EXTRACT_FAILED_SHARE',
    group: 'limits',
    meaning:
      'Share of --extract-credit-cost charged for a page of POST /v1/extract requested from its server but not read (error status, too many redirects, timeout, unreadable body), summed over the request and rounded up; pages refused before any request (bad URL, private address, robots.txt) are free.',
    default: String(ENGINE_DEFAULTS.extractFailedShare),
    parse: parseFraction,
  },
  requestTimeoutMs: {
    flag: '--request-timeout <duration>',
    env: 'CITEWISE_REQUEST_TIMEOUT',
    group: 'limits',
    meaning: 'Deadline of one search request, queueing included.',
    default: formatDuration(ENGINE_DEFAULTS.requestTimeoutMs),
    parse: parseDuration,
  },
  maxLatencyMs: {
    flag: '--max-latency <duration>',
    env: 'CITEWISE_MAX_LATENCY',
    group: 'ranking',
    meaning:
      'Time after a request arrived by which the answer starts from the pages that arrived (the others from ' +
      "their snippets); a request's `max_latency_ms` replaces it.",
    default: formatDuration(ENGINE_DEFAULTS.maxLatencyMs),
    parse: parseDuration,
  },
  stragglerGraceMs: {
    flag: '--straggler-grace <duration>',
    env: 'CITEWISE_STRAGGLER_GRACE',
    group: 'ranking',
    meaning:
      'Most time the last pages of a batch are waited for once 80 % of them arrived (half of it for pages ' +
      'read deeper).',
    default: formatDuration(ENGINE_DEFAULTS.stragglerGraceMs),
    parse: parseDuration,
  },
  maxConcurrentSearches: {
    flag: '--max-concurrent-searches <n>',
    env: 'CITEWISE_MAX_CONCURRENT_SEARCHES',
    group: 'limits',
    meaning: 'Searches running at once; more wait their turn.',
    default: String(ENGINE_DEFAULTS.maxConcurrentSearches),
    parse: parsePositiveInteger,
  },
  maxQueuedSearches: {
    flag: '--max-queued-searches <n>',
    env: 'CITEWISE_MAX_QUEUED_SEARCHES',
    group: 'limits',
    meaning: 'Searches allowed to wait for a slot, all accounts together; past this, 503 with Retry-After.',
    default: String(ENGINE_DEFAULTS.maxQueuedSearches),
    parse: parseNonNegativeInteger,
  },
  maxAccountShare: {
    flag: '--max-account-share <0-1>',
    env: 'CITEWISE_MAX_ACCOUNT_SHARE',
    group: 'limits',
    meaning:
      'Largest share of the running searches, and of the waiting ones, one account may hold (at least one ' +
      'each); a freed slot goes to the waiting account running the fewest. 1 lets one account use every ' +
      'slot (a single-tenant service).',
    default: String(ENGINE_DEFAULTS.maxAccountShare),
    parse: parseShare,
  },
  search: {
    flag: '--search <spec>',
    env: 'CITEWISE_SEARCH',
    group: 'search',
    meaning:
      `Search providers: ${SEARCH_NAMES.join(', ')}; "a,b" = fallback in order, "a+b" = fusion of ` +
      'both. `local` is the index of the corpus folders and of `citewise index`.',
    default: 'local',
    parse: parseSearchSpec,
  },
  corpus: {
    flag: '--corpus <dir...>',
    env: 'CITEWISE_CORPUS',
    group: 'search',
    meaning:
      `Folders the local provider searches (Markdown, HTML, text, PDF). The variable separates folders with ` +
      `"${delimiter}".`,
    defaultText: "the package's docs/",
    parse: (text: string) => parseFolders(text.split(delimiter)),
    parseItems: parseFolders,
  },
  includeManual: {
    flag: '--include-manual',
    env: 'CITEWISE_INCLUDE_MANUAL',
    group: 'search',
    meaning:
      "Also answer from citewise's own manual (docs/) when you have given documents (`--corpus`, or an index " +
      'built by `citewise index`). Without this, the manual is the corpus only until you give documents; ' +
      'then answers come from your documents alone ("No answer in your documents." when they hold none).',
    default: 'false',
    parse: parseBoolean,
    isSwitch: true,
  },
  synonyms: {
    flag: '--synonyms <file>',
    env: 'CITEWISE_SYNONYMS',
    group: 'search',
    meaning:
      'File of synonym rules for your vocabulary, in the Solr format Elasticsearch reads: "badge, access ' +
      'card" (equivalent) or "PTO => paid time off" (one way), one a line, # comments. A question naming a ' +
      'phrase is also searched and answered with its synonyms, ranked below the words as asked.',
    defaultText: 'none',
    parse: parseSynonymsFile,
  },
  searxngUrl: {
    flag: '--searxng-url <url>',
    env: 'SEARXNG_URL',
    group: 'search',
    meaning: 'Base URL of your SearXNG instance (with JSON output enabled); needed by `searxng`.',
    defaultText: 'none',
    parse: parseHttpUrl,
    requiredBy: 'searxng',
  },
  searxngPages: {
    flag: '--searxng-pages <n>',
    env: 'CITEWISE_SEARXNG_PAGES',
    group: 'search',
    meaning: 'Most SearXNG result pages read for one query.',
    default: '1',
    parse: integerFrom(1, 10),
  },
  braveApiKey: {
    env: 'BRAVE_API_KEY',
    alsoEnv: ['BRAVE_SEARCH_API_KEY'],
    group: 'search',
    meaning: 'Brave Search API key; needed by `brave`.',
    defaultText: 'none',
    parse: parseText,
    secret: true,
    requiredBy: 'brave',
  },
  tavilyApiKey: {
    env: 'TAVILY_API_KEY',
    group: 'search',
    meaning: 'Tavily API key; needed by `tavily`.',
    defaultText: 'none',
    parse: parseText,
    secret: true,
    requiredBy: 'tavily',
  },
  serperApiKey: {
    env: 'SERPER_API_KEY',
    group: 'search',
    meaning: 'Serper API key; needed by `serper`.',
    defaultText: 'none',
    parse: parseText,
    secret: true,
    requiredBy: 'serper',
  },
  exaApiKey: {
    env: 'EXA_API_KEY',
    group: 'search',
    meaning: 'Exa API key; needed by `exa`.',
    defaultText: 'none',
    parse: parseText,
    secret: true,
    requiredBy: 'exa',
  },
  wikipediaLanguage: {
    flag: '--wikipedia-lang <code>',
    env: 'CITEWISE_WIKIPEDIA_LANG',
    group: 'search',
    meaning: 'Wikipedia language edition searched by `wikipedia`, e.g. en, de, fr.',
    default: 'en',
    parse: parseText,
  },
  searchTimeoutMs: {
    flag: '--search-timeout <duration>',
    env: 'CITEWISE_SEARCH_TIMEOUT',
    group: 'search',
    meaning: 'Timeout of one call to a web search provider.',
    default: formatDuration(DEFAULT_PROVIDER_TIMEOUT_MS),
    parse: parseDuration,
  },
  allowPrivateHosts: {
    flag: '--allow-private-hosts <hosts>',
    env: 'CITEWISE_ALLOW_PRIVATE_HOSTS',
    group: 'search',
    meaning:
      'Comma-separated hosts the page fetcher may reach although they resolve to private addresses, e.g. an ' +
      'intranet wiki (the SSRF guard blocks them otherwise); `host:port` allows only that port, a bare host ' +
      'every port. Webhooks do not use this list (see --allow-webhook-hosts).',
    defaultText: 'none',
    parse: parseHostList,
  },
  perHostConcurrency: {
    flag: '--per-host-concurrency <n>',
    env: 'CITEWISE_PER_HOST_CONCURRENCY',
    group: 'fetching',
    meaning:
      'Page requests in flight at once to one site (host:port). Its waiting pages are served fairly: every ' +
      "search's first results before anyone's later ones.",
    default: String(FETCHER_DEFAULTS.perHostConcurrency),
    parse: parsePositiveInteger,
  },
  perHostRate: {
    flag: '--per-host-rate <n>',
    env: 'CITEWISE_PER_HOST_RATE',
    group: 'fetching',
    meaning:
      'Page requests started per second to one site, sustained; may be fractional (0.5 = one every 2 s).',
    default: String(FETCHER_DEFAULTS.perHostRate),
    parse: parsePositiveNumber,
  },
  perHostBurst: {
    flag: '--per-host-burst <n>',
    env: 'CITEWISE_PER_HOST_BURST',
    group: 'fetching',
    meaning: 'Page requests that may start at once to one site after a quiet spell.',
    default: String(FETCHER_DEFAULTS.perHostBurst),
    parse: parsePositiveInteger,
  },
  contentCacheBytes: {
    flag: '--content-cache-size <size>',
    env: 'CITEWISE_CONTENT_CACHE_SIZE',
    group: 'fetching',
    meaning:
      'Memory for pages already extracted (their text, passages and tokens), so that a page read again costs ' +
      'no extraction, e.g. 512MiB; 0 turns it off. no-store pages are never kept.',
    default: formatByteSize(CONTENT_CACHE_DEFAULTS.maxBytes),
    parse: parseByteSize,
  },
  maxResults: {
    flag: '--max-results <n>',
    env: 'CITEWISE_MAX_RESULTS',
    group: 'ranking',
    meaning: 'Search results read first per request (fetched, extracted, ranked).',
    default: String(ENGINE_DEFAULTS.maxResults),
    parse: parsePositiveInteger,
  },
  expandToResults: {
    flag: '--expand-to-results <n>',
    env: 'CITEWISE_EXPAND_TO_RESULTS',
    group: 'ranking',
    meaning:
      'Most results read when the first ones do not cover the question; equal to --max-results: never ' +
      'read more.',
    default: String(ENGINE_DEFAULTS.expandToResults),
    parse: parsePositiveInteger,
  },
  minQueryCoverage: {
    flag: '--min-query-coverage <0-1>',
    env: 'CITEWISE_MIN_QUERY_COVERAGE',
    group: 'ranking',
    meaning:
      "Share of the question's words the best passage must hold before reading stops (0 = never expand).",
    default: String(ENGINE_DEFAULTS.minQueryCoverage),
    parse: parseFraction,
  },
  minDeeperPageMentions: {
    flag: '--min-deeper-page-mentions <0-1>',
    env: 'CITEWISE_MIN_DEEPER_PAGE_MENTIONS',
    group: 'ranking',
    meaning:
      "When reading deeper, share of the question's words a fetched page must contain to be extracted (0 = every page).",
    default: String(ENGINE_DEFAULTS.minDeeperPageMentions),
    parse: parseFraction,
  },
  minDeeperSnippetCoverage: {
    flag: '--min-deeper-snippet-coverage <0-1>',
    env: 'CITEWISE_MIN_DEEPER_SNIPPET_COVERAGE',
    group: 'ranking',
    meaning:
      "When reading deeper, share of the question's words a result's title and snippet must hold for its " +
      'page to be fetched (0 = every result).',
    default: String(ENGINE_DEFAULTS.minDeeperSnippetCoverage),
    parse: parseFraction,
  },
  cheapResults: {
    flag: '--cheap-results <n>',
    env: 'CITEWISE_CHEAP_RESULTS',
    group: 'ranking',
    meaning:
      'Results read with the first ones when they cost the site nothing new (cached, or a fast host with ' +
      'room); equal to --max-results: never.',
    default: String(ENGINE_DEFAULTS.cheapResults),
    parse: parsePositiveInteger,
  },
  maxPassageTokens: {
    flag: '--max-passage-tokens <n>',
    env: 'CITEWISE_MAX_PASSAGE_TOKENS',
    group: 'ranking',
    meaning: "Token budget of the passages given to the answerer; size it to the model's context window.",
    default: String(ENGINE_DEFAULTS.maxPassageTokens),
    parse: parsePositiveInteger,
  },
  researchMaxHops: {
    flag: '--research-max-hops <n>',
    env: 'CITEWISE_RESEARCH_MAX_HOPS',
    group: 'research',
    meaning: 'Most rounds of search → read → plan in one research search (the first included).',
    default: String(RESEARCH_DEFAULTS.maxHops),
    parse: parsePositiveInteger,
  },
  researchMaxQueries: {
    flag: '--research-max-queries <n>',
    env: 'CITEWISE_RESEARCH_MAX_QUERIES',
    group: 'research',
    meaning:
      'Most search queries one research search sends (also what it holds: this times the price of one).',
    default: String(RESEARCH_DEFAULTS.maxQueries),
    parse: parsePositiveInteger,
  },
  researchMaxPages: {
    flag: '--research-max-pages <n>',
    env: 'CITEWISE_RESEARCH_MAX_PAGES',
    group: 'research',
    meaning: 'Most pages one research search reads (never the same page twice).',
    default: String(RESEARCH_DEFAULTS.maxPages),
    parse: parsePositiveInteger,
  },
  researchMaxPassageTokens: {
    flag: '--research-max-passage-tokens <n>',
    env: 'CITEWISE_RESEARCH_MAX_PASSAGE_TOKENS',
    group: 'research',
    meaning:
      "Token budget of the evidence of every round given to the answerer; size it to the model's context.",
    default: String(RESEARCH_DEFAULTS.maxPassageTokens),
    parse: parsePositiveInteger,
  },
  researchMaxLatencyMs: {
    flag: '--research-max-latency <ms>',
    env: 'CITEWISE_RESEARCH_MAX_LATENCY_MS',
    group: 'research',
    meaning:
      "Time after the request arrived by which research stops and answers from what it read (a request's " +
      'max_latency_ms replaces it; --request-timeout still bounds it).',
    default: String(RESEARCH_DEFAULTS.maxLatencyMs),
    parse: parsePositiveInteger,
  },
  researchCreditsPerQuery: {
    flag: '--research-credits-per-query <n>',
    env: 'CITEWISE_RESEARCH_CREDITS_PER_QUERY',
    group: 'research',
    meaning:
      'Credits per search query a research search sends; its most queries times this is held, the rest ' +
      'returned; nothing when it found no page at all.',
    default: String(RESEARCH_DEFAULTS.creditsPerQuery),
    parse: parseNonNegativeInteger,
  },
  model: {
    flag: '--model <provider:model-id>',
    env: 'CITEWISE_MODEL',
    group: 'models',
    meaning:
      'Answer with a model: openai:gpt-4o-mini, anthropic:claude-…, google:gemini-…, ollama:llama3.2, ' +
      "openai-compatible:<id> with --model-base-url; the API key comes from the provider's variable, e.g. OPENAI_API_KEY.",
    defaultText: 'none: extractive answers',
    parse: parseModel,
  },
  modelBaseUrl: {
    flag: '--model-base-url <url>',
    env: 'CITEWISE_MODEL_BASE_URL',
    group: 'models',
    meaning: 'Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio).',
    defaultText: "the provider's",
    parse: parseHttpUrl,
  },
  embeddingModel: {
    flag: '--embedding-model <provider:model-id>',
    env: 'CITEWISE_EMBEDDING_MODEL',
    group: 'models',
    meaning: 'Re-rank passages with embeddings, e.g. openai:text-embedding-3-small.',
    defaultText: 'none',
    parse: parseModel,
  },
  modelFallback: {
    flag: '--model-fallback',
    env: 'CITEWISE_MODEL_FALLBACK',
    group: 'models',
    meaning: 'Answer extractively when the model fails, instead of a 500.',
    default: String(ENGINE_DEFAULTS.modelFallback),
    parse: parseBoolean,
    isSwitch: true,
  },
  strictGrounding: {
    flag: '--strict-grounding',
    env: 'CITEWISE_STRICT_GROUNDING',
    group: 'models',
    meaning:
      'Refuse (422) an answer written from pages none of whose sentences has a citation verified against its source (an uncited answer included): refunded when plain, charged when streamed; a request\'s "grounding" overrides it.',
    default: String(ENGINE_DEFAULTS.strictGrounding),
    parse: parseBoolean,
    isSwitch: true,
  },
  jobWorkers: {
    flag: '--job-workers <n>',
    env: 'CITEWISE_JOB_WORKERS',
    group: 'jobs',
    meaning:
      'Research jobs this process runs at once (0: none, the process only takes requests; `citewise worker` ' +
      'runs them elsewhere).',
    default: String(JOBS_DEFAULTS.workers),
    parse: parseNonNegativeInteger,
  },
  maxAccountDocuments: {
    flag: '--max-account-documents <n>',
    env: 'CITEWISE_MAX_ACCOUNT_DOCUMENTS',
    group: 'limits',
    meaning:
      'Documents one account may keep through POST /v1/documents; past it, 403 document_quota_exceeded.',
    default: String(DOCUMENTS_DEFAULTS.maxDocuments),
    parse: parseNonNegativeInteger,
  },
  maxAccountDocumentBytes: {
    flag: '--max-account-document-bytes <n>',
    env: 'CITEWISE_MAX_ACCOUNT_DOCUMENT_BYTES',
    group: 'limits',
    meaning:
      "Bytes of document text one account may keep through POST /v1/documents (one document's body is also capped by the request size limit).",
    default: String(DOCUMENTS_DEFAULTS.maxBytes),
    parse: parseNonNegativeInteger,
  },
  maxQueuedJobs: {
    flag: '--max-queued-jobs <n>',
    env: 'CITEWISE_MAX_QUEUED_JOBS',
    group: 'jobs',
    meaning: 'Research jobs one account may have waiting to run; past it, 429 with Retry-After.',
    default: String(JOBS_DEFAULTS.maxQueuedPerAccount),
    parse: parseNonNegativeInteger,
  },
  maxAccountJobs: {
    flag: '--max-account-jobs <n>',
    env: 'CITEWISE_MAX_ACCOUNT_JOBS',
    group: 'jobs',
    meaning:
      "Research jobs of one account running at once across every instance (its fair share of the workers); the account's other jobs wait while other accounts' run.",
    defaultText: `${JOBS_DEFAULTS.maxAccountWorkerShare * 100}% of --job-workers, rounded down, at least 1 (1 with the default 2 workers)`,
    parse: parsePositiveInteger,
  },
  maxStreamsPerKey: {
    flag: '--max-streams-per-key <n>',
    env: 'CITEWISE_MAX_STREAMS_PER_KEY',
    group: 'jobs',
    meaning:
      'Research event streams (`GET /v1/research/{id}/events`) one key keeps open on this instance; past it, ' +
      '429 with Retry-After.',
    default: String(JOBS_DEFAULTS.maxStreamsPerKey),
    parse: parsePositiveInteger,
  },
  maxStreamsPerAccount: {
    flag: '--max-streams-per-account <n>',
    env: 'CITEWISE_MAX_STREAMS_PER_ACCOUNT',
    group: 'jobs',
    meaning:
      'Research event streams the keys of one account keep open on this instance; past it, 429 with ' +
      'Retry-After.',
    default: String(JOBS_DEFAULTS.maxStreamsPerAccount),
    parse: parsePositiveInteger,
  },
  jobLeaseMs: {
    flag: '--job-lease <duration>',
    env: 'CITEWISE_JOB_LEASE',
    group: 'jobs',
    meaning:
      "How long a worker's claim on a job lasts unless renewed (every third of it); a job whose worker died " +
      'restarts on another after it. With PostgreSQL at least 10s.',
    default: formatDuration(JOBS_DEFAULTS.leaseMs),
    parse: parseDuration,
  },
  webhookSecret: {
    flag: '--webhook-secret <whsec_…>',
    env: 'CITEWISE_WEBHOOK_SECRET',
    group: 'jobs',
    meaning:
      'Signing secret of research webhooks (Standard Webhooks, `whsec_` + base64 of 24–64 random bytes); ' +
      'without it a job with a webhook is refused. Every instance needs the same one. Prefer the ' +
      'environment variable: a flag is part of the command line, which any user of the machine can read ' +
      '(`ps`).',
    defaultText: 'none',
    parse: parseWebhookSecret,
    secret: true,
  },
  allowWebhookHosts: {
    flag: '--allow-webhook-hosts <hosts>',
    env: 'CITEWISE_ALLOW_WEBHOOK_HOSTS',
    group: 'jobs',
    meaning:
      'Comma-separated hosts research webhooks may POST to although they resolve to private addresses ' +
      '(`host:port` allows only that port, a bare host every port). A list of its own: ' +
      '--allow-private-hosts opens hosts to the page fetcher only, never to webhooks.',
    defaultText: 'none',
    parse: parseHostList,
  },
} as const satisfies Readonly<Record<string, Setting<unknown>>>;

/** Settings of `citewise mcp` besides the engine's. */
export const MCP_SETTINGS = {
  apiKey: {
    flag: '--api-key <key>',
    env: 'CITEWISE_API_KEY',
    group: 'mcp',
    meaning: 'API key the MCP tools search with.',
    defaultText: 'none; required',
    parse: parseText,
    secret: true,
  },
  url: {
    flag: '--url <baseUrl>',
    env: 'CITEWISE_URL',
    group: 'mcp',
    meaning: 'Forward to a running citewise service at this URL instead of searching in-process.',
    defaultText: 'none: search in-process',
    parse: parseHttpUrl,
  },
} as const satisfies Readonly<Record<string, Setting<unknown>>>;

/** The resolved value of a setting: its parser's result, possibly undefined when it has no default. */
type SettingValue<S> = S extends { readonly parse: (text: string) => infer T }
  ? S extends { readonly default: string }
    ? T
    : T | undefined
  : never;

/** Values of a settings table. */
export type SettingValues<Table> = { readonly [K in keyof Table]: SettingValue<Table[K]> };

/** Settings of `citewise serve` (see {@link SERVE_SETTINGS} for each one's flag, variable and default). */
export type ServeConfig = SettingValues<typeof SERVE_SETTINGS>;

/** Settings of `citewise mcp`. */
export type McpConfig = SettingValues<typeof MCP_SETTINGS>;

/** A setting of either table. */
export type AnySetting = Setting<unknown>;

/** Every setting, for the help text and the configuration page. */
/** Settings of the console that `serve` mounts at `/` (src/console/; see docs/console.md). */
export const CONSOLE_SETTINGS = {
  console: {
    flag: '--no-console',
    env: 'CITEWISE_CONSOLE',
    group: 'console',
    meaning:
      'Serve the console (sign-up, keys, usage, playground) at `/`; `--no-console` or `false` turns it off.',
    default: 'true',
    parse: parseBoolean,
    isSwitch: true,
    negated: true,
  },
  signup: {
    flag: '--signup <policy>',
    env: 'CITEWISE_SIGNUP',
    group: 'console',
    meaning: 'Who may sign up in the console: `open` (anyone) or `invite-only` (through an invitation link).',
    default: 'open',
    parse: parseSignupPolicy,
  },
  signupDomains: {
    flag: '--signup-domains <domains>',
    env: 'CITEWISE_SIGNUP_DOMAINS',
    group: 'console',
    meaning: 'Comma-separated email domains allowed to sign up, e.g. example.com.',
    defaultText: 'any domain',
    parse: parseDomainList,
  },
  trustProxy: {
    flag: '--trust-proxy',
    env: 'CITEWISE_TRUST_PROXY',
    group: 'console',
    meaning:
      'Trust X-Forwarded-Proto/-Host/-For from a reverse proxy: Secure cookies behind https, client addresses ' +
      'for sign-in throttling.',
    default: 'false',
    parse: parseBoolean,
    isSwitch: true,
  },
  accountsStore: {
    flag: '--accounts-store <url>',
    env: 'CITEWISE_ACCOUNTS_STORE',
    group: 'console',
    meaning:
      'Where the console keeps its users, organizations and usage (the credit ledger): `sqlite:PATH` or `postgres://…`.',
    defaultText:
      'the --store database (SQLite or PostgreSQL); with a Redis store, SQLite in the data directory',
    parse: parseAccountsStore,
  },
  auditRetentionDays: {
    flag: '--audit-retention-days <days>',
    env: 'CITEWISE_AUDIT_RETENTION_DAYS',
    group: 'console',
    meaning:
      'Days the audit log (sign-ins, keys, members, credits, budgets, operator actions) keeps an entry; `0` keeps every entry.',
    default: String(AUDIT_DEFAULTS.retentionDays),
    parse: parseNonNegativeInteger,
  },
  // Single sign-on (OpenID Connect): see docs/console.md#single-sign-on-openid-connect.
  oidcIssuer: {
    flag: '--oidc-issuer <url>',
    env: 'CITEWISE_OIDC_ISSUER',
    group: 'console',
    meaning:
      'Issuer URL of the OpenID Connect provider for "Sign in with SSO" (discovered once and cached); https:// ' +
      '(plain http:// on loopback only). The callback to register is <public URL>/sso/callback.',
    defaultText: 'none (no SSO)',
    parse: parseIssuer,
  },
  oidcClientId: {
    flag: '--oidc-client-id <id>',
    env: 'CITEWISE_OIDC_CLIENT_ID',
    group: 'console',
    meaning: 'Client id of the console at the OpenID Connect provider (needed with --oidc-issuer).',
    defaultText: 'none',
    parse: parseText,
  },
  oidcClientSecret: {
    flag: '--oidc-client-secret <secret>',
    env: 'CITEWISE_OIDC_CLIENT_SECRET',
    group: 'console',
    meaning:
      'Client secret at the OpenID Connect provider; prefer the variable: the flag is visible to every user ' +
      'of the machine in `ps`.',
    defaultText: 'none (a public client: PKCE only)',
    parse: parseText,
    secret: true,
  },
  oidcOrganization: {
    flag: '--oidc-organization <name>',
    env: 'CITEWISE_OIDC_ORGANIZATION',
    group: 'console',
    meaning:
      'The organization SSO users join (by name; created with the free credits if missing; needed with ' +
      '--oidc-issuer).',
    defaultText: 'none',
    parse: parseText,
  },
  oidcAdminGroup: {
    flag: '--oidc-admin-group <group>',
    env: 'CITEWISE_OIDC_ADMIN_GROUP',
    group: 'console',
    meaning:
      'Value of the `groups` claim whose members are admins of the SSO organization, others members, set ' +
      'at every sign-in; without it roles are managed in the console.',
    defaultText: 'none',
    parse: parseText,
  },
  oidcScopes: {
    flag: '--oidc-scopes <scopes>',
    env: 'CITEWISE_OIDC_SCOPES',
    group: 'console',
    meaning: 'Scopes asked of the OpenID Connect provider, separated by spaces or commas.',
    defaultText: `${SSO_DEFAULTS.scopes.join(' ')} (plus groups with --oidc-admin-group)`,
    parse: parseScopes,
  },
  oidcPasswordSignIn: {
    flag: '--oidc-password-sign-in <on|off>',
    env: 'CITEWISE_OIDC_PASSWORD_SIGN_IN',
    group: 'console',
    meaning:
      '`off`: members of the SSO organization sign in with SSO only (instance operators may still use ' +
      'their password).',
    default: SSO_DEFAULTS.passwordSignIn ? 'on' : 'off',
    parse: parseBoolean,
  },
} as const satisfies Readonly<Record<string, AnySetting>>;

/** The console's settings as parsed from flags and variables. */
export type ConsoleTableValues = SettingValues<typeof CONSOLE_SETTINGS>;

export const ALL_SETTINGS: Readonly<Record<string, AnySetting>> = {
  ...SERVE_SETTINGS,
  ...MCP_SETTINGS,
  ...CONSOLE_SETTINGS,
};

/** `--flag (VARIABLE)`: how errors and docs name a setting. */
export function settingLabel(setting: AnySetting): string {
  const flag = setting.flag?.split(' ')[0];
  return flag ? `${flag} (${setting.env})` : setting.env;
}

/** The default as the help and the configuration page show it. */
export function defaultText(setting: AnySetting): string {
  return setting.defaultText ?? setting.default ?? 'none';
}
