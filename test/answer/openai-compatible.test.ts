/** The model answerer through the real @ai-sdk/openai-compatible provider against a local server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import { createModelQueryPlanner } from '../../src/pipeline/query-model.ts';
import { createEmbeddingReranker } from '../../src/pipeline/rank/embeddings.ts';
import { resolveEmbeddingModel, resolveModel } from '../../src/models/index.ts';
import type { AnswerEvent, Passage } from '../../src/pipeline/types.ts';
import { startOpenAiServer, type OpenAiServer } from './openai-server.ts';
import { call, input } from './helpers.ts';

let server: OpenAiServer;

beforeAll(async () => {
  server = await startOpenAiServer({
    reply: (body) => {
      const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
      if (system.includes('web search queries')) return 'Mount Everest height\n';
      return '## Height\n\nMount Everest is **8,849 m** high [1], see [this](https://invented.test/x) [4].';
    },
    embed: (text) => [/height|high/i.test(text) ? 1 : 0, 1],
  });
});
afterAll(() => server.close());

describe('model answerer over @ai-sdk/openai-compatible', () => {
  it('answers (non-streaming), sending the system prompt and the delimited sources', async () => {
    const model = await resolveModel('openai-compatible:test-model', {
      baseUrl: server.baseUrl,
      apiKey: 'sk-local',
    });
    const output = await createModelAnswerer({ model, maxOutputTokens: 200 }).answer(
      input({ responseType: 'text' }),
      call(),
    );
    expect(output).toEqual({
      answer: 'Height\n\nMount Everest is 8,849 m high [1], see this.',
      sources: ['https://geo.test/everest'],
    });
    const request = server.chatRequests.at(-1);
    expect(request?.model).toBe('test-model');
    expect(request?.max_tokens).toBe(200);
    expect(request?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request?.messages[1]?.content).toMatch(/<<<SOURCE-[0-9a-f]{32}>>>/);
    expect(server.authorization.at(-1)).toBe('Bearer sk-local');
  });

  it('streams over SSE with the same final answer', async () => {
    const model = await resolveModel('openai-compatible:test-model', { baseUrl: server.baseUrl });
    const events: AnswerEvent[] = [];
    for await (const event of createModelAnswerer({ model }).stream(
      input({ responseType: 'markdown' }),
      call(),
    ))
      events.push(event);
    const deltas = events.flatMap((e) => (e.type === 'delta' ? [e.text] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(events.at(-1)).toEqual({
      type: 'done',
      answer: '## Height\n\nMount Everest is **8,849 m** high [1], see this.',
      sources: ['https://geo.test/everest'],
    });
    expect(deltas.join('')).toBe('## Height\n\nMount Everest is **8,849 m** high [1], see this.');
    expect(server.chatRequests.at(-1)?.stream).toBe(true);
  });

  it('retries an HTTP 503 from the server', async () => {
    const model = await resolveModel('openai-compatible:test-model', { baseUrl: server.baseUrl });
    const before = server.authorization.length;
    server.failNext(1, 503);
    const output = await createModelAnswerer({ model, retryDelayMs: 1, maxRetryDelayMs: 5 }).answer(
      input(),
      call(),
    );
    expect(output.sources).toEqual(['https://geo.test/everest']);
    expect(server.authorization.length - before).toBe(2);
  });

  it('fails with upstream_error on HTTP 400', async () => {
    const model = await resolveModel('openai-compatible:test-model', { baseUrl: server.baseUrl });
    server.failNext(1, 400);
    await expect(createModelAnswerer({ model }).answer(input(), call())).rejects.toMatchObject({
      code: 'upstream_error',
    });
  });

  it('plans queries and re-ranks with embeddings through the same server', async () => {
    const model = await resolveModel('ollama:llama3.2:3b', { baseUrl: server.baseUrl });
    const plan = createModelQueryPlanner({ model });
    expect(
      await plan('and how tall is it?', [{ role: 'user', content: 'Mount Everest' }], call().signal),
    ).toEqual(['Mount Everest height']);
    expect(server.chatRequests.at(-1)?.model).toBe('llama3.2:3b');

    const embedding = await resolveEmbeddingModel('openai-compatible:embed', { baseUrl: server.baseUrl });
    const candidates: Passage[] = [
      { url: 'https://a.test', title: 'A', text: 'Climbing permits cost money.', score: 3 },
      { url: 'https://b.test', title: 'B', text: 'Its height is 8,849 m.', score: 2 },
    ];
    const ranker = createEmbeddingReranker({
      inner: { rank: async () => candidates },
      model: embedding,
      weight: 0.8,
    });
    expect((await ranker.rank('height', [], { maxTokens: 100 })).map((p) => p.url)).toEqual([
      'https://b.test',
      'https://a.test',
    ]);
  });
});
