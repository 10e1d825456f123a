import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput, Passage } from '../../src/pipeline/types.ts';

const call = { signal: new AbortController().signal, requestId: 'test' };

const passages: Passage[] = [
  {
    url: 'https://geo.test/everest',
    title: 'Mount Everest',
    heading: 'Height',
    score: 9,
    text:
      '**Mount Everest** is the highest mountain on Earth, with a height of 8,849 metres above sea level. ' +
      'Its height was measured again in 2020 by a [Chinese-Nepali survey](https://survey.test).\n\n' +
      '| Year | Height |\n|---|---|\n| 2020 | 8,849 m |\n\n```\nheight = 8849\n```',
  },
  {
    url: 'https://travel.test/nepal',
    title: 'Nepal',
    score: 5,
    text:
      '## Mountains\n\n- The height of `Mount Everest` makes it a goal for climbers from around the world.\n' +
      '- Permits are required.\n\nNepal also has many temples and lakes worth visiting.',
  },
  {
    url: 'https://copy.test/everest',
    title: 'Everest copy',
    score: 4,
    text: 'Mount Everest is the highest mountain on Earth, with a height of 8,849 metres above sea level.',
  },
];

const input = (overrides: Partial<AnswerInput> = {}): AnswerInput => ({
  prompt: 'How high is Mount Everest?',
  context: [],
  query: 'height of Mount Everest',
  responseType: 'text',
  passages,
  ...overrides,
});

function citations(answer: string): number[] {
  return [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

describe('createExtractiveAnswerer', () => {
  it('answers with 2–4 relevant sentences, each group of them followed by a citation', async () => {
    const { answer, sources } = await createExtractiveAnswerer().answer(input(), call);
    expect(answer).toContain('highest mountain on Earth, with a height of 8,849 metres above sea level');
    const cited = answer.split(/(?<=\])[.!?]\s*/).filter((s) => s.trim().length > 0);
    for (const part of cited) expect(part).toMatch(/\[\d+\]$/);
    // "Its height was measured again…" is quoted with the sentence naming Mount Everest, under one citation.
    const sentences = answer.split(/(?<=[.!?])\s+/).filter((s) => s.trim().length > 0);
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    expect(sentences.length).toBeLessThanOrEqual(4);
    expect(sources.length).toBeGreaterThan(0);
  });

  it('numbers sources by first citation and lists exactly the cited URLs in that order', async () => {
    const { answer, sources } = await createExtractiveAnswerer().answer(input(), call);
    const cited = citations(answer);
    const firstUses = [...new Set(cited)];
    expect(firstUses).toEqual(firstUses.map((_, i) => i + 1));
    expect(sources).toHaveLength(firstUses.length);
    expect(sources[0]).toBe('https://geo.test/everest');
    expect(new Set(sources).size).toBe(sources.length);
  });

  it('skips near-duplicate sentences, tables and code', async () => {
    const { answer, sources } = await createExtractiveAnswerer().answer(input(), call);
    expect(answer.match(/highest mountain on Earth/g)).toHaveLength(1);
    expect(sources).not.toContain('https://copy.test/everest');
    expect(answer).not.toContain('8849');
    expect(answer).not.toContain('2020 8,849 m');
  });

  it('text answers contain no Markdown syntax', async () => {
    const { answer } = await createExtractiveAnswerer().answer(input(), call);
    expect(answer).not.toMatch(/\*\*|__|`|\]\(|^#|^\s*[-*+] |^\s*\d+\. |\|/m);
    expect(answer).toContain('Mount Everest is the highest');
  });

  it('markdown answers keep inline formatting but turn links into text', async () => {
    const { answer } = await createExtractiveAnswerer().answer(input({ responseType: 'markdown' }), call);
    expect(answer).toContain('**Mount Everest** is the highest');
    expect(answer).not.toContain('](');
  });

  it('uses list items as sentences without their markers', async () => {
    const { answer } = await createExtractiveAnswerer({ maxSentences: 4 }).answer(
      input({ query: 'Everest climbers goal', passages: [passages[1]!] }),
      call,
    );
    expect(answer).toMatch(
      /^The height of Mount Everest makes it a goal for climbers from around the world \[1\]\./,
    );
  });

  it('says honestly that the sources have no answer, with no sources', async () => {
    const answerer = createExtractiveAnswerer();
    const none = await answerer.answer(
      input({ query: 'capital of Australia', prompt: 'What is the capital of Australia?' }),
      call,
    );
    expect(none).toEqual({
      answer: 'The available sources do not contain an answer to this question.',
      sources: [],
    });
    expect((await answerer.answer(input({ passages: [] }), call)).sources).toEqual([]);
  });

  it('is deterministic', async () => {
    const answerer = createExtractiveAnswerer();
    const first = await answerer.answer(input(), call);
    for (let i = 0; i < 3; i++) expect(await answerer.answer(input(), call)).toEqual(first);
  });

  it('respects maxSentences and rejects bad options or an aborted call', async () => {
    const { answer } = await createExtractiveAnswerer({ maxSentences: 1, minSentences: 1 }).answer(
      input(),
      call,
    );
    expect(citations(answer)).toEqual([1]);
    expect(() => createExtractiveAnswerer({ maxSentences: 0 })).toThrow(RangeError);
    expect(() => createExtractiveAnswerer({ minSentences: 5, maxSentences: 4 })).toThrow(RangeError);
    expect(() => createExtractiveAnswerer({ minCoverage: 2 })).toThrow(RangeError);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(
      createExtractiveAnswerer().answer(input(), { signal: controller.signal, requestId: 'x' }),
    ).rejects.toThrow('gone');
  });
});
