/**
 * The /v1 contract (spec + issue 2), row by row, over real sockets, against every adapter.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import type { Answerer, SearchProvider } from '../../src/pipeline/types.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { staticAnswerer } from '../../src/testing/index.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

const SPEC_ERRORS = {
  401: 'Invalid or expired API key',
  429: 'Too Many Requests',
  433: 'Account is at / over message quota',
  500: 'Server Error',
} as const;

interface Harness {
  engine: SearchEngine;
  server: RunningServer;
  key: string;
  accountId: string;
}

/** A search provider that waits until its request is aborted (to test disconnects and overload). */
function blockingProvider(onCall: () => void): SearchProvider {
  return {
    id: 'blocking',
    search: (_query, { signal }) =>
      new Promise((_, reject) => {
        onCall();
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
  };
}

/** Parses a server-sent event stream into `{ event, data }` pairs (data as JSON). */
function parseEvents(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) as unknown };
    });
}

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`/v1 contract via ${adapterName}`, () => {
    const running: Harness[] = [];

    async function setup(options: SearchEngineOptions = {}, credits = 1000): Promise<Harness> {
      const engine = createSearchEngine({ corpus: [CORPUS], ...options });
      const { key, record } = await engine.createKey({ credits });
      const server = await startAdapter(engine);
      const harness = { engine, server, key, accountId: record.accountId };
      running.push(harness);
      return harness;
    }

    afterEach(async () => {
      for (const h of running.splice(0)) {
        await h.server.close();
        await h.engine.close();
      }
    });

    function search(h: Harness, body: unknown, init: RequestInit = {}) {
      return fetch(`${h.server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...init,
      });
    }

    async function balance(h: Harness, key = h.key): Promise<number> {
      const response = await fetch(`${h.server.baseUrl}/v1/balance`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { available_credits: number }).available_credits;
    }

    async function expectError(response: Response, status: number, description?: string) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: { description: string } };
      expect(Object.keys(body)).toEqual(['error']);
      expect(typeof body.error.description).toBe('string');
      if (description !== undefined) expect(body.error.description).toBe(description);
      return body.error.description;
    }

    it('GET /v1/balance returns exactly {available_credits} for a new account', async () => {
      const h = await setup();
      const response = await fetch(`${h.server.baseUrl}/v1/balance`, {
        headers: { authorization: `Bearer ${h.key}` },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ available_credits: 1000 });
    });

    it('POST /v1/search answers from the corpus with exactly the spec fields, markdown by default', async () => {
      const h = await setup();
      const response = await search(h, { prompt: 'How tall is Mount Etna?' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['answer', 'response_time', 'response_type', 'sources']);
      expect(body.response_type).toBe('markdown');
      expect(body.answer).toMatch(/3,357/);
      expect(body.answer).toMatch(/\[1\]/);
      // Never a server path: the corpus file's URL below the service's /docs/, where this request reached
      // it (no publicUrl given).
      expect(body.sources).toEqual([`${h.server.baseUrl}/docs/volcanoes.md`]);
      const source = await fetch(`${h.server.baseUrl}/docs/volcanoes.md`);
      expect(source.status).toBe(200);
      expect(source.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await source.text()).toMatch(/3,357/);
      expect(typeof body.response_time).toBe('number');
      expect(body.response_time).toBeGreaterThanOrEqual(0);
      expect(await balance(h)).toBe(999);
    });

    it('response_type text returns plain text; markdown is echoed', async () => {
      const h = await setup();
      const text = (await (
        await search(h, { prompt: 'green tea brewing temperature', response_type: 'text' })
      ).json()) as {
        answer: string;
        response_type: string;
      };
      expect(text.response_type).toBe('text');
      expect(text.answer).not.toMatch(/\*\*|__|`|^#|^\s*[-*] |\]\(/m);
      const md = (await (await search(h, { prompt: 'green tea', response_type: 'markdown' })).json()) as {
        response_type: string;
      };
      expect(md.response_type).toBe('markdown');
    });

    it('only user messages of the context reach the pipeline', async () => {
      const answerer = staticAnswerer({ answer: 'ok', sources: [] });
      const seen = answerer.inputs;
      const h = await setup({ answerer });
      const response = await search(h, {
        prompt: 'and how tall is it?',
        context: [
          { role: 'user', content: 'Tell me about Mount Etna' },
          { role: 'assistant', content: 'IGNORED assistant text' },
          { role: 'system', content: 'IGNORED system text' },
        ],
      });
      expect(response.status).toBe(200);
      expect(seen[0]?.context).toEqual([{ role: 'user', content: 'Tell me about Mount Etna' }]);
    });

    it('401 with the exact description for missing, malformed, unknown, revoked and expired keys', async () => {
      const h = await setup();
      const revoked = await h.engine.createKey({ accountId: h.accountId });
      await h.engine.stores.keys.revoke(revoked.record.id);
      const expired = await h.engine.createKey({ accountId: h.accountId, expiresAt: Date.now() - 1 });
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: 'Bearer' },
        { authorization: `Bearer ${h.key}x` },
        { authorization: 'Bearer cw_unknownunknownunknownunknownunknownunknow' },
        { authorization: `Bearer ${revoked.key}` },
        { authorization: `Bearer ${expired.key}` },
      ];
      const bodies = new Set<string>();
      for (const headers of attempts) {
        for (const [method, path] of [
          ['GET', '/v1/balance'],
          ['POST', '/v1/search'],
        ] as const) {
          const response = await fetch(`${h.server.baseUrl}${path}`, {
            method,
            headers: { ...headers, 'content-type': 'application/json' },
            ...(method === 'POST' ? { body: JSON.stringify({ prompt: 'tea' }) } : {}),
          });
          await expectError(response, 401, SPEC_ERRORS[401]);
          expect(response.headers.get('www-authenticate')).toBe('Bearer');
          bodies.add(JSON.stringify([response.status]));
        }
      }
      expect(bodies.size).toBe(1);
      expect(await balance(h)).toBe(1000);
    });

    it('400 names the invalid field and charges nothing', async () => {
      const h = await setup();
      const cases: Array<[unknown, RegExp]> = [
        ['{"prompt": ', /not valid JSON/],
        ['[]', /body must be a JSON object/],
        [{}, /prompt/],
        [{ prompt: '' }, /prompt must not be empty/],
        [{ prompt: '   ' }, /prompt must not be empty/],
        [{ prompt: 42 }, /prompt/],
        [{ prompt: 'tea', response_type: 'html' }, /response_type must be "text" or "markdown"/],
        [{ prompt: 'tea', context: 'earlier' }, /context/],
        [{ prompt: 'tea', context: [{ role: 'user' }] }, /context\[0\]\.content must be a string/],
        [
          { prompt: 'tea', context: [{ role: 'user', content: 7 }] },
          /context\[0\]\.content must be a string/,
        ],
      ];
      for (const [body, description] of cases) {
        const text = await expectError(await search(h, body), 400);
        expect(text).toMatch(description);
      }
      expect(await balance(h)).toBe(1000);
    });

    it('415 for a non-JSON content type, 413 for a body over the limit', async () => {
      const h = await setup({ maxBodyBytes: 1024 });
      await expectError(
        await search(h, 'prompt=tea', {
          headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
      );
      await expectError(
        await search(h, { prompt: 'x'.repeat(5000) }),
        413,
        'Payload Too Large: the body must be at most 1024 bytes',
      );
      expect(await balance(h)).toBe(1000);
    });

    it('404 for unknown routes, 405 with Allow for wrong methods', async () => {
      const h = await setup();
      await expectError(
        await fetch(`${h.server.baseUrl}/v1/nothing`, { headers: { authorization: `Bearer ${h.key}` } }),
        404,
      );
      const wrong = await fetch(`${h.server.baseUrl}/v1/search`, {
        headers: { authorization: `Bearer ${h.key}` },
      });
      await expectError(wrong, 405);
      expect(wrong.headers.get('allow')).toBe('POST');
      const wrongBalance = await fetch(`${h.server.baseUrl}/v1/balance`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}` },
      });
      await expectError(wrongBalance, 405);
      expect(wrongBalance.headers.get('allow')).toBe('GET');
    });

    it('429 Too Many Requests with Retry-After past the per-key rate limit', async () => {
      const h = await setup({ rateLimit: { limit: 2, windowMs: 60_000 } });
      expect((await search(h, { prompt: 'tea' })).status).toBe(200);
      expect((await search(h, { prompt: 'tea' })).status).toBe(200);
      const limited = await search(h, { prompt: 'tea' });
      await expectError(limited, 429, SPEC_ERRORS[429]);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await balance(h)).toBe(998);
    });

    it('433 when credits cannot cover the search', async () => {
      const h = await setup({}, 0);
      await expectError(await search(h, { prompt: 'tea' }), 433, SPEC_ERRORS[433]);
      expect(await balance(h)).toBe(0);
    });

    it('credit cost is configurable', async () => {
      const h = await setup({ creditCost: 3 }, 5);
      expect((await search(h, { prompt: 'tea' })).status).toBe(200);
      expect(await balance(h)).toBe(2);
      await expectError(await search(h, { prompt: 'tea' }), 433, SPEC_ERRORS[433]);
    });

    it('500 Server Error when the pipeline fails, and the reservation is refunded', async () => {
      const answerer = staticAnswerer(() => {
        throw new Error('model exploded with internal detail');
      });
      const h = await setup({ answerer });
      const description = await expectError(await search(h, { prompt: 'tea' }), 500, SPEC_ERRORS[500]);
      expect(description).not.toMatch(/exploded/);
      expect(await balance(h)).toBe(1000);
    });

    it('503 in maintenance mode', async () => {
      const h = await setup({ maintenance: true });
      const response = await search(h, { prompt: 'tea' });
      await expectError(response, 503);
      expect(response.headers.get('retry-after')).toBeTruthy();
      h.engine.setMaintenance(false);
      expect((await search(h, { prompt: 'tea' })).status).toBe(200);
    });

    it('503 when overloaded, without charging', async () => {
      let started!: () => void;
      const firstStarted = new Promise<void>((resolve) => (started = resolve));
      const h = await setup({
        search: blockingProvider(() => started()),
        maxConcurrentSearches: 1,
        maxQueuedSearches: 0,
      });
      const controller = new AbortController();
      const first = search(h, { prompt: 'tea' }, { signal: controller.signal }).catch(() => null);
      await firstStarted;
      const before = await balance(h);
      const second = await search(h, { prompt: 'tea' });
      await expectError(second, 503);
      expect(second.headers.get('retry-after')).toBe('1');
      expect(await balance(h)).toBe(before);
      controller.abort();
      await first;
    });

    it('20 concurrent searches against 5 credits: exactly 5 succeed, the rest get 433', async () => {
      const h = await setup({ rateLimiter: false }, 5);
      const responses = await Promise.all(Array.from({ length: 20 }, () => search(h, { prompt: 'Danube' })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 433)).toHaveLength(15);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(await balance(h)).toBe(0);
    });

    it('"stream": true answers as server-sent events: sources, deltas, then the spec body', async () => {
      const h = await setup();
      const response = await search(h, { prompt: 'How tall is Mount Etna?', stream: true });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = parseEvents(await response.text());
      expect(events[0]?.event).toBe('sources');
      expect(events.at(-1)?.event).toBe('done');
      const done = events.at(-1)!.data as Record<string, unknown>;
      expect(Object.keys(done).sort()).toEqual(['answer', 'response_time', 'response_type', 'sources']);
      const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text);
      expect(deltas.join('')).toBe(done.answer);
      expect(done.answer).toMatch(/3,357/);
      expect(await balance(h)).toBe(999);
    });

    it('a streamed search that fails after it started ends with an error event and is refunded', async () => {
      const answerer: Answerer = {
        answer: () => Promise.reject(new Error('unused')),
        async *stream() {
          yield { type: 'sources', sources: ['https://example.com/'] };
          throw new Error('model connection reset');
        },
      };
      const h = await setup({ answerer });
      const response = await search(h, { prompt: 'tea', stream: true });
      const events = parseEvents(await response.text());
      expect(events.map((e) => e.event)).toEqual(['sources', 'error']);
      expect(events[1]?.data).toEqual({ error: { description: SPEC_ERRORS[500], code: 'server_error' } });
      expect(await balance(h)).toBe(1000);
      await expectError(await search(h, { prompt: 'tea', stream: 'yes' }), 400);
    });

    it('a client that disconnects from a stream before any answer text is refunded and the answer is aborted', async () => {
      // The answer stops either way the disconnect reaches it first: its signal aborts while it waits, or its
      // generator is closed at a yield (the signal may even have aborted before it started to wait).
      let stopped = false;
      const answerer: Answerer = {
        answer: () => Promise.reject(new Error('unused')),
        async *stream(_input, { signal }) {
          try {
            // No delta: a stream is charged once its first answer text goes out (test/reliability/free-answers).
            yield { type: 'sources', sources: ['https://example.com/'] };
            await new Promise<void>((resolve) => {
              if (signal.aborted) resolve();
              else signal.addEventListener('abort', () => resolve(), { once: true });
            });
          } finally {
            stopped = true;
          }
        },
      };
      const h = await setup({ answerer });
      const controller = new AbortController();
      const response = await search(h, { prompt: 'tea', stream: true }, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => {});
      await expect.poll(() => stopped, { timeout: 5_000 }).toBe(true);
      await expect.poll(() => balance(h), { timeout: 5_000 }).toBe(1000);
    });

    it('a client that disconnects mid-search is refunded', async () => {
      let started!: () => void;
      const searching = new Promise<void>((resolve) => (started = resolve));
      const h = await setup({ search: blockingProvider(() => started()) });
      const controller = new AbortController();
      const pending = search(h, { prompt: 'tea' }, { signal: controller.signal }).catch((e: unknown) => e);
      await searching;
      expect(await balance(h)).toBe(999); // held while the search runs
      controller.abort();
      await pending;
      await expect.poll(() => balance(h), { timeout: 5_000 }).toBe(1000);
    });
  });
}
