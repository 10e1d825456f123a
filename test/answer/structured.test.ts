/**
 * Structured output of the model answerer (`response_type: "json"`): the AI SDK's structured generation
 * with the request's JSON Schema, validated by zod's converter of that schema, from the delimited sources.
 */
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { CitewiseError } from '../../src/errors.ts';
import {
  buildAnswerPrompt,
  createExtractiveAnswerer,
  createModelAnswerer,
  InvalidJsonAnswerError,
} from '../../src/pipeline/answer/index.ts';
import { withAnswererResilience } from '../../src/resilience/index.ts';
import type { AnswerEvent } from '../../src/pipeline/types.ts';
import { call, generated, input, promptOf } from './helpers.ts';

const SCHEMA = {
  type: 'object',
  properties: {
    height_m: { type: 'number', description: 'Height in metres' },
    remeasured: { type: ['integer', 'null'] },
  },
  required: ['height_m'],
};

/** A mock model answering its calls with `replies` in turn (the last one repeats). */
function replyingModel(...replies: string[]): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => generated(replies[Math.min(index++, replies.length - 1)]!),
  });
}

describe('createModelAnswerer with a JSON Schema', () => {
  it('declares structured output', () => {
    expect(createModelAnswerer({ model: replyingModel('{}') }).structuredOutput).toBe(true);
    expect(createExtractiveAnswerer().structuredOutput).toBeUndefined();
  });

  it('returns the JSON text of the object and the sources given to the model', async () => {
    const model = replyingModel('{"height_m": 8849, "remeasured": 2020}');
    const answerer = createModelAnswerer({ model });
    const output = await answerer.answer(input({ jsonSchema: SCHEMA }), call());
    expect(JSON.parse(output.answer)).toEqual({ height_m: 8849, remeasured: 2020 });
    expect(output.sources).toEqual(['https://geo.test/everest', 'https://travel.test/nepal']);

    const recorded = model.doGenerateCalls[0]!;
    expect(recorded.responseFormat).toEqual({ type: 'json', schema: SCHEMA, name: 'answer' });
    const { system, user } = promptOf(model);
    expect(system).toMatch(/untrusted/);
    expect(system).toMatch(/one JSON object that matches the JSON Schema/);
    expect(user).toContain(JSON.stringify(SCHEMA));
    expect(user).toContain('Mount Everest is 8,849 metres high.');
  });

  it('retries an object that fails the schema, then fails with a 500', async () => {
    const model = replyingModel('{"height_m": "very high"}');
    const answerer = createModelAnswerer({ model, maxInvalidJsonRetries: 2 });
    const failure = await answerer
      .answer(input({ jsonSchema: SCHEMA }), call())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CitewiseError);
    expect((failure as CitewiseError).status).toBe(500);
    expect((failure as CitewiseError).description).toBe(
      'Server Error: the model did not return JSON matching json_schema',
    );
    expect((failure as CitewiseError).cause).toBeInstanceOf(InvalidJsonAnswerError);
    expect(model.doGenerateCalls).toHaveLength(3);
  });

  it('uses the retry when it returns a matching object', async () => {
    const model = replyingModel('not json', '{"height_m": 8849}');
    const answerer = createModelAnswerer({ model });
    const output = await answerer.answer(input({ jsonSchema: SCHEMA }), call());
    expect(JSON.parse(output.answer)).toEqual({ height_m: 8849 });
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('does not fall back to a text answer (it would not match the schema)', async () => {
    const model = replyingModel('[]');
    const answerer = createModelAnswerer({
      model,
      fallback: createExtractiveAnswerer(),
      maxInvalidJsonRetries: 0,
    });
    await expect(answerer.answer(input({ jsonSchema: SCHEMA }), call())).rejects.toMatchObject({
      status: 500,
    });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('streams the object as one delta', async () => {
    const answerer = createModelAnswerer({ model: replyingModel('{"height_m": 8849}') });
    const events: AnswerEvent[] = [];
    for await (const event of answerer.stream(input({ jsonSchema: SCHEMA }), call())) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['sources', 'delta', 'done']);
    expect(events.at(-1)).toEqual({
      type: 'done',
      answer: '{"height_m":8849}',
      sources: ['https://geo.test/everest', 'https://travel.test/nepal'],
    });
  });

  it('keeps schema mismatches from opening the circuit breaker', async () => {
    const model = replyingModel('{"height_m": "high"}');
    const answerer = withAnswererResilience(createModelAnswerer({ model, maxInvalidJsonRetries: 0 }), {
      retries: 0,
      upstream: 'model',
      circuitBreaker: { threshold: 2 },
    });
    for (let i = 0; i < 4; i++) {
      await expect(answerer.answer(input({ jsonSchema: SCHEMA }), call())).rejects.toMatchObject({
        status: 500,
      });
    }
    expect(model.doGenerateCalls).toHaveLength(4);
  });
});

describe('buildAnswerPrompt with a JSON Schema', () => {
  it('asks for one JSON object from the sources instead of cited text', () => {
    const prompt = buildAnswerPrompt(input({ jsonSchema: SCHEMA }), { nonce: 'abcdef0123456789' });
    expect(prompt.system).not.toMatch(/Cite every statement/);
    expect(prompt.system).toMatch(/only with information from the sources/);
    expect(
      prompt.user.endsWith(`Answer with a JSON object matching this JSON Schema:\n${JSON.stringify(SCHEMA)}`),
    ).toBe(true);
    const text = buildAnswerPrompt(input(), { nonce: 'abcdef0123456789' });
    expect(text.system).toMatch(/Cite every statement/);
    expect(text.user).not.toMatch(/JSON Schema/);
  });
});
