/**
 * Research jobs over HTTP (node:http adapter, real sockets): creation, idempotency, access, bad input,
 * events with Last-Event-ID, cancel with refund, listing, the per-account cap, time limits and steps.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import type { ResearchJobQueue } from '../../src/jobs/records.ts';
import { createMemoryJobQueue } from '../../src/stores/memory/job-queue.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { researchClient, type JobBody } from './support.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

interface Harness {
  engine: SearchEngine;
  server: RunningServer;
  key: string;
  api: ReturnType<typeof researchClient>;
}

const running: Harness[] = [];
afterEach(async () => {
  for (const { engine, server } of running.splice(0)) {
    await server.close();
    await engine.close();
  }
});

async function setup(options: SearchEngineOptions = {}, adapter = 'node:http'): Promise<Harness> {
  const engine = createSearchEngine({ corpus: [CORPUS], ...options });
  const { key } = await engine.createKey({ credits: 100 });
  const server = await ADAPTERS[adapter]!(engine);
  const harness = { engine, server, key, api: researchClient(server.baseUrl, key) };
  running.push(harness);
  return harness;
}

/** A search provider that waits until its search is aborted, telling when it started. */
function blockingProvider(started: () => void = () => {}): SearchProvider {
  return {
    id: 'blocking',
    search: (_query, { signal }) =>
      new Promise((_, reject) => {
        started();
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
  };
}

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { description: string } }).error;

