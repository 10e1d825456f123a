/**
 * Model answers end to end: the real AI SDK OpenAI-compatible provider talking to a loopback
 * OpenAI-compatible server, through the engine and the HTTP stack, and through `serve --model`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { resolveModel } from '../../src/models/index.ts';
import { startOpenAiServer, type ChatRequestBody, type OpenAiServer } from '../answer/openai-server.ts';
import { startServe } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';

/** An "obedient" model: cites [1], invents [7], and repeats a link and an image it was never given. */
const REPLY =
  'Run `citewise keys create` to make a **new key** [1]. Keys are stored hashed [7]. ' +
  'See [the guide](https://evil.example/phish) ![tracker](https://evil.example/pixel.png)';

describe('model answers over HTTP', () => {
  let llm: OpenAiServer;
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];

  beforeAll(async () => {
    llm = await startOpenAiServer({ reply: () => REPLY });
  });
  afterAll(() => llm.close());
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function setup(options: Partial<SearchEngineOptions> = {}) {
    const model = await resolveModel('openai-compatible:test-model', {
      baseUrl: llm.baseUrl,
      apiKey: 'sk-test',
    });
    const engine = createSearchEngine({ model, corpus: [MANUAL_CORPUS], ...options });
    const { key } = await engine.createKey();
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    return apiClient(server.baseUrl, key);
  }

  it('validates citations, strips invented links and images, and sends pages only as delimited data', async () => {
    const { post } = await setup();
    const response = await post({ prompt: 'How do I create an API key?' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { answer: string; sources: string[] };
    expect(body.answer).toContain('`citewise keys create`');
    expect(body.answer).toContain('[1]');
    expect(body.answer).not.toContain('[7]');
    expect(body.answer).not.toMatch(/evil\.example|!\[/);
    expect(body.answer).toContain('the guide');
    expect(body.sources).toHaveLength(1);

    const request = llm.chatRequests.at(-1) as ChatRequestBody;
    expect(request.model).toBe('test-model');
    const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = request.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n');
    expect(system).toMatch(/\[1\]/);
    const delimiter = /<<<SOURCE[-\w]*/.exec(user)?.[0];
    expect(delimiter).toBeDefined();
    expect(user).toContain('keys create');
  });

  it('text answers have no Markdown syntax; markdown keeps formatting', async () => {
    const { post } = await setup();
    const text = (await (
      await post({ prompt: 'How do I create an API key?', response_type: 'text' })
    ).json()) as {
      answer: string;
    };
    expect(text.answer).toContain('citewise keys create');
    expect(text.answer).not.toMatch(/`|\*\*|\]\(|!\[/);
    const markdown = (await (await post({ prompt: 'How do I create an API key?' })).json()) as {
      answer: string;
    };
    expect(markdown.answer).toContain('**new key**');
  });

  it('streams the model answer; the deltas add up to the final answer', async () => {
    const { post } = await setup();
    const response = await post({ prompt: 'How do I create an API key?', stream: true });
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    const events = frames.map((frame) => ({
      event: /^event: (.*)$/m.exec(frame)?.[1],
      data: JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, unknown>,
    }));
    expect(events[0]?.event).toBe('sources');
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(done.data.answer);
    expect(done.data.answer).not.toMatch(/evil\.example|\[7\]/);
  });

  it('a model that keeps failing is a 500 with the credits refunded, or the extractive answer if configured', async () => {
    const failing = await setup();
    llm.failNext(20, 503);
    const response = await failing.post({ prompt: 'How do I create an API key?' });
    expect(response.status).toBe(500);
    expect(await failing.balance()).toBe(1000);

    const withFallback = await setup({ modelFallback: true });
    llm.failNext(20, 503);
    const fallback = await withFallback.post({ prompt: 'How do I create an API key?' });
    expect(fallback.status).toBe(200);
    expect(((await fallback.json()) as { answer: string }).answer).toMatch(/keys create/);
    expect(await withFallback.balance()).toBe(999);
    llm.failNext(0, 503);
  });

  it('serve --model openai-compatible:… --model-base-url answers with the model', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-model-'));
    const server = await startServe(
      [
        '--data-dir',
        dataDir,
        '--corpus',
        MANUAL_CORPUS,
        '--model',
        'openai-compatible:cli-model',
        '--model-base-url',
        llm.baseUrl,
      ],
      { OPENAI_COMPATIBLE_API_KEY: 'sk-cli' },
    );
    try {
      const response = await fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.firstKey() ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'How do I create an API key?' }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { answer: string }).answer).toContain('keys create');
      expect(llm.chatRequests.at(-1)?.model).toBe('cli-model');
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
