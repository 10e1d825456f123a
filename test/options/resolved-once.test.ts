/**
 * Options resolved once (issue 47): `resolveEngineOptions` returns the pipeline's settings complete, research's
 * budgets included, and the engine's own (rate limit, model fallback); the pipeline's and research's entries take them as they are (the same object, no second
 * resolution); a library call's partial settings are completed and checked where they enter. Over HTTP, the
 * budgets configured on the engine are the ones the research loop and its planner run on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_DEFAULTS, resolveEngineOptions } from '../../src/engine/options.ts';
import { JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createRulesPlanner } from '../../src/pipeline/research/rules-planner.ts';
import { resolveResearchSettings } from '../../src/pipeline/research/settings.ts';
import { RESEARCH_DEFAULTS } from '../../src/pipeline/research/types.ts';
import { runPipeline } from '../../src/pipeline/run.ts';
import { resolvePipelineSettings } from '../../src/pipeline/settings.ts';
import { handmadeWeb, PAGES } from '../research/web.ts';
import { engineWithKey } from '../reliability/helpers.ts';
import { ADAPTERS, apiClient, type ApiClient, type RunningServer } from '../support/servers.ts';

/** Research's settings and their defaults (the table's price per query is the engine's, not research's). */
const { creditsPerQuery: _price, ...RESEARCH_SETTINGS_DEFAULTS } = RESEARCH_DEFAULTS;

describe('research jobs settings, resolved once', () => {
  it('come complete from resolveEngineOptions: the values given, the defaults of the rest, checked there', () => {
    const { jobs } = resolveEngineOptions({ jobs: { workers: 4, webhookAttempts: 3 } });
    expect(jobs).toEqual({
      workers: 4,
      maxQueuedPerAccount: JOBS_DEFAULTS.maxQueuedPerAccount,
      maxRunningPerAccount: 2, // half of the 4 workers
      leaseMs: JOBS_DEFAULTS.leaseMs,
      maxAttempts: JOBS_DEFAULTS.maxAttempts,
      timeLimitMs: JOBS_DEFAULTS.timeLimitMs,
      pollMs: JOBS_DEFAULTS.pollMs,
      eventPollMs: JOBS_DEFAULTS.eventPollMs,
      maxStreamsPerKey: JOBS_DEFAULTS.maxStreamsPerKey,
      maxStreamsPerAccount: JOBS_DEFAULTS.maxStreamsPerAccount,
      webhookDelivery: {
        attempts: 3,
        backoffMs: JOBS_DEFAULTS.webhookBackoffMs,
        timeoutMs: JOBS_DEFAULTS.webhookTimeoutMs,
      },
    });
    expect(() => resolveEngineOptions({ jobs: { leaseMs: 0 } })).toThrow(/jobs\.leaseMs/);
  });
});

describe('research settings, resolved once', () => {
  it('come complete from resolveEngineOptions, with the values given and the defaults of the rest', () => {
    expect(resolveEngineOptions({}).pipeline.research).toEqual(RESEARCH_SETTINGS_DEFAULTS);
    const given = resolveEngineOptions({ research: { maxHops: 2, leadsPerRound: 1, maxLatencyMs: 900 } });
    expect(given.pipeline.research).toEqual({
      ...RESEARCH_SETTINGS_DEFAULTS,
      maxHops: 2,
      leadsPerRound: 1,
      maxLatencyMs: 900,
    });
    expect(given.pipeline.cheapResults).toBeGreaterThan(0);
  });

  it("are taken as they are by the pipeline's and research's entries: the same objects, not resolved again", () => {
    const { pipeline } = resolveEngineOptions({ research: { maxPages: 7 } });
    expect(resolvePipelineSettings(pipeline)).toBe(pipeline);
    expect(resolveResearchSettings(pipeline.research)).toBe(pipeline.research);
  });

  it("complete a library call's partial settings where the run enters, research's included", () => {
    const settings = resolvePipelineSettings({ maxResults: 5, maxPassageTokens: 4000, pageTimeoutMs: 5000 });
    expect(settings.research).toEqual(RESEARCH_SETTINGS_DEFAULTS);
    expect(resolveResearchSettings({ maxQueries: 3 })).toEqual({
      ...RESEARCH_SETTINGS_DEFAULTS,
      maxQueries: 3,
    });
  });

  it('refuse a bad budget with the error that names it, wherever they enter', async () => {
    const message = 'research.leadsPerRound must be a positive integer, got 0';
    expect(() => resolveEngineOptions({ research: { leadsPerRound: 0 } })).toThrow(new RangeError(message));
    expect(() => createRulesPlanner({ leadsPerRound: 0 })).toThrow(new RangeError(message));
    const web = handmadeWeb(PAGES);
    const run = runPipeline(
      {
        prompt: 'Who directed Love Affair?',
        context: [],
        responseType: 'text',
        filters: {},
        depth: 'research',
      },
      { search: web.search, ranker: createBm25Ranker(), answerer: createExtractiveAnswerer() },
      { maxResults: 5, maxPassageTokens: 4000, pageTimeoutMs: 5000, research: { leadsPerRound: 0 } },
      { signal: new AbortController().signal, requestId: 'settings-test', deadline: Date.now() + 10_000 },
    );
    await expect(run).rejects.toThrow(new RangeError(message));
    expect(web.queries).toEqual([]);
    expect(() => resolveResearchSettings('five' as never)).toThrow(
      new TypeError('research must be an object'),
    );
  });
});

describe("the engine's own settings, resolved once", () => {
  it('come with their defaults from resolveEngineOptions, for the modules that build the stages and stores', () => {
    const defaults = resolveEngineOptions({});
    expect(defaults.modelFallback).toBe(ENGINE_DEFAULTS.modelFallback);
    expect(defaults.rateLimit).toEqual(ENGINE_DEFAULTS.rateLimit);
    const given = resolveEngineOptions({ modelFallback: true, rateLimit: { limit: 3, windowMs: 1000 } });
    expect(given.modelFallback).toBe(true);
    expect(given.rateLimit).toEqual({ limit: 3, windowMs: 1000 });
  });
});

describe('research budgets configured on the engine, over HTTP', () => {
  const web = handmadeWeb(PAGES);
  let engine: SearchEngine;
  let server: RunningServer;
  let api: ApiClient;

  beforeAll(async () => {
    // One round, one result read per name: the loop and the rules planner run on these, not the defaults.
    const setup = await engineWithKey({
      search: web.search,
      fetcher: false,
      extractor: false,
      research: { maxHops: 1, entityResults: 1, questionResults: 1 },
    });
    engine = setup.engine;
    server = await ADAPTERS['node:http']!(engine);
    api = apiClient(server.baseUrl, setup.key);
  });
  afterAll(async () => {
    await server.close();
    await engine.close();
  });

  it('stops at the configured hop limit, having read the configured results per query', async () => {
    const response = await api.post({
      prompt: 'Who is the child of the director of Love Affair?',
      depth: 'research',
      include: ['steps'],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      steps: { queries: string[]; pages: string[]; stopped?: string }[];
    };
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]?.stopped).toBe('hop_limit');
    expect(body.steps[0]?.pages.length).toBeLessThanOrEqual(body.steps[0]?.queries.length ?? 0);
  });
});
