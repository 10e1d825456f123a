import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePath, loadArticles } from '../../bench/qa/corpus.ts';
import {
  createArticleIndex,
  createSearchEndpoint,
  type SearchEndpoint,
} from '../../bench/qa/search-endpoint.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import { FIXTURE_DATASETS } from './datasets.ts';

const TITLES = ['Super_Bowl_50', 'Warsaw', 'Normans', 'Nikola_Tesla', 'Amazon_rainforest', 'Oxygen'];
const WEB = 'http://127.0.0.1:9';

describe('SearXNG-compatible search endpoint', () => {
  let endpoint: SearchEndpoint;

  beforeAll(async () => {
    const index = createArticleIndex(
      loadArticles({ datasetsDir: FIXTURE_DATASETS, train: false, titles: TITLES }),
    );
    endpoint = await createSearchEndpoint({ index, urlFor: (title) => `${WEB}${articlePath(title)}` });
  });
  afterAll(async () => {
    await endpoint.close();
  });

  it('answers in the SearXNG JSON shape and ranks the gold article first for an easy question', async () => {
    const q = 'Which NFL team represented the AFC at Super Bowl 50?';
    const response = await fetch(`${endpoint.origin}/search?q=${encodeURIComponent(q)}&format=json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as {
      query: string;
      results: { url: string; title: string; content: string; engine: string; score: number }[];
      unresponsive_engines: unknown[];
    };
    expect(body.query).toBe(q);
    expect(body.unresponsive_engines).toEqual([]);
    expect(body.results.length).toBeGreaterThan(0);
    for (const result of body.results) {
      expect(typeof result.url).toBe('string');
      expect(typeof result.title).toBe('string');
      expect(typeof result.content).toBe('string');
      expect(typeof result.engine).toBe('string');
      expect(typeof result.score).toBe('number');
    }
    expect(body.results[0]!.url).toBe(`${WEB}/wiki/Super_Bowl_50`);
    expect(body.results[0]!.title).toBe('Super Bowl 50');
    expect(body.results[0]!.content.length).toBeLessThanOrEqual(310);
    const scores = body.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(endpoint.queries).toContain(q);
  });

  it('cuts each snippet around a word of the query, even near the end of a long paragraph', () => {
    const long = 'Filler sentence about nothing in particular. '.repeat(20);
    const index = createArticleIndex([
      { title: 'Far_end', paragraphs: [`${long}The lighthouse keeper was Robert Stevenson.`], split: 'dev' },
    ]);
    const snippet = index.snippet('Far_end', 'Who was the lighthouse keeper?');
    expect(snippet.length).toBeLessThanOrEqual(310);
    expect(snippet).toContain('lighthouse keeper');
  });

  it('honours n and refuses non-JSON formats with 403 like a JSON-disabled instance', async () => {
    const limited = (await (await fetch(`${endpoint.origin}/search?q=the&format=json&n=2`)).json()) as {
      results: unknown[];
    };
    expect(limited.results.length).toBeLessThanOrEqual(2);
    expect((await fetch(`${endpoint.origin}/search?q=warsaw`)).status).toBe(403);
    expect((await fetch(`${endpoint.origin}/other`)).status).toBe(404);
  });

  it("works behind the project's SearXNG provider", async () => {
    const provider = createSearxngProvider({ baseUrl: endpoint.origin });
    const hits = await provider.search(
      { query: 'Warsaw capital of Poland Vistula', limit: 3 },
      { signal: AbortSignal.timeout(10_000), requestId: 't' },
    );
    expect(hits[0]?.url).toBe(`${WEB}/wiki/Warsaw`);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]?.snippet).toBeTruthy();
  });
});
