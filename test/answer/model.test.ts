import { describe, expect, it } from 'vitest';
import { APICallError } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createExtractiveAnswerer, createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerEvent, Answerer } from '../../src/pipeline/types.ts';
import { CitewiseError } from '../../src/errors.ts';
import { call, generated, input, promptOf, streamed, textModel } from './helpers.ts';

function apiError(statusCode: number, headers: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://model.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const all: AnswerEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const fast = { retryDelayMs: 1, maxRetryDelayMs: 5 };

describe('createModelAnswerer: answer', () => {
  it('sends the built prompt and returns the validated, renumbered answer', async () => {
    const model = textModel('Everest is **8,849 m** high [1] ([Nepal](https://evil.test)) [2] [5].');
    const answerer = createModelAnswerer({ model, maxOutputTokens: 300, temperature: 0.1 });
    const output = await answerer.answer(input({ responseType: 'markdown' }), call());
    expect(output).toEqual({
      answer: 'Everest is **8,849 m** high [1] (Nepal) [2].',
      sources: ['https://geo.test/everest', 'https://travel.test/nepal'],
    });
    const { system, user } = promptOf(model);
    expect(system).toMatch(/untrusted/);
    expect(user).toContain('Question: How high is Mount Everest?');
    const settings = model.doGenerateCalls[0];
    expect(settings?.maxOutputTokens).toBe(300);
    expect(settings?.temperature).toBe(0.1);
  });

  it('converts to plain text for response_type "text"', async () => {
    const answerer = createModelAnswerer({ model: textModel('## Height\n\n- **8,849 m** [2]\n') });
    const output = await answerer.answer(input({ responseType: 'text' }), call());
    expect(output).toEqual({ answer: 'Height\n\n8,849 m [1]', sources: ['https://travel.test/nepal'] });
  });

  it('leaves out inline <think> reasoning of local models', async () => {
    const answerer = createModelAnswerer({
      model: textModel('<think>\nCheck [2] first.\n</think>\n\nYes [1].'),
    });
    expect(await answerer.answer(input(), call())).toEqual({
      answer: 'Yes [1].',
      sources: ['https://geo.test/everest'],
    });
  });

  it('does not call the model without passages', async () => {
    const model = textModel('x');
    const output = await createModelAnswerer({ model }).answer(input({ passages: [] }), call());
    expect(output.sources).toEqual([]);
    expect(output.answer).toMatch(/do not contain an answer/);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('retries a transient error (429, 503) and then succeeds', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        if (calls === 1) throw apiError(429, { 'retry-after-ms': '2' });
        if (calls === 2) throw apiError(503);
        return generated('Yes [1].');
      },
    });
    const failures: boolean[] = [];
    const answerer = createModelAnswerer({
      model,
      ...fast,
      onError: (_error, { willRetry }) => failures.push(willRetry),
    });
    const output = await answerer.answer(input(), call({ deadline: Date.now() + 60_000 }));
    expect(output).toEqual({ answer: 'Yes [1].', sources: ['https://geo.test/everest'] });
    expect(calls).toBe(3);
    expect(failures).toEqual([true, true]);
  });

  it('fails with upstream_error (HTTP 500) on a non-retryable error, without retrying', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        throw apiError(400);
      },
    });
    const error = await createModelAnswerer({ model, ...fast })
      .answer(input(), call())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CitewiseError);
    expect((error as CitewiseError).code).toBe('upstream_error');
    expect((error as CitewiseError).status).toBe(500);
    expect(calls).toBe(1);
  });

  it('gives up after maxRetries', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        throw apiError(500);
      },
    });
    await expect(
      createModelAnswerer({ model, maxRetries: 2, ...fast }).answer(input(), call()),
    ).rejects.toMatchObject({
      code: 'upstream_error',
    });
    expect(calls).toBe(3);
  });

  it('does not retry when the deadline leaves no time for another attempt', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        throw apiError(503);
      },
    });
    const answerer = createModelAnswerer({ model, ...fast, minAttemptMs: 10_000 });
    await expect(answerer.answer(input(), call({ deadline: Date.now() + 5_000 }))).rejects.toMatchObject({
      code: 'upstream_error',
    });
    expect(calls).toBe(1);
  });

  it('uses the fallback answerer when the model fails', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw apiError(401);
      },
    });
    const fallback = createExtractiveAnswerer();
    const output = await createModelAnswerer({ model, fallback }).answer(
      input({ responseType: 'text' }),
      call(),
    );
    expect(output).toEqual(await fallback.answer(input({ responseType: 'text' }), call()));
    expect(output.sources).toContain('https://geo.test/everest');
  });

  it('treats an empty answer as a failure', async () => {
    const answerer = createModelAnswerer({ model: textModel('[9]   ') });
    await expect(answerer.answer(input(), call())).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('passes the request signal: an aborted request is not retried, falls back to nothing, and rethrows', async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doGenerate: async ({ abortSignal }) => {
        controller.abort(new Error('client went away'));
        expect(abortSignal?.aborted).toBe(true);
        throw apiError(503);
      },
    });
    const fallback: Answerer = { answer: async () => ({ answer: 'fallback', sources: [] }) };
    await expect(
      createModelAnswerer({ model, fallback, ...fast }).answer(input(), call({ signal: controller.signal })),
    ).rejects.toThrow('client went away');
  });

  it('rejects bad options', () => {
    const model = textModel('x');
    expect(() => createModelAnswerer({} as never)).toThrow(TypeError);
    expect(() => createModelAnswerer({ model, maxRetries: -1 })).toThrow(RangeError);
    expect(() => createModelAnswerer({ model, maxOutputTokens: 0 })).toThrow(RangeError);
    expect(() => createModelAnswerer({ model, temperature: -1 })).toThrow(RangeError);
    expect(() => createModelAnswerer({ model, fallback: {} as Answerer })).toThrow(TypeError);
  });
});

