/** The typed client's research jobs (`client.research`) against a served engine, and the library API. */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { CitewiseApiError, createClient, type CitewiseClient } from '../../src/client/index.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

let engine: SearchEngine;
let server: ListeningServer;
let client: CitewiseClient;
let key: string;
beforeAll(async () => {
  engine = createSearchEngine({
    corpus: [CORPUS],
    jobs: {
      run: async (request, context) => {
        await context.onStep({ index: 0, queries: [request.prompt] });
        return {
          result: { answer: `About ${request.prompt} [1].`, sources: ['https://a.test/'] },
          creditsUsed: 2,
        };
      },
    },
  });
  ({ key } = await engine.createKey({ credits: 20 }));
  server = await listenOnLoopback(createServer(createNodeHandler(engine)));
  client = createClient({ baseUrl: server.baseUrl, apiKey: key });
});
afterAll(async () => {
  await server.close();
  await engine.close();
});

describe('client.research', () => {
  it('creates a job (once per idempotency key), follows its events with ids and waits for it', async () => {
    const job = await client.research.create({ prompt: 'tea', max_credits: 5 }, { idempotencyKey: 'k-1' });
    const again = await client.research.create({ prompt: 'tea', max_credits: 5 }, { idempotencyKey: 'k-1' });
    expect(again.id).toBe(job.id);
    const done = await client.research.wait(job.id);
    expect(done).toMatchObject({
      id: job.id,
      status: 'completed',
      answer: 'About tea [1].',
      credits_used: 2,
    });
    const events = [];
    for await (const event of await client.research.events(job.id, { lastEventId: 1 })) events.push(event);
    expect(events.map((e) => [e.id, e.event])).toEqual([
      [2, 'status'],
      [3, 'step'],
      [4, 'completed'],
    ]);
    expect((await client.research.get(job.id)).steps).toEqual([{ index: 0, queries: ['tea'] }]);
    expect((await client.balance()).available_credits).toBe(18);
  });

  it('lists and cancels, and throws the API errors', async () => {
    const idle = createSearchEngine({ corpus: [CORPUS], jobs: { workers: 0 } });
    const { key: idleKey } = await idle.createKey({ credits: 100 });
    const idleServer = await listenOnLoopback(createServer(createNodeHandler(idle)));
    try {
      const idleClient = createClient({ baseUrl: idleServer.baseUrl, apiKey: idleKey });
      const first = await idleClient.research.create({ prompt: 'one' });
      const second = await idleClient.research.create({ prompt: 'two' });
      const page = await idleClient.research.list({ limit: 1 });
      expect(page.data.map((j) => j.id)).toEqual([second.id]);
      const rest = await idleClient.research.list({ limit: 1, cursor: page.next_cursor! });
      expect(rest.data.map((j) => j.id)).toEqual([first.id]);
      expect((await idleClient.research.cancel(first.id)).status).toBe('cancelled');
      expect((await idleClient.research.list({ status: 'queued' })).data.map((j) => j.id)).toEqual([
        second.id,
      ]);
      const missing = await idleClient.research.get('res_nothing').catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(CitewiseApiError);
      expect((missing as CitewiseApiError).status).toBe(404);
      const other = await client.research.get(first.id).catch((error: unknown) => error);
      expect((other as CitewiseApiError).status).toBe(404);
    } finally {
      await idleServer.close();
      await idle.close();
    }
  });
});

describe('engine.research (library)', () => {
  it('creates, gets, waits, lists and cancels as the owner of a key, with the HTTP checks', async () => {
    const job = await engine.research.create({ prompt: 'rivers' }, { apiKey: key });
    expect((await engine.research.wait(job.id, { apiKey: key })).status).toBe('completed');
    expect((await engine.research.get(job.id, { apiKey: key })).answer).toBe('About rivers [1].');
    expect((await engine.research.list({}, { apiKey: key })).data.map((j) => j.id)).toContain(job.id);
    await expect(engine.research.get(job.id, { apiKey: 'cw_wrong' })).rejects.toMatchObject({ status: 401 });
    await expect(engine.research.create({ prompt: 42 } as never, { apiKey: key })).rejects.toMatchObject({
      status: 400,
    });
  });
});
