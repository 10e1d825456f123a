/**
 * OpenAI-compatible chat completions with the real `openai` SDK (plain and streaming) against a running
 * service, plus /v1/models and OpenAI-shaped errors. The service answers from the fixture manual.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../src/http/compat/openai-chat.ts';
import { citewiseSources, type ChatSourcesMetadata } from '../../src/tools/index.ts';
import { startTestService, type TestService } from '../agents/support.ts';

describe('POST /v1/chat/completions (OpenAI-compatible)', () => {
  let service: TestService;
  let client: OpenAI;
  beforeAll(async () => {
    service = await startTestService();
    client = new OpenAI({ apiKey: service.apiKey, baseURL: `${service.baseUrl}/v1`, maxRetries: 0 });
  });
  afterAll(() => service.close());

  const balance = async () => (await service.engine.balance(service.apiKey)).available_credits;

  it('lists the model', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['citewise', 'citewise-research']);
  });

  it('answers the last user message, with citations and search results, charged one search', async () => {
    const before = await balance();
    const completion = await client.chat.completions.create({
      model: 'citewise',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'I run citewise myself.' },
        { role: 'assistant', content: 'OK.' },
        { role: 'user', content: 'How do I revoke an API key?' },
      ],
    });
    const answer = completion.choices[0]!.message.content ?? '';
    expect(answer).toMatch(/revoke/i);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const extra = completion as unknown as {
      citations: string[];
      search_results: { url: string; title: string }[];
    };
    expect(extra.citations.length).toBeGreaterThan(0);
    expect(extra.search_results[0]!.url).toBe(extra.citations[0]);
    expect(answer).toContain('[1]');
    expect(completion.usage!.total_tokens).toBe(
      completion.usage!.prompt_tokens + completion.usage!.completion_tokens,
    );
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(await balance()).toBe(before - 1);
  });

  it('the last user message is the prompt, earlier user messages the context; system and assistant are ignored', () => {
    const plan = parseChatRequest({
      model: 'citewise',
      temperature: 0.2,
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'I run citewise myself.' },
        { role: 'assistant', content: 'OK.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'How do I revoke' },
            { type: 'text', text: 'a key?' },
          ],
        },
      ],
    });
    expect(plan.search.prompt).toBe('How do I revoke\na key?');
    expect(plan.search.context).toEqual([{ role: 'user', content: 'I run citewise myself.' }]);
    expect(plan.stream).toBe(false);
    expect(plan.search.include).toEqual(['search_results']);
  });

  it('streams chat.completion.chunks ending with [DONE]; the sources come first and last', async () => {
    const stream = await client.chat.completions.create({
      model: 'citewise',
      messages: [{ role: 'user', content: 'How do I revoke an API key?' }],
      stream: true,
    });
    const chunks: { choices: { delta: { content?: string | null }; finish_reason: string | null }[] }[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const first = chunks[0] as unknown as { citations?: string[] };
    const last = chunks.at(-1) as unknown as { citations?: string[]; usage?: { total_tokens: number } };
    expect(first.citations?.length).toBeGreaterThan(0);
    expect(last.citations).toEqual(first.citations);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(last.usage!.total_tokens).toBeGreaterThan(0);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toMatch(/revoke/i);
  });

  it("works as the AI SDK's OpenAI-compatible provider, with generateText and streamText", async () => {
    const citewise = createOpenAICompatible({
      name: 'citewise',
      baseURL: `${service.baseUrl}/v1`,
      apiKey: service.apiKey,
    });
    const generated = await generateText({
      model: citewise.chatModel('citewise'),
      prompt: 'How do I revoke an API key?',
    });
    expect(generated.text).toMatch(/revoke/i);
    expect(generated.finishReason).toBe('stop');
    const streamed = streamText({
      model: citewise.chatModel('citewise'),
      prompt: 'How do I revoke an API key?',
    });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe(generated.text);
  });

  it('gives the AI SDK the sources: URL sources with @ai-sdk/openai, provider metadata with the OpenAI-compatible provider', async () => {
    const prompt = 'How do I revoke an API key?';
    const expected = await client.chat.completions.create({
      model: 'citewise',
      messages: [{ role: 'user', content: prompt }],
    });
    const citations = (expected as unknown as { citations: string[] }).citations;
    expect(citations.length).toBeGreaterThan(0);
    // The `openai` SDK reads them as `message.annotations`, one url_citation per source at its first [n].
    const content = expected.choices[0]!.message.content ?? '';
    const annotations = expected.choices[0]!.message.annotations ?? [];
    expect(annotations.map((a) => a.url_citation.url)).toEqual(citations);
    for (const [i, { url_citation }] of annotations.entries()) {
      expect(content.slice(url_citation.start_index, url_citation.end_index)).toBe(`[${i + 1}]`);
      expect(url_citation.title.length).toBeGreaterThan(0);
    }

    const openai = createOpenAI({ baseURL: `${service.baseUrl}/v1`, apiKey: service.apiKey });
    const generated = await generateText({ model: openai.chat('citewise'), prompt });
    expect(generated.sources.map((source) => source.sourceType === 'url' && source.url)).toEqual(citations);
    const streamed = streamText({ model: openai.chat('citewise'), prompt });
    const sources = await streamed.sources;
    expect(sources.map((source) => source.sourceType === 'url' && source.url)).toEqual(citations);
    expect(await streamed.text).toBe(content);

    const compatible = createOpenAICompatible({
      name: 'citewise',
      baseURL: `${service.baseUrl}/v1`,
      apiKey: service.apiKey,
      metadataExtractor: citewiseSources,
    });
    const viaCompatible = await generateText({ model: compatible.chatModel('citewise'), prompt });
    expect(viaCompatible.providerMetadata?.['citewise']).toMatchObject({ citations });
    const compatibleStream = streamText({ model: compatible.chatModel('citewise'), prompt });
    await compatibleStream.consumeStream();
    const metadata = (await compatibleStream.providerMetadata)?.['citewise'] as unknown as
      ChatSourcesMetadata | undefined;
    expect(metadata?.citations).toEqual(citations);
    expect(metadata?.searchResults.map((result) => result.url)).toEqual(citations);
  });

  it('errors come in OpenAI shape, and refused requests cost nothing', async () => {
    const before = await balance();
    const wrong = new OpenAI({ apiKey: 'cw_wrong', baseURL: `${service.baseUrl}/v1`, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: 'citewise', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_api_key' });
    await expect(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(
      client.chat.completions.create({ model: 'citewise', messages: [{ role: 'system', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_request' });
    const raw = await fetch(`${service.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'citewise',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
      }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: {
        message: 'Invalid request: messages[0].content has a image_url part; only text parts are read',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request',
      },
    });
    const { key: poor } = await service.engine.createKey({ credits: 0 });
    const broke = new OpenAI({ apiKey: poor, baseURL: `${service.baseUrl}/v1`, maxRetries: 0 });
    await expect(
      broke.chat.completions.create({ model: 'citewise', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 433, type: 'insufficient_quota' });
    expect(await balance()).toBe(before);
  });
});