describe('POST /v1/research and GET /v1/research/{id}', () => {
  it('runs a job in the background: 202, then completed with an answer and sources, charged once', async () => {
    const { api } = await setup();
    const response = await api.create({
      prompt: 'Where does green tea come from?',
      metadata: { ticket: 42 },
    });
    expect(response.status).toBe(202);
    const created = (await response.json()) as JobBody;
    expect(created.status).toMatch(/^(queued|running)$/);
    expect(created.metadata).toEqual({ ticket: 42 });
    expect(created.id).toMatch(/^res_/);
    expect(Date.parse(created.created_at)).toBeGreaterThan(0);
    expect(response.headers.get('location')).toBe(`/v1/research/${created.id}`);
    const events = await api.allEvents(created.id);
    expect(events.at(-1)?.event).toBe('completed');
    const job = (await (await api.get(created.id)).json()) as JobBody;
    expect(job).toMatchObject({ id: created.id, status: 'completed', response_type: 'markdown' });
    expect(job.answer).toMatch(/\S/);
    expect(job.sources?.length).toBeGreaterThan(0);
    expect(Date.parse((job as unknown as { completed_at: string }).completed_at)).toBeGreaterThan(0);
    // A research search is charged per query sent (at least one); the rest of its hold came back.
    expect(job.credits_used).toBeGreaterThanOrEqual(1);
    expect(job.steps?.length).toBeGreaterThan(0);
    expect(await api.balance()).toBe(100 - job.credits_used);
  });

  it('returns the same job for a repeated Idempotency-Key and never charges twice', async () => {
    const { api } = await setup();
    const body = { prompt: 'What is a volcano?' };
    const first = await api.create(body, { 'idempotency-key': 'job-1' });
    const again = await api.create(body, { 'idempotency-key': 'job-1' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = [(await first.json()) as JobBody, (await again.json()) as JobBody];
    expect(b.id).toBe(a.id);
    await api.allEvents(a.id);
    const third = (await (await api.create(body, { 'idempotency-key': 'job-1' })).json()) as JobBody;
    expect(third).toMatchObject({ id: a.id, status: 'completed' });
    expect(await api.balance()).toBe(100 - third.credits_used);
    const other = await api.create({ prompt: 'Another question' }, { 'idempotency-key': 'job-1' });
    expect(other.status).toBe(422);
  });

  it('shows another account’s job as 404 in the spec’s error shape, and wants a key (401)', async () => {
    const { engine, server, api } = await setup();
    const created = (await (await api.create({ prompt: 'What is a river?' })).json()) as JobBody;
    const { key: strangerKey } = await engine.createKey();
    const stranger = researchClient(server.baseUrl, strangerKey);
    for (const response of [
      await stranger.get(created.id),
      await stranger.cancel(created.id),
      await stranger.events(created.id),
      await stranger.get('res_doesnotexist'),
    ]) {
      expect(response.status).toBe(404);
      expect((await errorOf(response)).description).toMatch(/^Not Found/);
    }
    expect(((await (await stranger.list()).json()) as { data: unknown[] }).data).toEqual([]);
    const anonymous = researchClient(server.baseUrl, undefined);
    for (const response of [
      await anonymous.create({ prompt: 'x' }),
      await anonymous.get(created.id),
      await anonymous.list(),
      await anonymous.events(created.id),
      await anonymous.cancel(created.id),
    ]) {
      expect(response.status).toBe(401);
      expect(await errorOf(response)).toEqual({
        description: 'Invalid or expired API key',
        code: 'invalid_api_key',
      });
    }
    await api.allEvents(created.id);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const { api } = await setup({
      jobs: { webhookSecret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    const cases: [unknown, RegExp][] = [
      [{}, /prompt/],
      [{ prompt: 42 }, /prompt/],
      [{ prompt: '   ' }, /prompt/],
      [{ prompt: 'q', output_schema: 'an object please' }, /output_schema/],
      [{ prompt: 'q', output_schema: [1, 2] }, /output_schema/],
      [{ prompt: 'q', time_limit_ms: -5 }, /time_limit_ms/],
      [{ prompt: 'q', time_limit_ms: 1e12 }, /time_limit_ms/],
      [{ prompt: 'q', time_limit_ms: 'soon' }, /time_limit_ms/],
      [{ prompt: 'q', max_credits: 0 }, /max_credits/],
      [{ prompt: 'q', webhook: { url: 'file:///etc/passwd' } }, /webhook\.url/],
      [{ prompt: 'q', webhook: 'http://example.com/' }, /webhook/],
      [{ prompt: 'q', webhook: { url: 'http://127.0.0.1:9/hook' } }, /webhook\.url is not allowed/],
      [{ prompt: 'q', webhook: { url: 'http://localhost/hook' } }, /webhook\.url is not allowed/],
      [{ prompt: 'q', metadata: 'tag' }, /metadata/],
      [{ prompt: 'q', metadata: { big: 'x'.repeat(5_000) } }, /metadata/],
      [[1, 2], /body/],
    ];
    for (const [body, field] of cases) {
      const response = await api.create(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await errorOf(response)).description).toMatch(field);
    }
    const malformed = await fetch(`${running[0]!.server.baseUrl}/v1/research`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running[0]!.key}`, 'content-type': 'application/json' },
      body: '{"prompt":',
    });
    expect(malformed.status).toBe(400);
    expect((await api.list('?status=sleeping')).status).toBe(400);
    expect((await api.list('?limit=0')).status).toBe(400);
    expect((await api.list('?limit=1000')).status).toBe(400);
    expect((await api.list('?cursor=%%%')).status).toBe(400);
    expect(await api.balance()).toBe(100);
  });

  it('refuses a webhook when the service has no signing secret', async () => {
    const { api } = await setup();
    const response = await api.create({ prompt: 'q', webhook: { url: 'https://example.com/hook' } });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).description).toMatch(/--webhook-secret/);
  });
});

describe('GET /v1/research/{id}/events', () => {
  it('sends every event with an id and a name, ends after the terminal one, and replays after Last-Event-ID', async () => {
    const { api } = await setup({
      jobs: {
        run: async (_request, context) => {
          for (let index = 0; index < 3; index++) await context.onStep({ index, queries: [`hop ${index}`] });
          return { result: { answer: 'Done [1].', sources: ['https://a.test/'] }, creditsUsed: 1 };
        },
      },
    });
    const created = (await (await api.create({ prompt: 'Follow the river' })).json()) as JobBody;
    const events = await api.allEvents(created.id);
    expect(events.map((e) => e.event)).toEqual(['status', 'status', 'step', 'step', 'step', 'completed']);
    expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]?.data).toEqual({ status: 'queued' });
    expect(events[1]?.data).toEqual({ status: 'running', attempt: 1 });
    expect(events[2]?.data).toEqual({ index: 0, queries: ['hop 0'] });
    expect(events.at(-1)?.data).toMatchObject({ id: created.id, status: 'completed', answer: 'Done [1].' });
    // A finished job replays, and Last-Event-ID gives only what came after it.
    const replay = await api.allEvents(created.id, 3);
    expect(replay.map((e) => e.id)).toEqual([4, 5, 6]);
    expect(await api.allEvents(created.id, 6)).toEqual([]);
    const job = (await (await api.get(created.id)).json()) as JobBody;
    expect(job.steps).toEqual([
      { index: 0, queries: ['hop 0'] },
      { index: 1, queries: ['hop 1'] },
      { index: 2, queries: ['hop 2'] },
    ]);
    const bad = await api.events(created.id, Number.NaN);
    expect(bad.status).toBe(400);
  });

  it('streams a running job’s events as they come', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { api } = await setup({
      jobs: {
        run: async (_request, context) => {
          await context.onStep({ index: 0 });
          await gate;
          return { result: { answer: 'Late.', sources: [] }, creditsUsed: 0 };
        },
      },
    });
    const created = (await (await api.create({ prompt: 'Slowly' })).json()) as JobBody;
    const response = await api.events(created.id);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: step')) text += new TextDecoder().decode((await reader.read()).value);
    const running = (await (await api.get(created.id)).json()) as JobBody;
    expect(running).toMatchObject({ status: 'running', steps: [{ index: 0 }] });
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += new TextDecoder().decode(chunk.value);
    expect(text).toMatch(/event: completed\ndata: \{[^\n]*"status":"completed"/);
    expect(await api.balance()).toBe(100);
  });
});

describe('cancel, limits and listing', () => {
  it('cancels a running job at once: status cancelled, its held credits refunded, the stream ends', async () => {
    let started: () => void = () => {};
    const searching = new Promise<void>((resolve) => (started = resolve));
    const { api } = await setup({ search: blockingProvider(() => started()), corpus: [] });
    const created = (await (
      await api.create({ prompt: 'Never answered', max_credits: 7 })
    ).json()) as JobBody;
    await searching;
    expect(await api.balance()).toBe(93);
    const stream = api.allEvents(created.id);
    const cancel = await api.cancel(created.id);
    expect(cancel.status).toBe(200);
    expect((await cancel.json()) as JobBody).toMatchObject({
      id: created.id,
      status: 'cancelled',
      credits_used: 0,
    });
    expect((await stream).at(-1)).toMatchObject({ event: 'cancelled', data: { status: 'cancelled' } });
    expect(await api.balance()).toBe(100);
    // Cancelling an ended job returns it as it is.
    expect(((await (await api.cancel(created.id)).json()) as JobBody).status).toBe('cancelled');
  });

  it('fails a job past its time limit, refunded', async () => {
    const { api } = await setup({ search: blockingProvider(), corpus: [] });
    const created = (await (
      await api.create({ prompt: 'Too slow', time_limit_ms: 1_000 })
    ).json()) as JobBody;
    const events = await api.allEvents(created.id);
    expect(events.at(-1)).toMatchObject({ event: 'failed', data: { status: 'failed' } });
    expect((events.at(-1)?.data as JobBody).error?.description).toMatch(/time limit/);
    expect(await api.balance()).toBe(100);
  });

  it('caps the jobs one account has waiting: 429 with Retry-After, nothing charged', async () => {
    const { api } = await setup({ jobs: { workers: 0, maxQueuedPerAccount: 2 } });
    expect((await api.create({ prompt: 'one', max_credits: 1 })).status).toBe(202);
    expect((await api.create({ prompt: 'two', max_credits: 1 })).status).toBe(202);
    const refused = await api.create({ prompt: 'three', max_credits: 1 });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await errorOf(refused)).description).toMatch(/^Too Many Requests/);
    expect(await api.balance()).toBe(98);
  });

  it('refuses a job the account cannot pay for with 433', async () => {
    const { engine, server } = await setup();
    // A research job holds its price up front (a query's worth for each query it may send).
    const { key } = await engine.createKey({ credits: 5 });
    const poor = researchClient(server.baseUrl, key);
    const response = await poor.create({ prompt: 'q' });
    expect(response.status).toBe(433);
    expect((await errorOf(response)).description).toBe('Account is at / over message quota');
    expect(await poor.balance()).toBe(5);
    // A cap it can pay is accepted: the research then sends fewer queries.
    expect((await poor.create({ prompt: 'q', max_credits: 5 })).status).toBe(202);
  });

  for (const adapter of Object.keys(ADAPTERS)) {
    it(`lists the account’s jobs newest first, by status, a page at a time (${adapter})`, async () => {
      // Every job is created in the same millisecond: the list still shows them newest first.
      const queue: ResearchJobQueue = createMemoryJobQueue({ now: () => 1_800_000_000_000 });
      const { api } = await setup({ jobs: { workers: 0, queue } }, adapter);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(((await (await api.create({ prompt: `q${i}` })).json()) as JobBody).id);
      await api.cancel(ids[0]!);
      const first = (await (await api.list('?limit=2')).json()) as { data: JobBody[]; next_cursor?: string };
      expect(first.data.map((j) => j.id)).toEqual([ids[2], ids[1]]);
      const second = (await (await api.list(`?limit=2&cursor=${first.next_cursor}`)).json()) as {
        data: JobBody[];
        next_cursor?: string;
      };
      expect(second.data.map((j) => j.id)).toEqual([ids[0]]);
      expect(second.next_cursor).toBeUndefined();
      const cancelled = (await (await api.list('?status=cancelled')).json()) as { data: JobBody[] };
      expect(cancelled.data.map((j) => j.id)).toEqual([ids[0]]);
    });
  }
});
