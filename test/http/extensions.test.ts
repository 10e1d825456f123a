/**
 * Opt-in request extensions, RateLimit headers and Idempotency-Key, over real HTTP (node:http adapter;
 * the adapters themselves are covered by the contract suite).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';
import { fakeFetcher, fakeSearchProvider } from '../../src/testing/index.ts';

const PAGES = [
  {
    url: 'https://a.example.com/etna',
    title: 'Etna',
    content: 'Mount Etna is 3,357 metres high and erupts often.',
  },
  {
    url: 'https://b.example.org/etna',
    title: 'Etna facts',
    content: 'Etna is the tallest active volcano in Europe.',
  },
  { url: 'https://c.example.net/fuji', title: 'Fuji', snippet: 'Mount Fuji is 3,776 metres high.' },
];

/** A small HTML page, served for every URL fetched. */
const FUJI_PAGE =
  '<html><body><article><p>Mount Fuji is an active volcano 3,776 metres high in Japan.</p></article></body></html>';

describe('request extensions, rate-limit headers and idempotency', () => {
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function setup(options: SearchEngineOptions = {}) {
    const search = fakeSearchProvider(PAGES, { id: 'fixed' });
    const fetcher = fakeFetcher(() => FUJI_PAGE);
    const { queries } = search;
    const fetched = fetcher.urls;
    const engine = createSearchEngine({
      search,
      fetcher,
      extractor: {
        extract: async (page) => ({
          url: page.url,
          title: 'Fuji',
          text: Buffer.from(page.body)
            .toString()
            .replace(/<[^>]+>/g, ''),
          markdown: '',
        }),
      },
      ...options,
    });
    const { key } = await engine.createKey({ credits: 100 });
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    return { engine, queries, fetched, baseUrl: server.baseUrl, key, ...apiClient(server.baseUrl, key) };
  }

  it('include adds citations, grounding, search_results, usage and timings; without it the body is exactly the spec', async () => {
    const { post } = await setup();
    const plain = (await (await post({ prompt: 'How high is Mount Etna?' })).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(plain).sort()).toEqual(['answer', 'response_time', 'response_type', 'sources']);

    const response = await post({
      prompt: 'How high is Mount Etna?',
      include: ['citations', 'search_results', 'usage', 'timings'],
    });
    const body = (await response.json()) as {
      answer: string;
      sources: string[];
      citations: Array<{ index: number; url: string; claim: string; claim_start: number; claim_end: number }>;
      grounding: { level: string };
      search_results: Array<{ index: number; url: string; title: string; snippet: string }>;
      usage: { credits_charged: number; credits_remaining: number };
      timings: Record<string, number>;
    };
    expect(body.citations.length).toBeGreaterThan(0);
    for (const citation of body.citations) {
      expect(citation.url).toBe(body.sources[citation.index - 1]);
      expect(body.answer.slice(citation.claim_start, citation.claim_end)).toBe(citation.claim);
    }
    expect(body.grounding.level).toBe('full');
    expect(body.search_results.length).toBe(body.sources.length);
    expect(body.search_results[0]).toMatchObject({ index: 1, url: body.sources[0] });
    expect(body.search_results[0]!.snippet).toMatch(/Etna/);
    expect(body.usage).toEqual({ credits_charged: 1, credits_remaining: 98 });
    expect(Object.keys(body.timings).sort()).toEqual(['answer', 'gather', 'plan', 'rank', 'search', 'total']);
  });

  it('include_domains / exclude_domains reach the provider and hold even when it ignores them', async () => {
    const { post, queries } = await setup();
    const only = (await (await post({ prompt: 'Etna height', include_domains: ['example.com'] })).json()) as {
      sources: string[];
    };
    expect(queries.at(-1)?.filters?.includeDomains).toEqual(['example.com']);
    expect(only.sources.every((url) => new URL(url).hostname.endsWith('example.com'))).toBe(true);
    const without = (await (
      await post({ prompt: 'Etna height', exclude_domains: ['A.Example.com'] })
    ).json()) as {
      sources: string[];
    };
    expect(queries.at(-1)?.filters?.excludeDomains).toEqual(['a.example.com']);
    expect(without.sources).not.toContain(PAGES[0]!.url);
  });

  it('time_range, dates, country and language become provider filters', async () => {
    const { post, queries } = await setup();
    await post({ prompt: 'Etna', time_range: 'week', country: 'it', language: 'it' });
    const filters = queries.at(-1)?.filters;
    expect(filters?.country).toBe('IT');
    expect(filters?.language).toBe('it');
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    expect(filters?.fromDate).toBe(weekAgo);
    await post({ prompt: 'Etna', from_date: '2024-01-01', to_date: '2024-12-31' });
    expect(queries.at(-1)?.filters).toMatchObject({ fromDate: '2024-01-01', toDate: '2024-12-31' });
  });

  it('max_sources bounds the sources; depth fast skips fetching, standard fetches, deep runs sub-queries', async () => {
    const { post, queries, fetched } = await setup();
    const one = (await (await post({ prompt: 'Etna height', max_sources: 1 })).json()) as {
      sources: string[];
    };
    expect(queries.at(-1)?.limit).toBe(1);
    expect(one.sources.length).toBeLessThanOrEqual(1);

    await post({ prompt: 'How high is Mount Fuji?', depth: 'fast' });
    expect(fetched).toEqual([]);
    const standard = (await (await post({ prompt: 'How high is Mount Fuji?' })).json()) as { answer: string };
    expect(fetched).toEqual([PAGES[2]!.url]);
    expect(standard.answer).toMatch(/Japan/);

    const before = queries.length;
    await post({
      prompt: 'and how high is it?',
      context: [{ role: 'user', content: 'Tell me about Mount Fuji' }],
      depth: 'deep',
    });
    const deepQueries = queries.slice(before).map((q) => q.query);
    expect(deepQueries.length).toBeGreaterThanOrEqual(2);
    expect(deepQueries).toContain('and how high is it?');
  });

  it('invalid extension values are 400s naming the field, and charge nothing', async () => {
    const { post, balance } = await setup();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ max_sources: 0 }, /max_sources must be an integer from 1 to 20/],
      [
        { include: ['everything'] },
        /include\[0\] entries must be citations, search_results, usage, timings or steps/,
      ],
      [{ country: 'USA' }, /country must be a two-letter country code/],
      [{ include_domains: ['not a domain'] }, /include_domains\[0\] entries must be domain names/],
      [{ from_date: '2024-13-45' }, /from_date must be a valid date/],
      [
        { time_range: 'week', from_date: '2024-01-01' },
        /time_range cannot be combined with from_date or to_date/,
      ],
      [{ depth: 'infinite' }, /depth must be fast, standard, deep or research/],
    ];
    for (const [extra, description] of cases) {
      const response = await post({ prompt: 'Etna', ...extra });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { description: string } }).error.description).toMatch(
        description,
      );
    }
    expect(await balance()).toBe(100);
  });

  it('sends RateLimit and RateLimit-Policy headers', async () => {
    const { post } = await setup({ rateLimit: { limit: 3, windowMs: 60_000 } });
    const first = await post({ prompt: 'Etna' });
    expect(first.headers.get('ratelimit-policy')).toBe('"per-key";q=3;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"per-key";r=2;t=\d+$/);
    await post({ prompt: 'Etna' });
    await post({ prompt: 'Etna' });
    const limited = await post({ prompt: 'Etna' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
  });

  it('Idempotency-Key: a retry replays without a second charge; another body is 422; failures are not kept', async () => {
    const { post, balance } = await setup();
    const first = await post({ prompt: 'Etna height' }, { 'idempotency-key': 'order-42' });
    const firstBody = await first.text();
    const replay = await post({ prompt: 'Etna height' }, { 'idempotency-key': 'order-42' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);
    expect(await balance()).toBe(99);

    const other = await post({ prompt: 'Fuji height' }, { 'idempotency-key': 'order-42' });
    expect(other.status).toBe(422);
    expect(await balance()).toBe(99);

    const streamed = await post({ prompt: 'Etna', stream: true }, { 'idempotency-key': 'order-43' });
    expect(streamed.status).toBe(400);
    const badKey = await post({ prompt: 'Etna' }, { 'idempotency-key': 'x'.repeat(300) });
    expect(badKey.status).toBe(400);
  });

  it('Idempotency-Key: a concurrent duplicate waits and replays the first response (charged once)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let answers = 0;
    const { post, balance } = await setup({
      answerer: {
        async answer() {
          answers++;
          await gate;
          return { answer: 'ok', sources: [PAGES[0]!.url] };
        },
      },
    });
    const first = post({ prompt: 'Etna' }, { 'idempotency-key': 'k0' });
    await expect.poll(() => answers).toBe(1);
    const duplicate = post({ prompt: 'Etna' }, { 'idempotency-key': 'k0' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const [a, b] = await Promise.all([first, duplicate]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.text()).toBe(await a.text());
    expect(answers).toBe(1);
    expect(await balance()).toBe(99);
  });

  it('a body nested 100,000 deep is a 400 on every route, with an Idempotency-Key too (never a 500)', async () => {
    const { baseUrl, key, balance } = await setup();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const bodies: [string, string][] = [
      ['/v1/search', `{"prompt":"Etna","x":${deep}}`],
      ['/v1/extract', `{"urls":["https://a.example.com/etna"],"x":${deep}}`],
      ['/compat/tavily/search', `{"query":"Etna","x":${deep}}`],
    ];
    for (const [path, body] of bodies) {
      for (const idempotencyKey of [undefined, `deep-${path}`]) {
        const response = await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
          },
          body,
        });
        expect(response.status, `${path} ${idempotencyKey ?? ''}`).toBe(400);
        expect(JSON.stringify(await response.json())).toMatch(/x must be nested at most 32 levels deep/);
      }
    }
    // One level within the limit (a field's value 32 deep) is fine.
    const fine = await fetch(`${baseUrl}/v1/search`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': 'ok-32',
      },
      body: `{"prompt":"Etna","x":${'['.repeat(32)}${']'.repeat(32)}}`,
    });
    expect(fine.status).toBe(200);
    expect(await balance()).toBe(99);
  });

  it('Idempotency-Key: a failed search can be retried', async () => {
    let fail = true;
    const { post, balance } = await setup({
      answerer: {
        async answer() {
          if (fail) throw new Error('upstream down');
          return { answer: 'ok', sources: [PAGES[0]!.url] };
        },
      },
    });
    expect((await post({ prompt: 'Etna' }, { 'idempotency-key': 'k1' })).status).toBe(500);
    fail = false;
    const retried = await post({ prompt: 'Etna' }, { 'idempotency-key': 'k1' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await balance()).toBe(99);
  });
});
