/**
 * `depth: "research"` through the real HTTP stack (node:http adapter): the steps, the price per query sent
 * (held up front, capped by `max_credits`, the rest returned), 433 before any work, bad input as 400s, and
 * the streamed `step` events before the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchEngine } from '../../src/engine/index.ts';
import { RESEARCH_DEFAULTS } from '../../src/pipeline/research/types.ts';
import { engineWithKey } from '../reliability/helpers.ts';
import { ADAPTERS, apiClient, type ApiClient } from '../support/servers.ts';
import { askCounted, handmadeWeb, PAGES, researchServer, type ResearchServer } from './web.ts';

const QUESTION = 'Who is the child of the director of Love Affair?';

interface Step {
  hop: number;
  planner: string;
  queries: string[];
  pages: string[];
  found: string[];
  stopped?: string;
}

describe('depth "research" over HTTP', () => {
  const web = handmadeWeb(PAGES);
  let engine: SearchEngine;
  let api: ApiClient;
  let balance: () => Promise<number>;
  let baseUrl: string;
  let key: string;
  let served: ResearchServer;

  beforeAll(async () => {
    // The question's own search reads its best result only, so that the director's page is a hop's.
    served = await researchServer(web, { questionResults: 1 });
    ({ engine, api, balance, key } = served);
    baseUrl = served.server.baseUrl;
  });
  afterAll(() => served.close());

  it('answers with each round as a step, charged one credit per query it sent', async () => {
    const before = await balance();
    const response = await api.post({ prompt: QUESTION, depth: 'research', include: ['steps', 'usage'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      answer: string;
      sources: string[];
      steps: Step[];
      usage: { credits_charged: number };
    };
    expect(body.steps.length).toBeGreaterThanOrEqual(2);
    expect(body.steps[0]).toMatchObject({ hop: 1, planner: 'rules' });
    expect(body.steps.at(-1)?.stopped).toBeDefined();
    const queries = body.steps.flatMap((step) => step.queries).length;
    expect(body.usage.credits_charged).toBe(queries);
    expect(before - (await balance())).toBe(queries);
    // Each hop's source is cited or at least given: the director's page is among the sources read.
    expect(body.steps.flatMap((step) => step.pages)).toContain(web.urlOf('Leo McCarey'));
  });

  it('stops after its first round when it finds nothing, charged only the queries it sent', async () => {
    // The web shares a word with the question (snowfall) but knows nothing of the observatory.
    const { body, sent, spent } = await askCounted(
      served,
      web,
      'Who owns the snowfall gauge of the Qwertz Observatory?',
    );
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]?.stopped).toBe('nothing_found');
    expect(body.steps[0]?.pages.length).toBeGreaterThan(0);
    expect(sent).toBe(body.steps[0]?.queries.length);
    expect(sent).toBeLessThan(RESEARCH_DEFAULTS.maxQueries / 2);
    expect(body.usage.credits_charged).toBe(sent);
    // The rest of the hold came back: the balance lost exactly the queries sent.
    expect(spent).toBe(sent);
  });

  it('shows the spec body only, unless steps are asked for', async () => {
    const response = await api.post({ prompt: QUESTION, depth: 'research' });
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['answer', 'response_time', 'response_type', 'sources']);
  });

  it('sends no more queries than max_credits pays for, and charges no more', async () => {
    const before = await balance();
    const response = await api.post({
      prompt: QUESTION,
      depth: 'research',
      max_credits: 2,
      include: ['steps', 'usage'],
    });
    const body = (await response.json()) as { steps: Step[]; usage: { credits_charged: number } };
    expect(body.steps.flatMap((step) => step.queries).length).toBeLessThanOrEqual(2);
    expect(body.usage.credits_charged).toBeLessThanOrEqual(2);
    expect(before - (await balance())).toBe(body.usage.credits_charged);
  });

  it.each([
    [{ depth: 'bottomless' }, 'depth must be fast, standard, deep or research'],
    [{ depth: 'research', max_credits: 0 }, 'max_credits must be an integer from 1 to'],
    [{ depth: 'research', max_credits: 'ten' }, 'max_credits must be an integer from 1 to'],
    [{ depth: 'standard', max_credits: 1.5 }, 'max_credits must be an integer from 1 to'],
  ])('refuses %j with a 400 naming the field, charging nothing', async (extra, description) => {
    const before = await balance();
    const response = await api.post({ prompt: QUESTION, ...extra });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { description: string } }).error.description).toContain(
      description,
    );
    expect(await balance()).toBe(before);
  });

  it('answers 433 before any search when the account cannot hold the research price', async () => {
    const poor = await engine.createKey({ credits: RESEARCH_DEFAULTS.maxQueries - 1 });
    const searched = web.queries.length;
    const response = await apiClient(baseUrl, poor.key).post({ prompt: QUESTION, depth: 'research' });
    expect(response.status).toBe(433);
    expect(web.queries.length).toBe(searched);
    // With a cap it can pay, the same account gets its answer.
    const capped = await apiClient(baseUrl, poor.key).post({
      prompt: QUESTION,
      depth: 'research',
      max_credits: 3,
    });
    expect(capped.status).toBe(200);
  });

  it('runs as the citewise-research model of the OpenAI-compatible route, priced like research', async () => {
    const before = await balance();
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'citewise-research', messages: [{ role: 'user', content: QUESTION }] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { citations: string[] };
    expect(body.citations.length).toBeGreaterThan(0);
    // More than one query was sent and charged: a standard search would cost one credit.
    expect(before - (await balance())).toBeGreaterThan(1);
  });

  it('streams a step event per round before the answer', async () => {
    const response = await api.post({ prompt: QUESTION, depth: 'research', stream: true });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    const firstSources = events.indexOf('sources');
    expect(events.slice(0, firstSources).every((event) => event === 'step')).toBe(true);
    expect(events.filter((event) => event === 'step').length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)).toBe('done');
  });
});

describe('depth "research" with a small max_latency_ms', () => {
  it('answers 200 with what it read when the time budget ends, never a 5xx', async () => {
    const web = handmadeWeb(PAGES);
    const slow = {
      id: 'slow',
      search: async (...args: Parameters<typeof web.search.search>) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return web.search.search(...args);
      },
    };
    const { engine, key } = await engineWithKey({ search: slow, fetcher: false, extractor: false });
    const server = await ADAPTERS['node:http']!(engine);
    try {
      const response = await apiClient(server.baseUrl, key).post({
        prompt: QUESTION,
        depth: 'research',
        max_latency_ms: 100,
        include: ['steps'],
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { answer: string; steps: Step[] };
      expect(body.steps).toHaveLength(1);
      expect(body.steps[0]?.stopped).toBe('time_limit');
      expect(body.answer.length).toBeGreaterThan(0);
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
