import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFallbackProvider,
  createFusionProvider,
  dedupeHits,
  fuseRankings,
} from '../../src/pipeline/search/combine.ts';
import { SearchProviderError } from '../../src/pipeline/search/providers/errors.ts';
import { createBraveProvider } from '../../src/pipeline/search/providers/brave.ts';
import { createWikipediaProvider } from '../../src/pipeline/search/providers/wikipedia.ts';
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../../src/pipeline/types.ts';
import { call, json, rejectionOf, startServer, type TestServer } from './helpers.ts';

const hit = (url: string, extra: Partial<SearchHit> = {}): SearchHit => ({ url, title: url, ...extra });

/** A provider double that records its calls and answers from a script. */
function fake(
  id: string,
  answer: (query: SearchQuery, options: CallOptions) => Promise<SearchHit[]> | SearchHit[],
): SearchProvider & { calls: number } {
  const provider = {
    id,
    calls: 0,
    async search(query: SearchQuery, options: CallOptions) {
      provider.calls += 1;
      return answer(query, options);
    },
  };
  return provider;
}

const returning = (id: string, urls: string[]) => fake(id, () => urls.map((u) => hit(u, { provider: id })));
const failing = (id: string, error: Error) =>
  fake(id, () => {
    throw error;
  });
/** Never settles and ignores its signal. */
const hanging = (id: string) => fake(id, () => new Promise<SearchHit[]>(() => undefined));

const q: SearchQuery = { query: 'q', limit: 10 };

