import { describe, expect, it } from 'vitest';
import { createTavilyProvider } from '../../src/pipeline/search/providers/tavily.ts';
import { call, json, keyedProviderOn, searchError, useServer } from './helpers.ts';

const KEY = 'tvly-dev-0123456789abcdef';

// Shapes from Tavily's API reference, POST /search and its error table.
const SEARCH_RESPONSE = {
  query: 'Who is Leo Messi?',
  follow_up_questions: null,
  answer: null,
  images: [],
  results: [
    {
      title: 'Lionel Messi - Wikipedia',
      url: 'https://en.wikipedia.org/wiki/Lionel_Messi',
      content: 'Lionel Andrés Messi is an Argentine professional footballer.',
      score: 0.81,
      raw_content:
        'Lionel Andrés "Leo" Messi (born 24 June 1987) is an Argentine professional footballer ...',
      published_date: 'Mon, 11 Mar 2024 15:48:07 GMT',
    },
    {
      title: 'Messi stats',
      url: 'https://www.espn.com/soccer/player/_/id/45843/lionel-messi',
      content: 'Career statistics.',
      score: 0.5,
      raw_content: null,
    },
  ],
  response_time: 1.09,
};

const detail = (message: string) => ({ detail: { error: message } });

const server = useServer();

const provider = keyedProviderOn(server, createTavilyProvider, KEY);

describe('Tavily provider', () => {
  it('POSTs /search with Bearer auth and the documented body, and maps results', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ includeRawContent: 'markdown', searchDepth: 'advanced' }).search(
      {
        query: 'Who is Leo Messi?',
        limit: 30,
        filters: {
          includeDomains: ['wikipedia.org', 'espn.com'],
          excludeDomains: ['reddit.com'],
          fromDate: '2024-01-01T00:00:00Z',
          toDate: '2024-12-31',
        },
      },
      call(),
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/search');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req.body) as Record<string, unknown>;
    expect(body).toEqual({
      query: 'Who is Leo Messi?',
      max_results: 20,
      search_depth: 'advanced',
      topic: 'general',
      include_answer: false,
      include_images: false,
      include_raw_content: 'markdown',
      include_domains: ['wikipedia.org', 'espn.com'],
      exclude_domains: ['reddit.com'],
      start_date: '2024-01-01',
      end_date: '2024-12-31',
    });
    expect(body).not.toHaveProperty('api_key');

    expect(hits).toEqual([
      {
        url: 'https://en.wikipedia.org/wiki/Lionel_Messi',
        title: 'Lionel Messi - Wikipedia',
        snippet: 'Lionel Andrés Messi is an Argentine professional footballer.',
        content: 'Lionel Andrés "Leo" Messi (born 24 June 1987) is an Argentine professional footballer ...',
        publishedAt: '2024-03-11T15:48:07.000Z',
        score: 0.81,
        provider: 'tavily',
      },
      {
        url: 'https://www.espn.com/soccer/player/_/id/45843/lionel-messi',
        title: 'Messi stats',
        snippet: 'Career statistics.',
        content: undefined,
        publishedAt: undefined,
        score: 0.5,
        provider: 'tavily',
      },
    ]);
  });

  it('does not use raw_content unless asked and can send the legacy api_key body field', async () => {
    server.handle((_req, res) => json(res, 200, SEARCH_RESPONSE));
    const hits = await provider({ sendKeyInBody: true }).search({ query: 'messi', limit: 1 }, call());
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({
      api_key: KEY,
      max_results: 1,
      include_raw_content: false,
    });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.content).toBeUndefined();
  });

  it('maps 401 to a rejected key', async () => {
    server.handle((_req, res) => json(res, 401, detail('Unauthorized: missing or invalid API key.')));
    const e = await searchError(provider());
    expect(e.kind).toBe('auth');
    expect(e.message).toBe('Tavily rejected the API key (401): Unauthorized: missing or invalid API key.');
    expect(e.message).not.toContain(KEY);
  });

  it('maps 429 with Retry-After to a rate limit', async () => {
    server.handle((_req, res) =>
      json(res, 429, detail('Your request has been blocked due to excessive requests.'), {
        'retry-after': '12',
      }),
    );
    const e = await searchError(provider());
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(12_000);
    expect(e.retryable).toBe(true);
  });

  it.each([
    [
      432,
      "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com",
    ],
    [
      433,
      'This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.',
    ],
  ])('maps %i to a non-retryable quota error', async (status, message) => {
    server.handle((_req, res) => json(res, status, detail(message)));
    const e = await searchError(provider());
    expect(e.kind).toBe('quota');
    expect(e.httpStatus).toBe(status);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain(message);
  });

  it('maps 400, 500 and malformed JSON', async () => {
    server.handle((_req, res) => json(res, 400, detail('Invalid topic. Must be general, news or finance.')));
    expect((await searchError(provider())).kind).toBe('bad_request');
    server.handle((_req, res) => json(res, 500, detail('Internal Server Error')));
    expect((await searchError(provider())).kind).toBe('server');
    server.handle((_req, res) => json(res, 200, '{"results": '));
    expect((await searchError(provider())).kind).toBe('bad_response');
  });

  it('rejects bad options', () => {
    expect(() => createTavilyProvider({ apiKey: ' ' })).toThrow(TypeError);
    expect(() => createTavilyProvider({ apiKey: KEY, topic: 'sports' as 'news' })).toThrow(RangeError);
    expect(() => createTavilyProvider({ apiKey: KEY, searchDepth: 'deep' as 'basic' })).toThrow(RangeError);
  });
});
