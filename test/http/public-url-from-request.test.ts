/**
 * An engine without `publicUrl`, mounted behind each adapter (at `/api` for Express and the fetch handler),
 * cites its corpus under the address the request reached (`http://127.0.0.1:<port>/api/docs/…`), and every
 * source opens; with `publicUrl` given, that address is used as it is.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { requestBaseUrl } from '../../src/http/base-url.ts';
import { ADAPTERS, apiClient, type RunningServer } from '../support/servers.ts';

const running: { engine: SearchEngine; server: RunningServer }[] = [];
afterAll(async () => {
  for (const { engine, server } of running) await Promise.all([server.close(), engine.close()]);
});

const ask = async (engine: SearchEngine, server: RunningServer, stream = false) => {
  const { key } = await engine.createKey({ credits: 10 });
  const response = await apiClient(server.baseUrl, key).post({
    prompt: 'How do I use Brave search?',
    stream,
  });
  expect(response.status).toBe(200);
  if (!stream) return ((await response.json()) as { sources: string[] }).sources;
  const done = /event: done\ndata: (.*)\n/.exec(await response.text())?.[1];
  return (JSON.parse(done!) as { sources: string[] }).sources;
};

describe('corpus sources are URLs the mounted server answers', () => {
  it.each(Object.entries(ADAPTERS))(
    '%s: derived from the request when no publicUrl is given',
    async (_name, start) => {
      const engine = createSearchEngine();
      const server = await start(engine);
      running.push({ engine, server });
      for (const stream of [false, true]) {
        const sources = await ask(engine, server, stream);
        expect(sources.length).toBeGreaterThan(0);
        for (const source of sources) {
          expect(source.startsWith(`${server.baseUrl}/docs/`), source).toBe(true);
          expect((await fetch(source)).status, source).toBe(200);
        }
      }
    },
  );

  it('a given publicUrl wins over the request', async () => {
    const engine = createSearchEngine({ publicUrl: 'https://search.example.com/api' });
    const server = await ADAPTERS['express (raw body, mounted at /api)']!(engine);
    running.push({ engine, server });
    const sources = await ask(engine, server);
    expect(sources.every((url) => url.startsWith('https://search.example.com/api/docs/'))).toBe(true);
  });

  it('a missing or malformed Host gives no base URL (the default stays)', () => {
    expect(requestBaseUrl('http', '127.0.0.1:3000', '/api/')).toBe('http://127.0.0.1:3000/api');
    expect(requestBaseUrl('https', 'search.example.com', '')).toBe('https://search.example.com');
    for (const host of [undefined, '', 'a b', 'evil.example/x', 'user@host', 'host?x'])
      expect(requestBaseUrl('http', host, ''), String(host)).toBeUndefined();
    expect(requestBaseUrl('ftp', 'host', '')).toBeUndefined();
  });
});
