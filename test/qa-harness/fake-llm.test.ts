import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeLlm, overlapAnswer, type FakeLlm } from '../../bench/qa/fake-llm.ts';

const SYSTEM = 'Answer from the numbered sources only. Cite them as [n].';
const USER = [
  '[1] Warsaw',
  'Warsaw is the capital and largest city of Poland. It stands on the Vistula River.',
  '[2] Super Bowl 50',
  'Super Bowl 50 was an American football game. The Denver Broncos defeated the Carolina Panthers 24–10.',
  '',
  'Question: Who did the Denver Broncos defeat in Super Bowl 50?',
].join('\n');

describe('fake OpenAI-compatible server (test double)', () => {
  let llm: FakeLlm;
  const model = () => createOpenAICompatible({ baseURL: llm.baseUrl, name: 'fake' })('fake-overlap-1');

  beforeAll(async () => {
    llm = await createFakeLlm();
  });
  afterEach(() => {
    llm.reset();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('answers generateText with the best-overlapping sentence and its source citation, and records the prompt', async () => {
    const result = await generateText({ model: model(), system: SYSTEM, prompt: USER, maxRetries: 0 });
    expect(result.text).toBe('The Denver Broncos defeated the Carolina Panthers 24–10. [2]');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(llm.requests).toHaveLength(1);
    const recorded = llm.requests[0]!;
    expect(recorded.stream).toBe(false);
    expect(recorded.model).toBe('fake-overlap-1');
    expect(recorded.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(recorded.promptText).toContain('Carolina Panthers');
    expect(recorded.promptTokens).toBe(Math.ceil(recorded.promptText.length / 4));
  });

  it('streams the same answer as OpenAI chat.completion.chunk events', async () => {
    const result = streamText({ model: model(), system: SYSTEM, prompt: USER, maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The Denver Broncos defeated the Carolina Panthers 24–10. [2]');
    expect(llm.requests[0]?.stream).toBe(true);
  });

  it('sends raw SSE in the OpenAI format ending with [DONE], and lists models', async () => {
    const response = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'hi?' }] }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const first = JSON.parse(events[0]!.slice('data: '.length)) as {
      object: string;
      choices: { delta: object }[];
    };
    expect(first.object).toBe('chat.completion.chunk');
    expect(first.choices[0]!.delta).toMatchObject({ role: 'assistant' });
    const models = (await (await fetch(`${llm.baseUrl}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['fake-overlap-1']);
  });

  it('fails as scripted: 500, 429 with Retry-After, garbage, then recovers', async () => {
    llm.script({ kind: 'status', status: 500 });
    await expect(generateText({ model: model(), prompt: USER, maxRetries: 0 })).rejects.toThrow();

    llm.script({ kind: 'rate-limit', retryAfterSeconds: 7 });
    const limited = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'q?' }] }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');

    llm.script({ kind: 'garbage' });
    await expect(generateText({ model: model(), prompt: USER, maxRetries: 0 })).rejects.toThrow();

    // The SDK retries a 500 and then gets the normal answer.
    llm.script({ kind: 'status', status: 500 });
    const retried = await generateText({ model: model(), prompt: USER, maxRetries: 1 });
    expect(retried.text).toContain('Carolina Panthers');
    expect(llm.requests.map((r) => r.behaviour)).toEqual([
      'status',
      'rate-limit',
      'garbage',
      'status',
      'answer',
    ]);
  });

  it('answers slowly when scripted, so that a client deadline fires first', async () => {
    llm.script({ kind: 'slow', delayMs: 5_000 });
    await expect(
      generateText({ model: model(), prompt: USER, maxRetries: 0, abortSignal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    llm.script({ kind: 'slow', delayMs: 50 });
    const result = await generateText({ model: model(), prompt: USER, maxRetries: 0 });
    expect(result.text).toContain('[2]');
  });

  it('cuts a stream midway when scripted', async () => {
    llm.script({ kind: 'cut-stream' });
    const errors: unknown[] = [];
    const result = streamText({
      model: model(),
      prompt: USER,
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    let text = '';
    try {
      for await (const delta of result.textStream) text += delta;
    } catch (error) {
      errors.push(error);
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan('The Denver Broncos defeated the Carolina Panthers 24–10. [2]'.length);
  });

  it('rejects malformed requests with 400 in the OpenAI error shape', async () => {
    const response = await fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/JSON/);
  });
});

describe('overlapAnswer', () => {
  it('picks the sentence sharing most words with the question and says so when nothing overlaps', () => {
    expect(
      overlapAnswer([
        {
          role: 'user',
          content: '[3] Oxygen\nOxygen is a chemical element. Its symbol is O.\nWhat symbol is used for it?',
        },
      ]),
    ).toBe('Its symbol is O. [3]');
    expect(overlapAnswer([{ role: 'user', content: 'zzz?' }])).toMatch(/do not contain/);
  });
});
