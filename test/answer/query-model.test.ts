import { describe, expect, it } from 'vitest';
import { MockLanguageModelV4 } from 'ai/test';
import { createModelQueryPlanner, parseQueryLines } from '../../src/pipeline/query-model.ts';
import { planQuery } from '../../src/pipeline/query.ts';
import { generated, promptOf } from './helpers.ts';

const signal = () => new AbortController().signal;
const context = [
  { role: 'user', content: 'Tell me about the Eiffel Tower' },
  { role: 'assistant', content: 'It is in Paris.' },
];

describe('createModelQueryPlanner', () => {
  it('returns the standalone query and sub-queries the model wrote', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () =>
        generated(
          '1. "Eiffel Tower height"\n- Eiffel Tower height in feet\n\nEiffel Tower height\nQuery: fourth one',
        ),
    });
    const plan = createModelQueryPlanner({ model, maxQueries: 3 });
    expect(await plan('and how tall is it?', context, signal())).toEqual([
      'Eiffel Tower height',
      'Eiffel Tower height in feet',
      'fourth one',
    ]);
    const { system, user } = promptOf(model);
    expect(system).toMatch(/standalone search query/);
    expect(user).toContain('- Tell me about the Eiffel Tower');
    expect(user).not.toContain('It is in Paris');
    expect(user).toContain('Latest question: and how tall is it?');
    expect(model.doGenerateCalls[0]?.maxOutputTokens).toBe(120);
  });

  it('falls back to the deterministic plan on a timeout', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) =>
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason as Error)),
        ),
    });
    const errors: unknown[] = [];
    const plan = createModelQueryPlanner({ model, timeoutMs: 20, onFallback: (e) => errors.push(e) });
    expect(await plan('and how tall is it?', context, signal())).toEqual([
      planQuery('and how tall is it?', context),
    ]);
    expect(errors).toHaveLength(1);
  });

  it('falls back on an error or an empty reply', async () => {
    const failing = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error('boom');
      },
    });
    const empty = new MockLanguageModelV4({ doGenerate: async () => generated('\n  \n') });
    for (const model of [failing, empty]) {
      const plan = createModelQueryPlanner({ model });
      expect(await plan('and how tall is it?', context, signal())).toEqual(['Eiffel Tower how tall is it?']);
    }
  });

  it('rejects when the request itself was aborted', async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        controller.abort(new Error('gone'));
        throw new Error('aborted');
      },
    });
    await expect(createModelQueryPlanner({ model })('q', [], controller.signal)).rejects.toThrow('gone');
  });

  it('can skip the model when there is no context', async () => {
    const model = new MockLanguageModelV4({ doGenerate: async () => generated('x') });
    const plan = createModelQueryPlanner({ model, onlyWithContext: true });
    expect(await plan('  What is BM25?  ', [], signal())).toEqual(['What is BM25?']);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('rejects bad options', () => {
    const model = new MockLanguageModelV4();
    expect(() => createModelQueryPlanner({ model, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createModelQueryPlanner({ model, maxQueries: 0 })).toThrow(RangeError);
    expect(() => createModelQueryPlanner({} as never)).toThrow(TypeError);
  });
});

describe('parseQueryLines', () => {
  it('keeps at most maxQueries distinct lines', () => {
    expect(parseQueryLines('a\nA\nb\nc', 2)).toEqual(['a', 'b']);
  });
});
