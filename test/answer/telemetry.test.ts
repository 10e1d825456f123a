/**
 * Telemetry of the model calls through the AI SDK's `telemetry` option: a recording telemetry integration
 * (the interface `@ai-sdk/otel`'s OpenTelemetry integration implements to make spans) receives the SDK's
 * events, with our function ids and the request id, and without prompts or API keys unless asked.
 * The model is the real OpenAI-compatible provider against a loopback server, behind the engine and HTTP.
 */
import type { Telemetry } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { resolveModel } from '../../src/models/index.ts';
import { createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import { telemetryCallOptions } from '../../src/pipeline/answer/telemetry.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { startOpenAiServer, type OpenAiServer } from './openai-server.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const API_KEY = 'sk-test-secret-0123456789';
const PAGE_TEXT = 'Mount Etna is 3,357 metres high and erupts often.';
const QUESTION = 'How high is the volcano Etna?';

const provider = fakeSearchProvider(
  [{ url: 'https://a.example.com/etna', title: 'Etna', content: PAGE_TEXT }],
  {
    id: 'fixed',
  },
);

interface Recorded {
  readonly hook: string;
  readonly event: Record<string, unknown>;
}

/** A telemetry integration that records every event it receives. */
function recordingIntegration(): { events: Recorded[]; integration: Telemetry } {
  const events: Recorded[] = [];
  const hook = (name: string) => (event: unknown) => {
    events.push({ hook: name, event: event as Record<string, unknown> });
  };
  return {
    events,
    integration: {
      onStart: hook('onStart'),
      onLanguageModelCallStart: hook('onLanguageModelCallStart'),
      onLanguageModelCallEnd: hook('onLanguageModelCallEnd'),
      onEnd: hook('onEnd'),
      onError: hook('onError'),
    },
  };
}

/** JSON of the recorded events (cycles cut), to search for what must not be there. */
function dump(events: readonly Recorded[]): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(events, (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[cycle]';
      seen.add(value);
    }
    return typeof value === 'bigint' ? String(value) : value;
  });
}

describe('model telemetry through the AI SDK', () => {
  let llm: OpenAiServer;
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];

  beforeAll(async () => {
    llm = await startOpenAiServer({
      reply: (body) =>
        body.messages.some((m) => m.role === 'system' && m.content.includes('web search queries'))
          ? 'Etna height'
          : 'Etna is 3,357 metres high [1].',
    });
  });
  afterAll(() => llm.close());
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function setup(options: Partial<SearchEngineOptions>) {
    const model = await resolveModel('openai-compatible:test-model', {
      baseUrl: llm.baseUrl,
      apiKey: API_KEY,
    });
    const engine = createSearchEngine({ model, search: provider, fetcher: false, ...options });
    const { key } = await engine.createKey();
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    return (body: unknown) =>
      fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
  }

  it('emits the answer call with its function id and request id, without inputs or the API key', async () => {
    const { events, integration } = recordingIntegration();
    const post = await setup({ telemetry: { integrations: integration } });
    const response = await post({ prompt: QUESTION });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();

    const starts = events.filter((e) => e.hook === 'onStart');
    expect(starts).toHaveLength(1);
    const start = starts[0]!.event;
    expect(start['operationId']).toBe('ai.generateText');
    expect(start['functionId']).toBe('citewise.answer');
    expect(start['runtimeContext']).toEqual({ requestId });
    expect(start['recordInputs']).toBe(false);
    expect(start['prompt']).toBeUndefined();
    expect(start['instructions']).toBeUndefined();
    expect(events.some((e) => e.hook === 'onLanguageModelCallStart')).toBe(true);
    const end = events.find((e) => e.hook === 'onEnd')!.event;
    expect(end['functionId']).toBe('citewise.answer');
    // Outputs are recorded by default.
    expect(end['text']).toBe('Etna is 3,357 metres high [1].');

    const all = dump(events);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(PAGE_TEXT);
    expect(all).not.toContain(QUESTION);
  });

  it('records inputs only when asked, and never the API key', async () => {
    const { events, integration } = recordingIntegration();
    const post = await setup({
      telemetry: { integrations: [integration], recordInputs: true, recordOutputs: false },
    });
    expect((await post({ prompt: QUESTION })).status).toBe(200);
    const start = events.find((e) => e.hook === 'onStart')!;
    expect(dump([start])).toContain(QUESTION);
    expect(dump([start])).toContain(PAGE_TEXT);
    const end = events.find((e) => e.hook === 'onEnd')!.event;
    expect(end['text']).toBe('');
    expect(dump(events)).not.toContain(API_KEY);
  });

  it('names the planner and the answerer calls after the configured function id', async () => {
    const { events, integration } = recordingIntegration();
    const post = await setup({ telemetry: { integrations: integration, functionId: 'svc' } });
    const response = await post({
      prompt: 'and how high is it?',
      context: [{ role: 'user', content: 'Tell me about Etna' }],
    });
    expect(response.status).toBe(200);
    const ids = events.filter((e) => e.hook === 'onStart').map((e) => e.event['functionId']);
    expect(ids).toEqual(['svc.plan', 'svc.answer']);
  });

  it('emits nothing when disabled, even with an integration given', async () => {
    const { events, integration } = recordingIntegration();
    const post = await setup({ telemetry: { integrations: integration, isEnabled: false } });
    expect((await post({ prompt: QUESTION })).status).toBe(200);
    expect(events).toHaveLength(0);
  });

  it('reports a failed model call to the integration', async () => {
    const { events, integration } = recordingIntegration();
    const post = await setup({ telemetry: { integrations: integration } });
    llm.failNext(1, 401);
    expect((await post({ prompt: QUESTION })).status).toBe(500);
    expect(events.some((e) => e.hook === 'onError')).toBe(true);
    expect(dump(events)).not.toContain(API_KEY);
  });
});

describe('telemetry options', () => {
  it('passes nothing when telemetry is not configured (the AI SDK defaults apply)', () => {
    expect(telemetryCallOptions(undefined, 'x', 'req-1')).toEqual({});
  });

  it('defaults to enabled, inputs off, outputs on, and includes only the request id', () => {
    expect(telemetryCallOptions({}, 'citewise.answer', 'req-1')).toEqual({
      telemetry: {
        isEnabled: true,
        functionId: 'citewise.answer',
        recordInputs: false,
        recordOutputs: true,
        includeRuntimeContext: { requestId: true },
      },
      runtimeContext: { requestId: 'req-1' },
    });
  });

  it('rejects malformed settings', async () => {
    const { MockLanguageModelV4 } = await import('ai/test');
    const model = new MockLanguageModelV4();
    expect(() =>
      createModelAnswerer({ model, telemetry: { recordInputs: 'yes' as unknown as boolean } }),
    ).toThrow(TypeError);
    expect(() => createModelAnswerer({ model, telemetry: { functionId: '' } })).toThrow(TypeError);
    expect(() => createModelAnswerer({ model, telemetry: null as never })).toThrow(TypeError);
  });
});
