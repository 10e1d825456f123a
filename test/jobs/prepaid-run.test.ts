/**
 * The prepaid run of research jobs (src/engine/prepaid.ts), over HTTP on a real loopback server: a job's
 * search holds no credits of its own (the job's hold pays), and it answers, cites, reports its steps and
 * charges exactly as a `POST /v1/search` of the same search; a failure fails the job with the search's
 * error. Also: the job's search, mapped from the research request without a second parse, is the search
 * that request's wire form parses to.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parseResearchRequest,
  researchSearchOf,
  searchRequestOf,
  type ResearchRequest,
} from '../../src/contract/research.ts';
import { parseSearchRequest } from '../../src/contract/search.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import type { SearchUsage } from '../../src/stores/account-types.ts';
import { staticAnswerer } from '../../src/testing/index.ts';
import { recordingCredits } from '../support/recording-credits.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { researchClient, type JobBody } from './support.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

const running: { engine: SearchEngine; server: RunningServer }[] = [];
afterEach(async () => {
  for (const { engine, server } of running.splice(0)) {
    await server.close();
    await engine.close();
  }
});

async function setup(options: SearchEngineOptions = {}) {
  const { store, seen } = recordingCredits();
  const ledger: SearchUsage[] = [];
  const engine = createSearchEngine({
    corpus: [CORPUS],
    credits: store,
    usage: { recordSearch: (usage) => ledger.push(usage) },
    ...options,
  });
  const { key, record } = await engine.createKey({ credits: 1_000 });
  const server = await ADAPTERS['node:http']!(engine);
  running.push({ engine, server });
  return { server, key, record, seen, ledger, api: researchClient(server.baseUrl, key) };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

const QUESTION: ResearchRequest = {
  prompt: 'Where does green tea come from, and how is it brewed?',
  context: [
    { role: 'user', content: 'I drink tea every morning.' },
    { role: 'assistant', content: 'Noted.' },
  ],
  max_sources: 4,
  max_credits: 6,
};

describe('a research job’s prepaid run', () => {
  it('holds only the job’s credits, and answers, cites, steps and charges as the same search does', async () => {
    // A public URL: the job (run outside any request) and the search cite the corpus under the same origin.
    const { api, key, record, seen, ledger, server } = await setup({ publicUrl: 'https://docs.example' });
    const response = await api.create(QUESTION);
    expect(response.status).toBe(202);
    const created = (await response.json()) as JobBody;
    const events = await api.allEvents(created.id);
    expect(events.at(-1)?.event).toBe('completed');
    await until(() => seen.commits.length > 0);
    const job = (await (await api.get(created.id)).json()) as JobBody & Record<string, unknown>;

    // Money: the job's own hold, charged once for what it used; its search held nothing of its own.
    const hold = `research:${created.id}`;
    expect(seen.holds.map((input) => [input.id, input.amount])).toEqual([[hold, 6]]);
    expect(seen.commits).toEqual([[hold, job.credits_used]]);
    expect(seen.refunds).toEqual([]);
    expect(ledger).toEqual([
      { accountId: record.accountId, keyId: record.id, kind: 'charge', credits: job.credits_used },
    ]);
    expect(await api.balance()).toBe(1_000 - job.credits_used);

    // The same search, sent to /v1/search as a client would: the same answer and the same price.
    const body = searchRequestOf(parseResearchRequest(QUESTION), JOBS_DEFAULTS.searchDepth);
    const searched = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(searched.status).toBe(200);
    const search = (await searched.json()) as Record<string, unknown> & {
      usage: { credits_charged: number };
    };
    expect(job.answer).toMatch(/\S/);
    expect(job['citations']).toBeDefined();
    expect(job.answer).toBe(search['answer']);
    expect(job.sources).toEqual(search['sources']);
    expect(job['citations']).toEqual(search['citations']);
    expect(job['grounding']).toEqual(search['grounding']);
    expect(job.steps).toEqual(search['steps']);
    expect(job.steps?.length).toBeGreaterThan(0);
    expect(job.credits_used).toBe(search.usage.credits_charged);
    // Each step was in the job's event log as the research made it, in order.
    expect(events.filter((event) => event.event === 'step').map((event) => event.data)).toEqual(job.steps);
  });

  it('fails the job with the search’s own error, refunded, when the search cannot run', async () => {
    // `documents: "own"` needs the documents API, which this engine does not offer.
    const { api, seen, ledger } = await setup();
    const created = (await (
      await api.create({ prompt: 'What do my notes say about tea?', documents: 'own' })
    ).json()) as JobBody;
    const events = await api.allEvents(created.id);
    expect(events.at(-1)?.event).toBe('failed');
    await until(() => seen.refunds.length > 0);
    const job = (await (await api.get(created.id)).json()) as JobBody;
    expect(job.error?.description).toBe(
      'Invalid request: documents "own" needs the documents API, which this service does not offer',
    );
    expect(job.credits_used).toBe(0);
    expect(seen.holds.map((input) => input.id)).toEqual([`research:${created.id}`]);
    expect(seen.refunds).toEqual([`research:${created.id}`]);
    expect(ledger.map((row) => row.kind)).toEqual(['refund']);
    expect(await api.balance()).toBe(1_000);
  });
});

describe('a research job’s search and the other searches', () => {
  it('takes a fair search slot like any search: a full service refuses a search while the job runs', async () => {
    // One slot and no queue; the answerer holds each answer until the test releases it.
    const started: string[] = [];
    const releases: (() => void)[] = [];
    const answerer = staticAnswerer(async (input) => {
      started.push(input.prompt);
      await new Promise<void>((resolve) => releases.push(resolve));
      return {
        answer: 'Green tea comes from China [1].',
        sources: input.passages.slice(0, 1).map((p) => p.url),
      };
    });
    const { api, key, server } = await setup({ answerer, maxConcurrentSearches: 1, maxQueuedSearches: 0 });
    const search = () =>
      fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'What is green tea?' }),
      });
    const created = (await (
      await api.create({ prompt: 'Where does green tea come from?' })
    ).json()) as JobBody;
    await until(() => started.length === 1);
    expect(started).toEqual(['Where does green tea come from?']);

    // The job's search holds the only slot: a search now finds the service full.
    const refused = await search();
    expect(refused.status).toBe(503);

    releases.shift()!();
    const events = await api.allEvents(created.id);
    expect(events.at(-1)?.event).toBe('completed');
    // The slot is free again once the job's search ended.
    const answering = search();
    await until(() => started.length === 2);
    releases.shift()!();
    expect((await answering).status).toBe(200);
  });
});

describe('the search of a research job', () => {
  const requests: ResearchRequest[] = [
    { prompt: 'What is green tea?' },
    QUESTION,
    {
      prompt: 'Compare oolong and black tea',
      response_type: 'text',
      include_domains: [' Example.COM ', '*.tea.example.'],
      exclude_domains: [],
      country: 'jp',
      language: 'pt-BR',
      documents: 'all',
      max_credits: 1_000,
      metadata: { ticket: 7 },
      time_limit_ms: 60_000,
    },
    {
      prompt: 'Which teas are green?',
      documents: 'own',
      output_schema: { type: 'object', properties: { teas: { type: 'array', items: { type: 'string' } } } },
    },
  ];

  it('is mapped from the validated request to the search its wire form parses to (no second parse)', () => {
    for (const request of requests) {
      const parsed = parseResearchRequest(request);
      for (const depth of ['research', 'standard'] as const) {
        expect(researchSearchOf(parsed, depth)).toEqual(parseSearchRequest(searchRequestOf(parsed, depth)));
      }
    }
  });
});
