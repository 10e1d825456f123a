import { delimiter, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_DEFAULTS } from '../../src/engine/index.ts';
import { RESEARCH_DEFAULTS } from '../../src/pipeline/research/types.ts';
import { CONTENT_CACHE_DEFAULTS } from '../../src/pipeline/extract/index.ts';
import { FETCHER_DEFAULTS } from '../../src/pipeline/fetch/index.ts';
import { JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import { DOCUMENTS_DEFAULTS } from '../../src/contract/documents.ts';
import { resolveConsoleTable, resolvePublicUrl, resolveServeConfig } from '../../src/cli/config.ts';
import {
  formatByteSize,
  formatDuration,
  formatRateLimit,
  parseByteSize,
  parseDuration,
  parseRateLimit,
  SERVE_SETTINGS,
} from '../../src/cli/settings.ts';

describe('CLI configuration', () => {
  it('uses the defaults of the settings table, which are the engine defaults where the engine has one', () => {
    expect(resolveServeConfig({}, {})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      publicUrl: undefined,
      maxConnections: 1024,
      maxConnectionsPerAddress: 128,
      mcpAllowedHosts: undefined,
      maintenance: ENGINE_DEFAULTS.maintenance,
      logLevel: 'info',
      metricsPath: undefined,
      dataDir: resolve('.citewise'),
      store: undefined,
      limitsStore: undefined,
      rateLimit: ENGINE_DEFAULTS.rateLimit,
      creditCost: ENGINE_DEFAULTS.creditCost,
      extractCreditCost: ENGINE_DEFAULTS.extractCreditCost,
      extractFailedShare: ENGINE_DEFAULTS.extractFailedShare,
      tavilyPrefix: ENGINE_DEFAULTS.tavilyPrefix,
      requestTimeoutMs: ENGINE_DEFAULTS.requestTimeoutMs,
      maxLatencyMs: ENGINE_DEFAULTS.maxLatencyMs,
      stragglerGraceMs: ENGINE_DEFAULTS.stragglerGraceMs,
      maxConcurrentSearches: ENGINE_DEFAULTS.maxConcurrentSearches,
      maxQueuedSearches: ENGINE_DEFAULTS.maxQueuedSearches,
      maxAccountShare: ENGINE_DEFAULTS.maxAccountShare,
      search: 'local',
      corpus: undefined,
      includeManual: false,
      indexStore: 'sqlite',
      maxAccountDocuments: DOCUMENTS_DEFAULTS.maxDocuments,
      maxAccountDocumentBytes: DOCUMENTS_DEFAULTS.maxBytes,
      searxngUrl: undefined,
      searxngPages: 1,
      braveApiKey: undefined,
      tavilyApiKey: undefined,
      serperApiKey: undefined,
      exaApiKey: undefined,
      wikipediaLanguage: 'en',
      searchTimeoutMs: 10_000,
      allowPrivateHosts: undefined,
      perHostConcurrency: FETCHER_DEFAULTS.perHostConcurrency,
      perHostRate: FETCHER_DEFAULTS.perHostRate,
      perHostBurst: FETCHER_DEFAULTS.perHostBurst,
      contentCacheBytes: CONTENT_CACHE_DEFAULTS.maxBytes,
      cheapResults: ENGINE_DEFAULTS.cheapResults,
      maxResults: ENGINE_DEFAULTS.maxResults,
      expandToResults: ENGINE_DEFAULTS.expandToResults,
      minQueryCoverage: ENGINE_DEFAULTS.minQueryCoverage,
      minDeeperPageMentions: ENGINE_DEFAULTS.minDeeperPageMentions,
      minDeeperSnippetCoverage: ENGINE_DEFAULTS.minDeeperSnippetCoverage,
      maxPassageTokens: ENGINE_DEFAULTS.maxPassageTokens,
      researchMaxHops: RESEARCH_DEFAULTS.maxHops,
      researchMaxQueries: RESEARCH_DEFAULTS.maxQueries,
      researchMaxPages: RESEARCH_DEFAULTS.maxPages,
      researchMaxPassageTokens: RESEARCH_DEFAULTS.maxPassageTokens,
      researchMaxLatencyMs: RESEARCH_DEFAULTS.maxLatencyMs,
      researchCreditsPerQuery: RESEARCH_DEFAULTS.creditsPerQuery,
      model: undefined,
      modelBaseUrl: undefined,
      embeddingModel: undefined,
      modelFallback: ENGINE_DEFAULTS.modelFallback,
      strictGrounding: ENGINE_DEFAULTS.strictGrounding,
      jobWorkers: JOBS_DEFAULTS.workers,
      maxQueuedJobs: JOBS_DEFAULTS.maxQueuedPerAccount,
      maxAccountJobs: undefined,
      maxStreamsPerKey: JOBS_DEFAULTS.maxStreamsPerKey,
      maxStreamsPerAccount: JOBS_DEFAULTS.maxStreamsPerAccount,
      jobLeaseMs: JOBS_DEFAULTS.leaseMs,
      webhookSecret: undefined,
      allowWebhookHosts: undefined,
    });
  });

  it('reads environment variables, and flags win over them', () => {
    const env = {
      CITEWISE_PORT: '9000',
      CITEWISE_HOST: '0.0.0.0',
      CITEWISE_PUBLIC_URL: 'https://search.example.com/',
      CITEWISE_DATA_DIR: '/tmp/as-data',
      CITEWISE_CORPUS: ['/a', '/b'].join(delimiter),
      CITEWISE_RATE_LIMIT: '10/1s',
      CITEWISE_CREDIT_COST: '2',
      CITEWISE_MAINTENANCE: 'true',
      CITEWISE_LOG_LEVEL: 'warn',
      CITEWISE_SEARCH: 'wikipedia,duckduckgo',
      SEARXNG_URL: 'http://searx.local',
      BRAVE_SEARCH_API_KEY: 'brave-secret',
      CITEWISE_ALLOW_PRIVATE_HOSTS: 'wiki.corp, intranet',
      CITEWISE_MAX_RESULTS: '8',
      CITEWISE_EXPAND_TO_RESULTS: '20',
      CITEWISE_MIN_QUERY_COVERAGE: '0.5',
      CITEWISE_MAX_PASSAGE_TOKENS: '8000',
      CITEWISE_SEARXNG_PAGES: '3',
      CITEWISE_REQUEST_TIMEOUT: '45s',
      CITEWISE_MODEL_FALLBACK: 'yes',
      CITEWISE_METRICS_PATH: '/metrics',
    };
    const fromEnv = resolveServeConfig({}, env);
    expect(fromEnv).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://search.example.com',
      dataDir: '/tmp/as-data',
      corpus: ['/a', '/b'],
      rateLimit: { limit: 10, windowMs: 1000 },
      creditCost: 2,
      maintenance: true,
      logLevel: 'warn',
      search: 'wikipedia,duckduckgo',
      searxngUrl: 'http://searx.local',
      searxngPages: 3,
      braveApiKey: 'brave-secret',
      wikipediaLanguage: 'en',
      allowPrivateHosts: ['wiki.corp', 'intranet'],
      maxResults: 8,
      expandToResults: 20,
      minQueryCoverage: 0.5,
      maxPassageTokens: 8000,
      requestTimeoutMs: 45_000,
      modelFallback: true,
      metricsPath: '/metrics',
    });
    const fromFlags = resolveServeConfig(
      { port: '1234', rateLimit: '5/1h', corpus: ['/c'], maintenance: true, wikipediaLang: 'de' },
      { ...env, CITEWISE_MAINTENANCE: 'false' },
    );
    expect(fromFlags).toMatchObject({
      port: 1234,
      rateLimit: { limit: 5, windowMs: 3_600_000 },
      corpus: ['/c'],
      maintenance: true,
      wikipediaLanguage: 'de',
    });
  });

  it('--tavily-prefix (or off), --extract-credit-cost and --strict-grounding, from flags and variables', () => {
    const env = {
      CITEWISE_TAVILY_PREFIX: '/tavily/',
      CITEWISE_EXTRACT_CREDIT_COST: '3',
      CITEWISE_STRICT_GROUNDING: 'true',
    };
    expect(resolveServeConfig({}, env)).toMatchObject({
      tavilyPrefix: '/tavily',
      extractCreditCost: 3,
      strictGrounding: true,
    });
    expect(
      resolveServeConfig({ tavilyPrefix: 'off', extractCreditCost: '0', strictGrounding: true }, {}),
    ).toMatchObject({ tavilyPrefix: false, extractCreditCost: 0, strictGrounding: true });
    expect(() => resolveServeConfig({ tavilyPrefix: '/v1/tavily' }, {})).toThrow(/tavily-prefix/);
  });

  it('the public URL defaults to http://<host>:<port> of the listener; a set one loses its trailing slash', () => {
    expect(resolvePublicUrl(undefined, '127.0.0.1', 8787)).toBe('http://127.0.0.1:8787');
    expect(resolvePublicUrl(undefined, '::1', 9000)).toBe('http://[::1]:9000');
    const { publicUrl } = resolveServeConfig({ publicUrl: 'https://search.example.com/' }, {});
    expect(resolvePublicUrl(publicUrl, '0.0.0.0', 8787)).toBe('https://search.example.com');
  });

  it('an empty variable counts as unset', () => {
    expect(resolveServeConfig({}, { CITEWISE_PORT: '', BRAVE_API_KEY: ' ' })).toMatchObject({
      port: 8787,
      braveApiKey: undefined,
    });
  });

  it('parses durations and rate limits, and formats them back', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1m')).toBe(60_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('30d')).toBe(2_592_000_000);
    expect(parseDuration('m')).toBe(60_000);
    expect(parseRateLimit('60/1m')).toEqual({ limit: 60, windowMs: 60_000 });
    expect(parseRateLimit('10/s')).toEqual({ limit: 10, windowMs: 1000 });
    for (const ms of [1, 500, 1_000, 30_000, 60_000, 90_000, 3_600_000, 86_400_000, 604_800_000])
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    expect(parseRateLimit(formatRateLimit(ENGINE_DEFAULTS.rateLimit))).toEqual(ENGINE_DEFAULTS.rateLimit);
    for (const bad of ['', 'soon', '5', '-1s', '0s', '1y'])
      expect(() => parseDuration(bad)).toThrow(/must be a (positive )?duration/);
    for (const bad of ['lots', '0/1m', '1.5/1m', '10', '10/soon', '1/1m/2'])
      expect(() => parseRateLimit(bad)).toThrow(/must be REQUESTS\/WINDOW/);
  });

  it('parses sizes and per-host rates, and formats sizes back', () => {
    expect(parseByteSize('128MiB')).toBe(134_217_728);
    expect(parseByteSize('512 KiB')).toBe(524_288);
    expect(parseByteSize('1gib')).toBe(1_073_741_824);
    expect(parseByteSize('0')).toBe(0);
    expect(parseByteSize('1048576')).toBe(1_048_576);
    for (const bytes of [0, 1_000, 524_288, 134_217_728, 1_073_741_824])
      expect(parseByteSize(formatByteSize(bytes))).toBe(bytes);
    for (const bad of ['', 'lots', '-1MiB', '5MB', '1.5.2MiB'])
      expect(() => parseByteSize(bad)).toThrow(/must be a size/);
    expect(SERVE_SETTINGS.perHostRate.parse('0.5')).toBe(0.5);
    for (const bad of ['0', '-2', 'fast', ''])
      expect(() => SERVE_SETTINGS.perHostRate.parse(bad)).toThrow(/must be a positive number/);
  });

  it('every default of the table parses', () => {
    for (const [name, setting] of Object.entries(SERVE_SETTINGS)) {
      if ('default' in setting) expect(() => setting.parse(setting.default), name).not.toThrow();
    }
  });

  it('a bad value names the flag and the variable, and what was given (never a secret)', () => {
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ maxResults: 'x' }, {}, '--max-results (CITEWISE_MAX_RESULTS) must be a positive integer, got "x"'],
      [
        {},
        { CITEWISE_MAX_RESULTS: '0' },
        '--max-results (CITEWISE_MAX_RESULTS) must be a positive integer, got "0"',
      ],
      [
        { minQueryCoverage: '1.5' },
        {},
        '--min-query-coverage (CITEWISE_MIN_QUERY_COVERAGE) must be a number from 0 to 1, got "1.5"',
      ],
      [
        { expandToResults: '0' },
        {},
        '--expand-to-results (CITEWISE_EXPAND_TO_RESULTS) must be a positive integer',
      ],
      [{ port: '70000' }, {}, '--port (CITEWISE_PORT) must be an integer from 0 to 65535, got "70000"'],
      [
        { creditCost: '-1' },
        {},
        '--credit-cost (CITEWISE_CREDIT_COST) must be a non-negative integer, got "-1"',
      ],
      [{}, { CITEWISE_MAINTENANCE: 'maybe' }, '--maintenance (CITEWISE_MAINTENANCE) must be true or false'],
      [{ logLevel: 'loud' }, {}, '--log-level (CITEWISE_LOG_LEVEL) must be one of fatal, error, warn'],
      [{ store: 'mysql://db' }, {}, '--store (CITEWISE_STORE) must be redis://…'],
      [
        { limitsStore: 'postgres://db' },
        {},
        '--limits-store (CITEWISE_LIMITS_STORE) must be redis://… or memory:',
      ],
      [{ search: 'bing' }, {}, '--search (CITEWISE_SEARCH) names an unknown provider "bing"'],
      [{ searxngUrl: 'searx.local' }, {}, '--searxng-url (SEARXNG_URL) must be an http(s) URL'],
      [{ model: 'gpt-4o' }, {}, '--model (CITEWISE_MODEL) model spec "gpt-4o" must look like'],
      [
        { metricsPath: 'metrics' },
        {},
        '--metrics-path (CITEWISE_METRICS_PATH) must be a path starting with "/"',
      ],
      [{ publicUrl: 'ftp://x' }, {}, '--public-url (CITEWISE_PUBLIC_URL) must be an http(s) URL'],
    ];
    for (const [flags, env, message] of cases) {
      expect(() => resolveServeConfig(flags, env), message).toThrow(message);
    }
    expect(() => resolveServeConfig({}, { CITEWISE_SEARCH: 'a,,b' })).toThrow(
      /^--search \(CITEWISE_SEARCH\)/,
    );
  });

  it("console settings come from the table; --no-console wins, and commander's implicit true does not hide the variable", () => {
    expect(resolveConsoleTable({}, {})).toMatchObject({ console: true, signup: 'open', trustProxy: false });
    // Commander reports a negatable flag as true when it is absent: the variable still decides.
    expect(resolveConsoleTable({ console: true }, { CITEWISE_CONSOLE: 'false' }).console).toBe(false);
    expect(resolveConsoleTable({ console: false }, { CITEWISE_CONSOLE: 'true' }).console).toBe(false);
    expect(resolveConsoleTable({ trustProxy: true }, {}).trustProxy).toBe(true);
    expect(
      resolveConsoleTable({}, { CITEWISE_SIGNUP_DOMAINS: 'Example.com, @corp.io' }).signupDomains,
    ).toEqual(['example.com', 'corp.io']);
    expect(() => resolveConsoleTable({ signup: 'everyone' }, {})).toThrow(
      /^--signup \(CITEWISE_SIGNUP\) must be open or invite-only/,
    );
    expect(() => resolveConsoleTable({}, { CITEWISE_ACCOUNTS_STORE: 'redis://x' })).toThrow(
      /^--accounts-store \(CITEWISE_ACCOUNTS_STORE\)/,
    );
  });
});
