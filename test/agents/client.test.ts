import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CitewiseApiError,
  createClient,
  parseRetryAfter,
  readServerSentEvents,
  type SearchStreamEvent,
} from '../../src/client/index.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { startTestService, type TestService } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateLimit: { limit: 1000, windowMs: 60_000 } });
});
afterAll(() => service.close());

async function rejection(promise: Promise<unknown>): Promise<CitewiseApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CitewiseApiError);
  return error as CitewiseApiError;
}

describe('createClient against a real engine over node:http', () => {
  it('searches and reads the balance, which drops by the credit cost', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const before = await client.balance();
    const result = await client.search({ prompt: 'How do I create an API key?', response_type: 'text' });
    expect(result.response_type).toBe('text');
    expect(result.answer.length).toBeGreaterThan(0);
    expect(result.sources.length).toBeGreaterThan(0);
    expect(typeof result.response_time).toBe('number');
    expect((await client.balance()).available_credits).toBe(before.available_credits - 1);
  });

  it('streams sources, deltas and a done event whose body matches the deltas', async () => {
    const client = createClient({ baseUrl: `${service.baseUrl}/`, apiKey: service.apiKey });
    const events: SearchStreamEvent[] = [];
    for await (const event of await client.searchStream({ prompt: 'What are rate limits?' }))
      events.push(event);
    expect(events[0]?.type).toBe('sources');
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    const text = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
    if (done?.type === 'done') {
      expect(done.body.answer).toBe(text);
      expect(done.body.response_type).toBe('markdown');
    }
  });

  it('sends an Idempotency-Key: a retry is not charged twice, another body is 422', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const before = (await client.balance()).available_credits;
    const request = { prompt: 'How do I revoke a key?' };
    const first = await client.search(request, { idempotencyKey: 'retry-1' });
    const again = await client.search(request, { idempotencyKey: 'retry-1' });
    expect(again).toEqual(first);
    expect((await client.balance()).available_credits).toBe(before - 1);
    const error = await rejection(client.search({ prompt: 'Something else' }, { idempotencyKey: 'retry-1' }));
    expect(error).toMatchObject({ status: 422, code: 'idempotency_mismatch' });
  });

  it('throws 401 with the spec description and code for a wrong key', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: 'cw_wrong' });
    const error = await rejection(client.search({ prompt: 'x' }));
    expect(error).toMatchObject({
      status: 401,
      description: 'Invalid or expired API key',
      code: 'invalid_api_key',
    });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.retryable).toBe(false);
    expect((await rejection(client.balance())).status).toBe(401);
    // Errors before the stream starts are thrown by the awaited call, not by the iteration.
    expect((await rejection(client.searchStream({ prompt: 'x' }))).status).toBe(401);
  });

  it('throws 400 naming the invalid field', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const error = await rejection(client.search({ prompt: '   ' }));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error.description).toBe('Invalid request: prompt must not be empty');
  });

  it('throws 433 when the account has no credits left', async () => {
    const { key } = await service.engine.createKey({ credits: 0 });
    const client = createClient({ baseUrl: service.baseUrl, apiKey: key });
    const error = await rejection(client.search({ prompt: 'credits' }));
    expect(error).toMatchObject({ status: 433, description: 'Account is at / over message quota' });
  });

  it('throws 429 with retryAfterMs from Retry-After', async () => {
    const limited = await startTestService({ rateLimit: { limit: 1, windowMs: 60_000 } });
    try {
      const client = createClient({ baseUrl: limited.baseUrl, apiKey: limited.apiKey });
      await client.search({ prompt: 'first' });
      const error = await rejection(client.search({ prompt: 'second' }));
      expect(error).toMatchObject({ status: 429, description: 'Too Many Requests', code: 'rate_limited' });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs! % 1000).toBe(0);
      expect(error.retryable).toBe(true);
    } finally {
      await limited.close();
    }
  });

  it('throws 503 with Retry-After in maintenance mode', async () => {
    service.engine.setMaintenance(true);
    try {
      const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
      const error = await rejection(client.balance());
      expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterMs: 60_000 });
    } finally {
      service.engine.setMaintenance(false);
    }
  });

  it('works under a mount path and with an injected fetch', async () => {
    const seen: string[] = [];
    const client = createClient({
      baseUrl: `${service.baseUrl}/`,
      apiKey: service.apiKey,
      fetch: (input, init) => {
        seen.push(input instanceof Request ? input.url : input.toString());
        return fetch(input, init);
      },
    });
    await client.balance();
    expect(seen).toEqual([`${service.baseUrl}/v1/balance`]);
  });

  it('gives up after timeoutMs when the server never answers', async () => {
    const silent = await listenOnLoopback(createServer(() => {}));
    try {
      const client = createClient({ baseUrl: silent.baseUrl, apiKey: 'k', timeoutMs: 50 });
      const error = await client.balance().then(
        () => undefined,
        (thrown: unknown) => thrown as { name: string; code: string; cause: { name: string } },
      );
      expect([error?.name, error?.code, error?.cause.name]).toEqual([
        'CitewiseConnectionError',
        'timeout',
        'TimeoutError',
      ]);
    } finally {
      await silent.close();
    }
  });

  it('rejects bad options', () => {
    expect(() => createClient({ baseUrl: 'http://x', apiKey: '' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'ftp://x', apiKey: 'k' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'http://x', apiKey: 'k', timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('client helpers', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 1.5 ')).toBe(1500);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('reads server-sent events split at any byte, with CRLF and comments', async () => {
    const text =
      ': keep-alive\r\nevent: delta\r\ndata: {"text":"é"}\r\n\r\nevent: done\ndata: a\ndata: b\n\n';
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.length; cut += 3) {
      const chunks = (async function* () {
        yield bytes.slice(0, cut);
        yield bytes.slice(cut);
      })();
      const events = [];
      for await (const event of readServerSentEvents(chunks)) events.push(event);
      expect(events).toEqual([
        { event: 'delta', data: '{"text":"é"}' },
        { event: 'done', data: 'a\nb' },
      ]);
    }
  });
});
