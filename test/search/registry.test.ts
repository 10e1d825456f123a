import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSearchProvider,
  createSearchProviderFromSpec,
  parseProviderList,
  parseProviderSpec,
  SEARCH_PROVIDER_NAMES,
} from '../../src/pipeline/search/providers/index.ts';
import { call, html, json, startServer, type TestServer } from './helpers.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const keys = {
  searxng: { baseUrl: 'http://127.0.0.1:1' },
  brave: { apiKey: 'b' },
  tavily: { apiKey: 't' },
  serper: { apiKey: 's' },
  exa: { apiKey: 'e' },
};

describe('provider registry', () => {
  it('creates every built-in provider by name', () => {
    for (const name of SEARCH_PROVIDER_NAMES) {
      expect(createSearchProvider(name, keys).id).toBe(name);
    }
    expect(createSearchProvider(' DDG ', keys).id).toBe('duckduckgo');
  });

  it('names the missing setting', () => {
    expect(() => createSearchProvider('brave')).toThrow(/brave\.apiKey/);
    expect(() => createSearchProvider('searxng')).toThrow(/searxng\.baseUrl/);
    expect(() => createSearchProvider('exa', { exa: {} })).toThrow(/exa\.apiKey/);
  });

  it('rejects unknown names, listing the known ones', () => {
    expect(() => createSearchProvider('bing')).toThrow(/unknown search provider 'bing'.*wikipedia/);
  });

  it('parses specs into fallback rungs of fused names', () => {
    expect(parseProviderSpec('wikipedia')).toEqual([['wikipedia']]);
    expect(parseProviderSpec('brave+Tavily, wikipedia,ddg')).toEqual([
      ['brave', 'tavily'],
      ['wikipedia'],
      ['duckduckgo'],
    ]);
    expect(() => parseProviderSpec('')).toThrow(TypeError);
    expect(() => parseProviderSpec('brave,,wikipedia')).toThrow(/empty name/);
    expect(() => parseProviderSpec('brave+')).toThrow(/empty name/);
  });

  it('builds single providers, fallbacks and fusions from a spec', () => {
    expect(createSearchProviderFromSpec('wikipedia').id).toBe('wikipedia');
    expect(createSearchProviderFromSpec('wikipedia,duckduckgo').id).toBe('fallback:wikipedia,duckduckgo');
    expect(createSearchProviderFromSpec('brave+tavily,wikipedia', keys).id).toBe(
      'fallback:fusion:brave+tavily,wikipedia',
    );
  });

  it('lists providers in order and refuses fusion syntax there', () => {
    expect(parseProviderList('wikipedia,duckduckgo').map((p) => p.id)).toEqual(['wikipedia', 'duckduckgo']);
    expect(() => parseProviderList('brave+tavily', keys)).toThrow(TypeError);
  });

  it('resolves custom providers such as the local index by name', () => {
    const local = fakeSearchProvider([], { id: 'local' });
    expect(createSearchProviderFromSpec('local', { providers: { local } })).toBe(local);
    expect(createSearchProviderFromSpec('local,wikipedia', { providers: { local } }).id).toBe(
      'fallback:local,wikipedia',
    );
  });
});

describe('spec end to end on loopback', () => {
  let wiki: TestServer;
  let ddg: TestServer;
  beforeAll(async () => {
    wiki = await startServer((_req, res) => json(res, 200, { batchcomplete: true, query: { search: [] } }));
    ddg = await startServer((_req, res) =>
      html(
        res,
        200,
        `<div class="results"><div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent('https://example.com/answer')}">Answer</a><a class="result__snippet">It is 42.</a></div></div>`,
      ),
    );
  });
  afterAll(async () => {
    await wiki.close();
    await ddg.close();
  });

  it('"wikipedia,ddg" falls back to DuckDuckGo when Wikipedia finds nothing, with the shared User-Agent', async () => {
    const provider = createSearchProviderFromSpec('wikipedia,ddg', {
      wikipedia: { apiUrl: `${wiki.url}/w/api.php` },
      duckduckgo: { baseUrl: ddg.url },
      userAgent: 'tester/1.0 (ops@example.com)',
      timeoutMs: 5000,
    });
    const hits = await provider.search({ query: 'meaning of life', limit: 5 }, call());
    expect(hits).toEqual([
      { url: 'https://example.com/answer', title: 'Answer', snippet: 'It is 42.', provider: 'duckduckgo' },
    ]);
    expect(wiki.requests[0]!.headers['user-agent']).toBe('tester/1.0 (ops@example.com)');
    expect(ddg.requests[0]!.headers['user-agent']).toBe('tester/1.0 (ops@example.com)');
  });
});
