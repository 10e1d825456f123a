import { generateText, isStepCount, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';
import {
  toSearchRequest,
  webSearchTool,
  webSearchToolInput,
  type WebSearchToolOutput,
} from '../../src/tools/index.ts';
import { scriptedAgentModel } from '../../examples/agent-with-tool.ts';
import { startTestService, type TestService } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

const QUESTION = 'How do I create an API key?';

describe('webSearchTool with the AI SDK', () => {
  it('generateText: the mock model calls the tool, a real search runs, the final text uses its result', async () => {
    const model = scriptedAgentModel();
    const before = (await service.engine.balance(service.apiKey)).available_credits;
    const result = await generateText({
      model,
      prompt: QUESTION,
      tools: { web_search: webSearchTool(service.engine, { apiKey: service.apiKey }) },
      stopWhen: isStepCount(3),
    });
    expect(result.steps).toHaveLength(2);
    const toolResults = result.steps[0]!.toolResults;
    expect(toolResults).toHaveLength(1);
    const output = toolResults[0]!.output as WebSearchToolOutput;
    expect(output.sources.length).toBeGreaterThan(0);
    // The search really ran (and was charged), and the model's final text is built from its result.
    expect((await service.engine.balance(service.apiKey)).available_credits).toBe(before - 1);
    expect(result.text).toContain(output.answer);
    expect(result.text).toContain(output.sources[0]!);
    // The model saw the tool's JSON schema with the documented fields.
    const tools = model.doGenerateCalls[0]!.tools!;
    expect(tools.map((t) => t.name)).toEqual(['web_search']);
    expect(JSON.stringify(tools[0])).toContain('"prompt"');
  });

  it('streamText works the same through the HTTP client', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const model = scriptedAgentModel();
    // streamText needs doStream: replay doGenerate's scripted answers as streams.
    const streaming = new MockLanguageModelV4({
      doStream: async (options) => {
        const generated = await model.doGenerate(options);
        const parts = generated.content.map((part) =>
          part.type === 'text'
            ? [
                { type: 'text-start' as const, id: 't' },
                { type: 'text-delta' as const, id: 't', delta: part.text },
                { type: 'text-end' as const, id: 't' },
              ]
            : [part],
        );
        const chunks = [
          ...parts.flat(),
          { type: 'finish' as const, finishReason: generated.finishReason, usage: generated.usage },
        ];
        return {
          stream: new ReadableStream({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(chunk as never);
              controller.close();
            },
          }),
        };
      },
    });
    const result = streamText({
      model: streaming,
      prompt: QUESTION,
      tools: { web_search: webSearchTool(client) },
      stopWhen: isStepCount(3),
    });
    const text = await result.text;
    expect(text).toMatch(/^From the web: /);
    expect(text).toMatch(/Sources: \S+/);
  });

  it('reports a failed search to the model as a tool error with the spec description only', async () => {
    const { key } = await service.engine.createKey({ credits: 0 });
    const result = await generateText({
      model: scriptedAgentModel(),
      prompt: QUESTION,
      tools: { web_search: webSearchTool(service.engine, { apiKey: key }) },
      stopWhen: isStepCount(1),
    });
    const errors = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as { error: unknown }).error)).toContain(
      'web search failed (HTTP 433): Account is at / over message quota.',
    );
  });

  it('maps tool input to a spec request, adding extension fields only when given', () => {
    expect(toSearchRequest({ prompt: 'q' })).toEqual({ prompt: 'q' });
    expect(toSearchRequest({ prompt: 'q' }, 'text')).toEqual({ prompt: 'q', response_type: 'text' });
    expect(
      toSearchRequest({
        prompt: 'q',
        context: ['a', 'b'],
        include_domains: ['nodejs.org'],
        exclude_domains: [],
        time_range: 'week',
        depth: 'fast',
        documents: 'own',
      }),
    ).toEqual({
      prompt: 'q',
      context: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
      include_domains: ['nodejs.org'],
      time_range: 'week',
      depth: 'fast',
      documents: 'own',
    });
  });

  it('passes extension fields (here a domain filter) to the search', async () => {
    const tool = webSearchTool(service.engine, { apiKey: service.apiKey });
    const output = (await tool.execute(
      { prompt: 'How are credits charged?', depth: 'fast', include_domains: ['nowhere.invalid'] },
      { toolCallId: 'c', messages: [], context: {} },
    )) as WebSearchToolOutput;
    // The local index has file:// URLs only, so a domain filter leaves no source.
    expect(output.sources).toEqual([]);
  });

  it('validates options and input', () => {
    expect(() => webSearchTool(service.engine)).toThrow(TypeError);
    expect(() => webSearchTool(service.engine, { apiKey: 'k', responseType: 'html' as 'text' })).toThrow(
      TypeError,
    );
    expect(webSearchToolInput.safeParse({ prompt: '' }).success).toBe(false);
    expect(webSearchToolInput.safeParse({ prompt: 'q', context: ['earlier'] }).success).toBe(true);
  });
});
