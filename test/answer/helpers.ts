/** Shared fixtures of the answer tests: passages, inputs and AI SDK mock model results. */
import { MockLanguageModelV4 } from 'ai/test';
import { simulateReadableStream } from 'ai';
import type { AnswerInput, CallOptions, Passage } from '../../src/pipeline/types.ts';

export const passages: Passage[] = [
  {
    url: 'https://geo.test/everest',
    title: 'Mount Everest',
    heading: 'Height',
    score: 9,
    text: 'Mount Everest is 8,849 metres high. It was measured again in 2020.',
  },
  {
    url: 'https://travel.test/nepal',
    title: 'Nepal',
    score: 5,
    text: 'Climbers need a permit to climb Everest from Nepal.',
  },
  {
    url: 'https://geo.test/everest',
    title: 'Mount Everest',
    heading: 'Name',
    score: 4,
    text: 'The mountain is called Sagarmatha in Nepali.',
  },
];

export function input(overrides: Partial<AnswerInput> = {}): AnswerInput {
  return {
    prompt: 'How high is Mount Everest?',
    context: [],
    query: 'height of Mount Everest',
    responseType: 'markdown',
    passages,
    ...overrides,
  };
}

export function call(overrides: Partial<CallOptions> = {}): CallOptions {
  return { signal: new AbortController().signal, requestId: 'test', ...overrides };
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** A doGenerate result with the given text. */
export function generated(text: string) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: undefined },
    usage,
    warnings: [],
  };
}

/** A doStream result streaming the given deltas. */
export function streamed(deltas: readonly string[]) {
  return {
    stream: simulateReadableStream({
      chunks: [
        { type: 'text-start' as const, id: 't' },
        ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
        { type: 'text-end' as const, id: 't' },
        { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
      ],
    }),
  };
}

/** A mock model answering every call with `text` (non-streaming and streaming, in small deltas). */
export function textModel(text: string): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => generated(text),
    doStream: async () => streamed(text.match(/[\s\S]{1,7}/g) ?? []),
  });
}

/** The system and user text of a mock model's recorded call. */
export function promptOf(model: MockLanguageModelV4, index = 0): { system: string; user: string } {
  const recorded = model.doGenerateCalls[index] ?? model.doStreamCalls[index];
  if (recorded === undefined) throw new Error(`no call ${index}`);
  let system = '';
  let user = '';
  for (const message of recorded.prompt) {
    if (message.role === 'system') system += message.content;
    else if (message.role === 'user')
      for (const part of message.content) if (part.type === 'text') user += part.text;
  }
  return { system, user };
}
