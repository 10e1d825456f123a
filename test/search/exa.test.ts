import { describe, expect, it } from 'vitest';
import { createExaProvider } from '../../src/pipeline/search/providers/exa.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { call, json, keyedProviderOn, searchError, useServer } from './helpers.ts';

const KEY = 'exa-key-0f1e2d3c4b5a';

// Shapes from Exa's API reference (POST /search) and its error codes page.
const SEARCH_RESPONSE = {
  requestId: 'b5947044c4b78efa9552a7c89b306d95',
  resolvedSearchType: 'neural',
  results: [
    {
      id: 'https://arxiv.org/abs/2307.06435',
      title: 'A Comprehensive Overview of Large Language Models',
      url: 'https://arxiv.org/abs/2307.06435',
      publishedDate: '2023-11-16T01:36:32.547Z',
      author: 'Humza Naveed, University of Engineering and Technology (UET), Lahore, Pakistan',
      score: 0.4600165784358978,
      text: 'Abstract   Large Language Models (LLMs) have recently demonstrated remarkable capabilities ...',
    },
    {
      id: 'https://example.com/llm',
      title: 'LLM notes',
      url: 'https://example.com/llm',
      publishedDate: null,
      author: null,
    },
  ],
  costDollars: { total: 0.005 },
};

const server = useServer();

const provider = keyedProviderOn(server, createExaProvider, KEY);

describe('Exa provider', () => {
  it('POSTs /search with x-api-key, asks for text when configured, and maps results', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ includeText: 5000, type: 'neural' }).search(
      {
        query: 'overview of large language models',
        limit: 2,
        filters: { includeDomains: ['arxiv.org', 'example.com'], fromDate: '2023-01-01' },
      },
      call(),
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/search');
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(JSON.parse(req.body)).toEqual({
      query: 'overview of large language models',
      type: 'neural',
      numResults: 2,
      includeDomains: ['arxiv.org', 'example.com'],
      startPublishedDate: '2023-01-01T00:00:00.000Z',
      contents: { text: { maxCharacters: 5000 } },
    });
    expect(hits).toEqual([
      {
        url: 'https://arxiv.org/abs/2307.06435',
        title: 'A Comprehensive Overview of Large Language Models',
        snippet:
          'Abstract Large Language Models (LLMs) have recently demonstrated remarkable capabilities ...',
        content:
          'Abstract   Large Language Models (LLMs) have recently demonstrated remarkable capabilities ...',
        publishedAt: '2023-11-16T01:36:32.547Z',
        score: 0.4600165784358978,
        provider: 'exa',
      },
      {
        url: 'https://example.com/llm',
        title: 'LLM notes',
        snippet: undefined,
        content: undefined,
        publishedAt: undefined,
        score: undefined,
        provider: 'exa',
      },
    ]);
  });

  it('sends no contents request by default', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    await provider().search({ query: 'q', limit: 5 }, call());
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ query: 'q', type: 'auto', numResults: 5 });
  });

  it('maps 401, 402, 429 and 5xx', async () => {
    const cases: [number, unknown, string, Record<string, string>][] = [
      [401, { requestId: 'r1', error: 'Invalid API key', tag: 'INVALID_API_KEY' }, 'auth', {}],
      [402, { requestId: 'r2', error: 'You have run out of credits', tag: 'NO_MORE_CREDITS' }, 'quota', {}],
      [
        429,
        { requestId: 'r3', error: 'Rate limit exceeded', tag: 'RATE_LIMIT_EXCEEDED' },
        'rate_limited',
        { 'retry-after': '2' },
      ],
      [500, { requestId: 'r4', error: 'Internal error', tag: 'INTERNAL_ERROR' }, 'server', {}],
    ];
    for (const [status, body, kind, headers] of cases) {
      server.handle((_req, res) => json(res, status, body, headers));
      const e = await searchError(provider());
      expect(e).toBeInstanceOf(SearchProviderError);
      expect(e.kind).toBe(kind);
      expect(e.httpStatus).toBe(status);
      expect(e.message).toContain((body as { error: string }).error);
    }
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': '2' }));
    const e = await searchError(provider());
    expect(e.retryAfterMs).toBe(2000);
  });

  it('reports malformed JSON', async () => {
    server.handle((_req, res) => json(res, 200, '{"results": [}'));
    expect((await searchError(provider())).kind).toBe('bad_response');
  });

  it('rejects bad options', () => {
    expect(() => createExaProvider({ apiKey: '' })).toThrow(TypeError);
    expect(() => createExaProvider({ apiKey: KEY, includeText: -1 })).toThrow(RangeError);
    expect(() => createExaProvider({ apiKey: KEY, type: 'magic' as 'auto' })).toThrow(RangeError);
  });
});
