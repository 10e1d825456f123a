/**
 * OpenTelemetry spans of the model calls: the engine's `telemetry` option with @ai-sdk/otel's
 * OpenTelemetry integration, over HTTP against a loopback OpenAI-compatible server.
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import type { Attributes, AttributeValue, Span, SpanContext, SpanOptions, Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchEngine } from '../../src/engine/index.ts';
import { resolveModel } from '../../src/models/index.ts';
import { startOpenAiServer, type OpenAiServer } from '../answer/openai-server.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { ADAPTERS, apiClient } from '../support/servers.ts';

interface RecordedSpan {
  name: string;
  attributes: Attributes;
  ended: boolean;
}

/** A tracer that records spans in memory (the API package ships only no-op implementations). */
function recordingTracer(spans: RecordedSpan[]): Tracer {
  let next = 1;
  const startSpan = (name: string, options: SpanOptions = {}): Span => {
    const recorded: RecordedSpan = { name, attributes: { ...options.attributes }, ended: false };
    spans.push(recorded);
    const context: SpanContext = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: (next++).toString(16).padStart(16, '0'),
      traceFlags: 1,
    };
    const span: Span = {
      spanContext: () => context,
      setAttribute(key: string, value: AttributeValue) {
        recorded.attributes[key] = value;
        return span;
      },
      setAttributes(attributes: Attributes) {
        Object.assign(recorded.attributes, attributes);
        return span;
      },
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: () => span,
      updateName(newName: string) {
        recorded.name = newName;
        return span;
      },
      end() {
        recorded.ended = true;
      },
      isRecording: () => true,
      recordException: () => {},
    };
    return span;
  };
  return {
    startSpan,
    startActiveSpan(name: string, ...rest: unknown[]) {
      const fn = rest.at(-1) as (span: Span) => unknown;
      const options = (typeof rest[0] === 'object' ? rest[0] : {}) as SpanOptions;
      return fn(startSpan(name, options));
    },
  };
}

describe('OpenTelemetry spans through the telemetry option', () => {
  let llm: OpenAiServer;
  beforeAll(async () => {
    llm = await startOpenAiServer({ reply: () => 'Run citewise keys create [1].' });
  });
  afterAll(() => llm.close());

  it('records a span per model call, named by function id, without the prompt by default', async () => {
    const spans: RecordedSpan[] = [];
    const model = await resolveModel('openai-compatible:traced-model', {
      baseUrl: llm.baseUrl,
      apiKey: 'sk-secret-key',
    });
    const engine = createSearchEngine({
      model,
      corpus: [MANUAL_CORPUS],
      telemetry: {
        functionId: 'docs-search',
        integrations: new OpenTelemetry({ tracer: recordingTracer(spans), agentSpanName: 'functionId' }),
      },
    });
    const { key } = await engine.createKey();
    const server = await ADAPTERS['node:http']!(engine);
    try {
      const response = await apiClient(server.baseUrl, key).post({ prompt: 'How do I create an API key?' });
      expect(response.status).toBe(200);
      await expect.poll(() => spans.filter((s) => s.ended).length).toBeGreaterThan(0);
      const names = spans.map((s) => s.name);
      expect(names.some((name) => name.includes('docs-search'))).toBe(true);
      expect(names.some((name) => name.includes('traced-model'))).toBe(true);
      const recorded = JSON.stringify(spans);
      expect(recorded).not.toContain('sk-secret-key');
      expect(recorded).not.toContain('keys create`');
      expect(recorded).not.toContain(key);
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
