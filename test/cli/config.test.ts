import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseRateLimit, resolveServeConfig } from '../../src/cli/config.ts';

describe('CLI configuration', () => {
  it('uses the documented defaults', () => {
    expect(resolveServeConfig({}, {})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      dataDir: resolve('.citewise'),
      corpus: [],
      rateLimit: { limit: 60, windowMs: 60_000 },
      creditCost: 1,
      maintenance: false,
      logLevel: 'info',
      search: 'local',
      providers: { wikipediaLanguage: 'en', timeoutMs: 10_000, searxngPages: 1 },
      allowPrivateHosts: [],
      maxResults: 5,
      expandToResults: 40,
      minQueryCoverage: 0.8,
      maxPassageTokens: 4000,
      requestTimeoutMs: 30_000,
      modelFallback: false,
      mcpAllowedHosts: ['localhost', '127.0.0.1', '::1'],
      maxConnections: 1024,
      maxConnectionsPerAddress: 128,
    });
  });

  it('reads environment variables, and flags win over them', () => {
    const env = {
      CITEWISE_PORT: '9000',
      CITEWISE_HOST: '0.0.0.0',
      CITEWISE_DATA_DIR: '/tmp/as-data',
      CITEWISE_CORPUS: '/a:/b',
      CITEWISE_RATE_LIMIT: '10/1s',
      CITEWISE_CREDIT_COST: '2',
      CITEWISE_MAINTENANCE: 'true',
      CITEWISE_LOG_LEVEL: 'warn',
      CITEWISE_SEARCH: 'wikipedia,duckduckgo',
      SEARXNG_URL: 'http://searx.local',
      BRAVE_API_KEY: 'brave-secret',
      CITEWISE_ALLOW_PRIVATE_HOSTS: 'wiki.corp, intranet',
      CITEWISE_MAX_RESULTS: '8',
      CITEWISE_EXPAND_TO_RESULTS: '20',
      CITEWISE_MIN_QUERY_COVERAGE: '0.5',
      CITEWISE_MAX_PASSAGE_TOKENS: '8000',
      CITEWISE_SEARXNG_PAGES: '3',
      CITEWISE_REQUEST_TIMEOUT: '45s',
    };
    const fromEnv = resolveServeConfig({}, env);
    expect(fromEnv).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/as-data',
      corpus: ['/a', '/b'],
      rateLimit: { limit: 10, windowMs: 1000 },
      creditCost: 2,
      maintenance: true,
      logLevel: 'warn',
      search: 'wikipedia,duckduckgo',
      providers: {
        searxngUrl: 'http://searx.local',
        searxngPages: 3,
        braveApiKey: 'brave-secret',
        wikipediaLanguage: 'en',
      },
      allowPrivateHosts: ['wiki.corp', 'intranet'],
      maxResults: 8,
      expandToResults: 20,
      minQueryCoverage: 0.5,
      maxPassageTokens: 8000,
      requestTimeoutMs: 45_000,
    });
    const fromFlags = resolveServeConfig(
      { port: '1234', rateLimit: '5/1h', corpus: ['/c'], maintenance: false },
      env,
    );
    expect(fromFlags).toMatchObject({
      port: 1234,
      rateLimit: { limit: 5, windowMs: 3_600_000 },
      corpus: ['/c'],
    });
  });

  it('parses durations and rate limits, and rejects nonsense', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1m')).toBe(60_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('30d')).toBe(2_592_000_000);
    expect(parseDuration('m')).toBe(60_000);
    expect(parseRateLimit('60/1m')).toEqual({ limit: 60, windowMs: 60_000 });
    expect(parseRateLimit('10/s')).toEqual({ limit: 10, windowMs: 1000 });
    for (const bad of ['', 'soon', '5', '-1s', '0s', '1y'])
      expect(() => parseDuration(bad)).toThrow(/invalid duration/);
    for (const bad of ['lots', '0/1m', '1.5/1m', '10']) expect(() => parseRateLimit(bad)).toThrow(/invalid/);
    for (const bad of ['', 'most', '-0.1', '1.5'])
      expect(() => resolveServeConfig({ minQueryCoverage: bad }, {})).toThrow(/--min-query-coverage/);
    expect(() => resolveServeConfig({ expandToResults: '0' }, {})).toThrow(/--expand-to-results/);
    expect(() => resolveServeConfig({ port: '70000' }, {})).toThrow(/invalid port/);
    expect(() => resolveServeConfig({ creditCost: '-1' }, {})).toThrow(/invalid --credit-cost/);
  });
});
