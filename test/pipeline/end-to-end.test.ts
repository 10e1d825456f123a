import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { planQuery } from '../../src/pipeline/query.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createLocalIndexProvider } from '../../src/pipeline/search/local-index.ts';
import type { ChatMessage, ResponseType } from '../../src/pipeline/types.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

const provider = createLocalIndexProvider({ paths: [MANUAL_CORPUS] });
const ranker = createBm25Ranker();
const answerer = createExtractiveAnswerer();
const call = { signal: new AbortController().signal, requestId: 'e2e' };

/** The embedded default pipeline, stage by stage, as the engine runs it. */
async function ask(prompt: string, context: ChatMessage[] = [], responseType: ResponseType = 'text') {
  const query = planQuery(prompt, context);
  const hits = await provider.search({ query, limit: 5 }, call);
  const docs = hits.map((hit) => ({
    url: hit.url,
    title: hit.title,
    text: hit.content ?? '',
    markdown: hit.content ?? '',
  }));
  const passages = await ranker.rank(query, docs, { maxTokens: 2000 });
  return answerer.answer({ prompt, context, query, responseType, passages }, call);
}

describe('embedded default pipeline over a manual (fixture corpus)', () => {
  it('answers "How do I create an API key?" from api-keys.md with the keys create command', async () => {
    const { answer, sources } = await ask('How do I create an API key?');
    expect(sources[0]).toMatch(/\/manual\/api-keys\.md$/);
    expect(answer).toMatch(/^[^[]*citewise keys create[^[]*\[1\]/);
    expect(answer).not.toMatch(/`|\*\*|\]\(/);
  });

  it('keeps inline code in markdown answers', async () => {
    const { answer } = await ask('How do I create an API key?', [], 'markdown');
    expect(answer).toContain('`citewise keys create`');
  });

  it('follows up on the conversation', async () => {
    const { answer, sources } = await ask('and how do I revoke it?', [
      { role: 'user', content: 'How do I create an API key?' },
    ]);
    expect(sources[0]).toMatch(/\/manual\/api-keys\.md$/);
    expect(answer).toContain('citewise keys revoke <id>');
  });

  it.each([
    ['How many free credits does a new account get?', /credits\.md$/, /1,000 free credits/],
    ['What happens when I exceed the rate limit?', /rate-limits\.md$/, /429/],
    ['Which port does the server listen on?', /configuration\.md$/, /8787/],
  ])('answers %s', async (prompt, source, content) => {
    const { answer, sources } = await ask(prompt);
    expect(sources[0]).toMatch(source);
    expect(answer).toMatch(content);
  });

  it('says so when the manual has no answer', async () => {
    expect(await ask('What is the boiling point of mercury?')).toEqual({
      answer: 'The available sources do not contain an answer to this question.',
      sources: [],
    });
  });
});