describe('createFallbackProvider', () => {
  it('returns the first provider with results and does not call the rest', async () => {
    const a = returning('a', ['https://a.example/1']);
    const b = returning('b', ['https://b.example/1']);
    const provider = createFallbackProvider([a, b]);
    expect(provider.id).toBe('fallback:a,b');
    expect((await provider.search(q, call())).map((h) => h.url)).toEqual(['https://a.example/1']);
    expect(b.calls).toBe(0);
  });

  it('moves on after an error, a blocked provider and an empty answer', async () => {
    const errors: [string, unknown][] = [];
    const provider = createFallbackProvider(
      [
        failing('brave', new SearchProviderError('brave', 'auth', 'Brave Search rejected the API key (401)')),
        failing(
          'duckduckgo',
          new SearchProviderError('duckduckgo', 'blocked', 'DuckDuckGo served its bot challenge'),
        ),
        returning('empty', []),
        returning('wikipedia', ['https://en.wikipedia.org/wiki/X']),
      ],
      { onProviderError: (error, id) => errors.push([id, error]) },
    );
    const hits = await provider.search(q, call());
    expect(hits.map((h) => h.provider)).toEqual(['wikipedia']);
    expect(errors.map(([id]) => id)).toEqual(['brave', 'duckduckgo']);
  });

  it('moves on after a provider exceeds providerTimeoutMs, even one that ignores its signal', async () => {
    const slow = hanging('slow');
    const provider = createFallbackProvider([slow, returning('b', ['https://b.example/'])], {
      providerTimeoutMs: 20,
    });
    expect((await provider.search(q, call())).map((h) => h.url)).toEqual(['https://b.example/']);
    expect(slow.calls).toBe(1);
  });

  it('returns [] when every provider answered empty or failed but at least one answered', async () => {
    const provider = createFallbackProvider([failing('a', new Error('boom')), returning('b', [])]);
    expect(await provider.search(q, call())).toEqual([]);
  });

  it('returns the largest short answer when no provider reaches minResults', async () => {
    const provider = createFallbackProvider(
      [
        returning('a', ['https://a.example/1']),
        returning('b', ['https://b.example/1', 'https://b.example/2']),
      ],
      { minResults: 3 },
    );
    expect((await provider.search(q, call())).map((h) => h.url)).toEqual([
      'https://b.example/1',
      'https://b.example/2',
    ]);
  });

  it('throws one error listing every failure when all providers fail', async () => {
    const provider = createFallbackProvider([
      failing('brave', new SearchProviderError('brave', 'auth', 'Brave Search rejected the API key (401)')),
      failing(
        'tavily',
        new SearchProviderError('tavily', 'rate_limited', 'Tavily rate limited the request (429)', {
          retryAfterMs: 5000,
        }),
      ),
    ]);
    const e = (await rejectionOf(provider.search(q, call()))) as SearchProviderError;
    expect(e).toBeInstanceOf(SearchProviderError);
    expect(e.kind).toBe('unavailable');
    expect(e.providerId).toBe('fallback:brave,tavily');
    expect(e.message).toContain('brave: Brave Search rejected the API key (401)');
    expect(e.message).toContain('tavily: Tavily rate limited the request (429)');
    expect(e.retryable).toBe(true);
    expect(e.retryAfterMs).toBe(5000);
    expect(e.cause).toBeInstanceOf(AggregateError);
    expect((e.cause as AggregateError).errors).toHaveLength(2);
  });

  it('keeps the shared kind when all providers failed the same way', async () => {
    const provider = createFallbackProvider([
      failing('a', new SearchProviderError('a', 'auth', 'a rejected the API key (401)')),
      failing('b', new SearchProviderError('b', 'auth', 'b rejected the API key (403)')),
    ]);
    const e = (await rejectionOf(provider.search(q, call()))) as SearchProviderError;
    expect(e.kind).toBe('auth');
    expect(e.retryable).toBe(false);
  });

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController();
    const reason = new DOMException('client went away', 'AbortError');
    const first = fake('a', () => {
      controller.abort(reason);
      throw new Error('aborted mid-flight');
    });
    const second = returning('b', ['https://b.example/']);
    const error = await rejectionOf(
      createFallbackProvider([first, second]).search(q, call(controller.signal)),
    );
    expect(error).toBe(reason);
    expect(second.calls).toBe(0);
  });

  it('de-duplicates by canonical URL and applies the limit', async () => {
    const provider = createFallbackProvider([
      returning('a', [
        'https://a.example/x?utm_source=1',
        'https://A.example/x/',
        'https://a.example/y',
        'https://a.example/z',
      ]),
    ]);
    const hits = await provider.search({ query: 'q', limit: 2 }, call());
    expect(hits.map((h) => h.url)).toEqual(['https://a.example/x?utm_source=1', 'https://a.example/y']);
  });

  it('closes every provider', async () => {
    const closed: string[] = [];
    const a = { ...returning('a', []), close: async () => void closed.push('a') };
    const b = { ...returning('b', []), close: async () => void closed.push('b') };
    await createFallbackProvider([a, b]).close?.();
    expect(closed.sort()).toEqual(['a', 'b']);
  });

  it('rejects bad options', () => {
    expect(() => createFallbackProvider([])).toThrow(TypeError);
    expect(() => createFallbackProvider([returning('a', [])], { minResults: -1 })).toThrow(RangeError);
    expect(() => createFallbackProvider([returning('a', [])], { providerTimeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('fuseRankings', () => {
  it('scores each URL by the sum of 1/(k + rank) over the lists', () => {
    const fused = fuseRankings(
      [
        {
          providerId: 'a',
          hits: [hit('https://x.example/1'), hit('https://x.example/2'), hit('https://x.example/3')],
        },
        { providerId: 'b', hits: [hit('https://x.example/2'), hit('https://x.example/4')] },
      ],
      { k: 60 },
    );
    expect(fused.map((h) => h.url)).toEqual([
      'https://x.example/2',
      'https://x.example/1',
      'https://x.example/4',
      'https://x.example/3',
    ]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 61, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
    expect(fused[3]!.score).toBeCloseTo(1 / 63, 12);
  });

  it('merges one page across providers by canonical URL, filling missing fields', () => {
    const fused = fuseRankings([
      { providerId: 'a', hits: [hit('https://x.example/p?utm_source=a', { provider: 'a' })] },
      {
        providerId: 'b',
        hits: [
          hit('https://x.example/other', { provider: 'b' }),
          hit('https://X.example/p/', {
            provider: 'b',
            snippet: 'from b',
            publishedAt: '2024-01-01T00:00:00.000Z',
          }),
        ],
      },
    ]);
    expect(fused).toHaveLength(2);
    expect(fused[0]).toMatchObject({
      url: 'https://x.example/p?utm_source=a',
      provider: 'a',
      snippet: 'from b',
      publishedAt: '2024-01-01T00:00:00.000Z',
    });
  });

  it('weights providers', () => {
    const fused = fuseRankings(
      [
        { providerId: 'a', hits: [hit('https://x.example/a')] },
        { providerId: 'b', hits: [hit('https://x.example/b')] },
      ],
      { weights: { b: 2 } },
    );
    expect(fused.map((h) => h.url)).toEqual(['https://x.example/b', 'https://x.example/a']);
  });
});

describe('createFusionProvider', () => {
  it('queries all providers in parallel and fuses their rankings', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const slowList = (id: string, urls: string[]) =>
      fake(id, async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return urls.map((u) => hit(u, { provider: id }));
      });
    const provider = createFusionProvider([
      slowList('a', ['https://x.example/1', 'https://x.example/2']),
      slowList('b', ['https://x.example/2', 'https://x.example/3']),
    ]);
    expect(provider.id).toBe('fusion:a+b');
    const hits = await provider.search(q, call());
    expect(maxInFlight).toBe(2);
    expect(hits.map((h) => h.url)).toEqual([
      'https://x.example/2',
      'https://x.example/1',
      'https://x.example/3',
    ]);
  });

  it('tolerates failing and hanging providers', async () => {
    const failures: string[] = [];
    const provider = createFusionProvider(
      [failing('a', new Error('down')), hanging('slow'), returning('c', ['https://c.example/'])],
      { providerTimeoutMs: 20, onProviderError: (_e, id) => failures.push(id) },
    );
    const hits = await provider.search(q, call());
    expect(hits.map((h) => h.url)).toEqual(['https://c.example/']);
    expect(failures.sort()).toEqual(['a', 'slow']);
  });

  it('fails only when every provider failed', async () => {
    const provider = createFusionProvider([failing('a', new Error('down')), hanging('slow')], {
      providerTimeoutMs: 20,
    });
    const e = (await rejectionOf(provider.search(q, call()))) as SearchProviderError;
    expect(e.kind).toBe('unavailable');
    expect(e.message).toContain('a: down');
    expect(e.message).toContain('slow: search provider slow did not answer within 20 ms');
  });

  it('applies the limit and rejects a caller abort', async () => {
    const provider = createFusionProvider([
      returning('a', ['https://1.example/', 'https://2.example/', 'https://3.example/']),
    ]);
    expect(await provider.search({ query: 'q', limit: 2 }, call())).toHaveLength(2);

    const controller = new AbortController();
    const pending = createFusionProvider([hanging('slow')]).search(q, call(controller.signal));
    controller.abort(new DOMException('bye', 'AbortError'));
    expect(((await rejectionOf(pending)) as Error).message).toBe('bye');
  });

  it('rejects bad options', () => {
    expect(() => createFusionProvider([returning('a', [])], { k: -1 })).toThrow(RangeError);
    expect(() => createFusionProvider([returning('a', [])], { weights: { a: Number.NaN } })).toThrow(
      RangeError,
    );
  });
});

describe('dedupeHits', () => {
  it('keeps the first hit per canonical URL', () => {
    expect(
      dedupeHits([hit('https://e.com/a#x'), hit('https://e.com/a'), hit('https://e.com/b')]).map(
        (h) => h.url,
      ),
    ).toEqual(['https://e.com/a#x', 'https://e.com/b']);
  });
});

describe('fallback over real providers on loopback', () => {
  let brave: TestServer;
  let wiki: TestServer;
  beforeAll(async () => {
    brave = await startServer((_req, res) =>
      json(res, 422, {
        type: 'ErrorResponse',
        error: {
          status: 422,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
        },
      }),
    );
    wiki = await startServer((_req, res) =>
      json(res, 200, {
        batchcomplete: true,
        query: { search: [{ ns: 0, title: 'Node.js', pageid: 1, snippet: 'runtime' }] },
      }),
    );
  });
  afterAll(async () => {
    await brave.close();
    await wiki.close();
  });

  it('falls back from a rejected Brave key to Wikipedia and reports why', async () => {
    const errors: string[] = [];
    const provider = createFallbackProvider(
      [
        createBraveProvider({ apiKey: 'bad-key-value', baseUrl: brave.url }),
        createWikipediaProvider({ apiUrl: `${wiki.url}/w/api.php` }),
      ],
      { onProviderError: (e) => errors.push((e as Error).message) },
    );
    const hits = await provider.search({ query: 'node', limit: 5 }, call());
    expect(hits).toEqual([
      {
        url: 'https://en.wikipedia.org/wiki/Node.js',
        title: 'Node.js',
        snippet: 'runtime',
        provider: 'wikipedia',
      },
    ]);
    expect(errors).toEqual([
      'Brave Search rejected the API key (422): SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid.',
    ]);
  });
});
