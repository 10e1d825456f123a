/**
 * The testing kit of `citewise/testing` as a user's test would use it: an engine on the stage fakes,
 * driven with `request()` through `engine.handle`, and the fakes' records of what each stage was asked.
 */
import { describe, expect, it } from 'vitest';
import { createSearchEngine } from '../../src/index.ts';
import { isFetchError } from '../../src/pipeline/fetch/errors.ts';
import { fakeFetcher, fakeSearchProvider, request, staticAnswerer } from '../../src/testing/index.ts';

const call = () => ({ signal: new AbortController().signal, requestId: 'kit' });

describe('the testing kit', () => {
  it('runs an engine on fakes: a search answered from a fetched page, charged once', async () => {
    const search = fakeSearchProvider([
      { url: 'https://example.com/keys', title: 'Keys', snippet: 'API keys.' },
      { url: 'https://example.com/other', title: 'Other', snippet: 'Something else.' },
    ]);
    const fetcher = fakeFetcher({
      'https://example.com/keys':
        '<html><body><article><h1>Keys</h1><p>Revoke a key on the API keys page of the console.</p></article></body></html>',
    });
    const answerer = staticAnswerer({
      answer: 'On the API keys page [1].',
      sources: ['https://example.com/keys'],
    });
    const engine = createSearchEngine({ search, fetcher, answerer });
    try {
      const { key } = await engine.createKey({ credits: 10 });
      const response = await request(engine, 'POST', '/v1/search', {
        apiKey: key,
        body: { prompt: 'How do I revoke a key?' },
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        answer: 'On the API keys page [1].',
        sources: ['https://example.com/keys'],
      });
      expect(search.queries.map((q) => q.query)).toEqual(['How do I revoke a key?']);
      expect(fetcher.urls).toContain('https://example.com/keys');
      expect(answerer.inputs[0]?.passages.map((p) => p.url)).toContain('https://example.com/keys');
      // The page that is not served was answered from its snippet.
      expect(fetcher.urls).toContain('https://example.com/other');
      const balance = await request(engine, 'GET', '/v1/balance', { apiKey: key });
      expect(balance.json()).toEqual({ available_credits: 9 });
    } finally {
      await engine.close();
    }
  });

  it('request() reads a streamed body whole and sends the spec errors', async () => {
    const engine = createSearchEngine({
      search: fakeSearchProvider([{ url: 'https://example.com/a', title: 'A', content: 'Alpha is first.' }]),
      answerer: staticAnswerer({ answer: 'Alpha [1].', sources: ['https://example.com/a'] }),
    });
    try {
      const { key } = await engine.createKey();
      const streamed = await request(engine, 'POST', '/v1/search', {
        apiKey: key,
        body: { prompt: 'Which is first?', stream: true },
      });
      expect(streamed.headers['content-type']).toContain('text/event-stream');
      expect(streamed.text).toContain('event: done');
      const unauthorized = await request(engine, 'GET', '/v1/balance', { apiKey: 'cw_nope' });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.json()).toMatchObject({ error: { description: 'Invalid or expired API key' } });
      const tooLarge = await request(engine, 'POST', '/v1/search', {
        apiKey: key,
        body: 'x'.repeat(engine.maxBodyBytes + 1),
        headers: { 'content-type': 'application/json' },
      });
      expect(tooLarge.status).toBe(413);
    } finally {
      await engine.close();
    }
  });

  it('the fakes serve what they were given and record what they were asked', async () => {
    const search = fakeSearchProvider((query) => [
      { url: `https://example.com/${query.query}`, title: query.query },
      { url: 'https://example.com/second', title: 'second' },
    ]);
    expect(await search.search({ query: 'one', limit: 1 }, call())).toEqual([
      { url: 'https://example.com/one', title: 'one' },
    ]);
    expect(search.queries).toEqual([{ query: 'one', limit: 1 }]);

    const fetcher = fakeFetcher({
      'https://example.com/a.txt': { body: 'plain', contentType: 'text/plain' },
    });
    const page = await fetcher.fetch(new URL('https://example.com/a.txt'), call());
    expect(page).toMatchObject({ status: 200, contentType: 'text/plain', url: 'https://example.com/a.txt' });
    expect(new TextDecoder().decode(page.body)).toBe('plain');
    const missing = await fetcher.fetch(new URL('https://example.com/none'), call()).catch((e: unknown) => e);
    expect(isFetchError(missing, 'bad_status')).toBe(true);

    const answerer = staticAnswerer((input) => ({ answer: `You asked ${input.prompt}`, sources: [] }));
    const input = { prompt: 'why', context: [], query: 'why', responseType: 'text' as const, passages: [] };
    expect(await answerer.answer(input, call())).toEqual({ answer: 'You asked why', sources: [] });
    expect(answerer.inputs).toEqual([input]);
  });
});