describe('createModelAnswerer: stream', () => {
  it('streams the candidate sources, filtered deltas, and a done event equal to the deltas', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () =>
        streamed([
          'Everest is ',
          '**8,849 m** high [',
          '2',
          '] and [the ',
          'page](https://evil',
          '.test) [1',
          '][7].',
        ]),
    });
    const events = await collect(
      createModelAnswerer({ model }).stream(input({ responseType: 'text' }), call()),
    );
    expect(events[0]).toEqual({
      type: 'sources',
      sources: ['https://geo.test/everest', 'https://travel.test/nepal'],
    });
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e.type === 'delta' ? e.text : ''));
    const done = events.at(-1);
    expect(done).toEqual({
      type: 'done',
      answer: 'Everest is 8,849 m high [1] and the page [2].',
      sources: ['https://travel.test/nepal', 'https://geo.test/everest'],
    });
    expect(deltas.join('')).toBe(done?.type === 'done' ? done.answer : '');
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('retries a transient error before any text, then streams', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls++;
        if (calls < 3) throw apiError(502);
        return streamed(['Yes ', '[1].']);
      },
    });
    const events = await collect(createModelAnswerer({ model, ...fast }).stream(input(), call()));
    expect(calls).toBe(3);
    expect(events.at(-1)).toEqual({
      type: 'done',
      answer: 'Yes [1].',
      sources: ['https://geo.test/everest'],
    });
  });

  it('falls back before any text was sent', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw apiError(400);
      },
    });
    const fallback: Answerer = {
      answer: async () => ({ answer: 'From the pages [1].', sources: ['https://geo.test/everest'] }),
    };
    const events = await collect(createModelAnswerer({ model, fallback }).stream(input(), call()));
    expect(events.slice(1)).toEqual([
      { type: 'delta', text: 'From the pages [1].' },
      { type: 'done', answer: 'From the pages [1].', sources: ['https://geo.test/everest'] },
    ]);
  });

  it('fails with upstream_error without a fallback', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw apiError(400);
      },
    });
    await expect(collect(createModelAnswerer({ model }).stream(input(), call()))).rejects.toMatchObject({
      code: 'upstream_error',
    });
  });

  it('aborts the model call when the consumer stops reading', async () => {
    let modelSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        modelSignal = abortSignal;
        return streamed(['One ', 'two ', 'three ', 'four.']);
      },
    });
    for await (const event of createModelAnswerer({ model }).stream(input(), call())) {
      if (event.type === 'delta') break;
    }
    expect(modelSignal?.aborted).toBe(true);
  });
});
