/**
 * Failing upstreams: a search provider (SearXNG's JSON API) and a model (an OpenAI-compatible chat API),
 * both served by local fault servers answering 5xx, 429 with Retry-After, garbage, nothing at all
 * (timeouts) and connection resets. Checked: retries with jittered backoff inside the deadline
 * (`withResilience`, `withAnswererResilience`), a circuit breaker per upstream, fallback providers, and a
 * clear 503/500 with the reservation refunded. Figure: faults injected / credits lost / requests hung.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CitewiseError } from '../../src/errors.ts';
import { createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import { createFallbackProvider } from '../../src/pipeline/search/combine.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/index.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import {
  withAnswererResilience,
  withResilience,
  type ResilienceEvent,
  type ResilienceOptions,
} from '../../src/resilience/index.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { recordFigure } from './figures.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';
import { engineWithKey } from './helpers.ts';

type Fault = 'ok' | '500' | '502' | '429' | '429-long' | 'garbage' | 'hang' | 'reset' | 'empty';
const REQUEST_TIMEOUT_MS = 4_000;
/** Hang check only: generous, since the machine is shared. */
const HANG_MARGIN_MS = 10_000;

/** A local upstream answering each request with the next scripted fault (the last one repeats). */
interface FaultServer {
  readonly server: LoopbackServer;
  readonly origin: string;
  script(...faults: Fault[]): void;
  readonly requests: number;
  close(): Promise<void>;
}

async function startFaultServer(
  okBody: () => string,
  streamBody: () => string = okBody,
): Promise<FaultServer> {
  let script: Fault[] = ['ok'];
  let requests = 0;
  const held: ServerResponse[] = [];
  const server = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const fault = script.length > 1 ? script.shift()! : script[0]!;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.once('end', () => respond(fault, body, req, res));
  });
  const respond = (fault: Fault, body: string, req: IncomingMessage, res: ServerResponse): void => {
    switch (fault) {
      case 'ok':
        if (/"stream":\s*true/.test(body)) {
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(streamBody());
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(okBody());
        return;
      case '500':
      case '502':
        res.writeHead(Number(fault), { 'content-type': 'application/json' }).end('{"error":"upstream down"}');
        return;
      case '429':
        res
          .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"error":"slow down"}');
        return;
      case '429-long':
        res
          .writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' })
          .end('{"error":"slow"}');
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>\u0000\u00ff not json {{{');
        return;
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json' }).end('');
        return;
      case 'hang':
        held.push(res);
        return;
      case 'reset':
        req.socket.destroy();
        return;
    }
  };
  return {
    server,
    origin: server.origin,
    script(...faults) {
      script = faults;
    },
    get requests() {
      return requests;
    },
    close: () => server.close(),
  };
}

const SEARXNG_OK = () =>
  JSON.stringify({
    query: 'tea',
    results: [
      {
        url: 'https://tea.test/green',
        title: 'Green tea',
        content: 'Green tea comes from Camellia sinensis.',
      },
    ],
  });
const CHAT_OK = () =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'mock',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Green tea comes from Camellia sinensis [1].' },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });

/** The same answer as server-sent chat completion chunks. */
const CHAT_STREAM_OK = () =>
  ['Green tea comes ', 'from Camellia sinensis [1].']
    .map(
      (content) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] })}\n\n`,
    )
    .concat(
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`,
      'data: [DONE]\n\n',
    )
    .join('');

let search: FaultServer;
let model: FaultServer;
const figure = { faults: 0, creditsLost: 0, hung: 0, requests: 0 };

beforeAll(async () => {
  [search, model] = await Promise.all([
    startFaultServer(SEARXNG_OK),
    startFaultServer(CHAT_OK, CHAT_STREAM_OK),
  ]);
});
afterAll(async () => {
  await Promise.all([search.close(), model.close()]);
  recordFigure('failing-upstreams', {
    area: 'Failing upstreams',
    values: {
      requests: figure.requests,
      'faults injected': figure.faults,
      'credits lost': figure.creditsLost,
      'requests hung': figure.hung,
    },
    mustBeZero: ['credits lost', 'requests hung'],
  });
});

const fast: ResilienceOptions = { retries: 2, baseDelayMs: 20, maxDelayMs: 100 };

function searxng(timeoutMs = 1_000): SearchProvider {
  return createSearxngProvider({ baseUrl: search.origin, timeoutMs });
}

function chatModel() {
  return createOpenAICompatible({
    name: 'mock',
    baseURL: `${model.origin}/v1`,
    apiKey: 'sk-model-secret',
  }).chatModel('mock');
}

/**
 * Runs one search; checks the balance moved by exactly the cost on success and not at all on failure,
 * and that it settled before the deadline plus the margin. Returns the status (200 or the error's).
 */
async function searchOnce(
  setup: Awaited<ReturnType<typeof engineWithKey>>,
  faults: number,
): Promise<{ status: number; error?: CitewiseError }> {
  figure.requests++;
  figure.faults += faults;
  const before = await setup.balance();
  const started = performance.now();
  let status = 200;
  let failure: CitewiseError | undefined;
  try {
    await setup.engine.search({ prompt: 'green tea' }, { apiKey: setup.key });
  } catch (error) {
    failure = error as CitewiseError;
    status = failure.status ?? 0;
  }
  if (performance.now() - started > REQUEST_TIMEOUT_MS + HANG_MARGIN_MS) figure.hung++;
  const spent = before - (await setup.balance());
  const expected = status === 200 ? 1 : 0;
  figure.creditsLost += Math.abs(spent - expected);
  expect(spent).toBe(expected);
  return failure ? { status, error: failure } : { status };
}

function engineFor(provider: SearchProvider, extra: Parameters<typeof engineWithKey>[0] = {}) {
  return engineWithKey({
    search: provider,
    fetcher: false,
    extractor: false,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    ...extra,
  });
}

describe('search provider faults', () => {
  it('5xx, resets, timeouts and a 429 with Retry-After are retried inside the deadline, then answer 200', async () => {
    const events: ResilienceEvent[] = [];
    const setup = await engineFor(
      withResilience(searxng(500), { ...fast, retries: 3, onEvent: (e) => events.push(e) }),
    );
    for (const faults of [
      ['500', 'ok'],
      ['502', 'reset', 'ok'],
      ['hang', 'ok'],
      ['429', 'ok'],
    ] as Fault[][]) {
      search.script(...faults);
      const requestsBefore = search.requests;
      expect((await searchOnce(setup, faults.length - 1)).status).toBe(200);
      expect(search.requests - requestsBefore).toBe(faults.length);
    }
    // The 429's wait honoured Retry-After (1 s), not the short backoff.
    const retries = events.filter(
      (e): e is Extract<ResilienceEvent, { type: 'retry' }> => e.type === 'retry',
    );
    expect(retries.some((e) => e.delayMs >= 1_000)).toBe(true);
    expect(retries.filter((e) => e.delayMs < 1_000).every((e) => e.delayMs <= 100)).toBe(true);
    await setup.engine.close();
  });

  it('persistent failures end in a clear 500, refunded; a Retry-After past the deadline is not waited for', async () => {
    const setup = await engineFor(withResilience(searxng(500), { ...fast, circuitBreaker: false }));
    for (const fault of ['500', 'garbage', 'empty', 'hang', 'reset', '429-long'] as Fault[]) {
      search.script(fault);
      const requestsBefore = search.requests;
      const { status, error } = await searchOnce(setup, 1);
      expect(status, fault).toBe(500);
      expect(error?.description).toBe('Server Error');
      // Garbage is not retryable; a 120 s Retry-After cannot fit in a 4 s deadline: one attempt each.
      if (fault === 'garbage' || fault === 'empty' || fault === '429-long')
        expect(search.requests - requestsBefore).toBe(1);
    }
    await setup.engine.close();
  });

  it('the circuit opens after the threshold: fast 503s without calling the upstream, then closes again', async () => {
    const events: ResilienceEvent[] = [];
    const provider = withResilience(searxng(), {
      retries: 0,
      circuitBreaker: { threshold: 3, halfOpenAfterMs: 300 },
      onEvent: (e) => events.push(e),
    });
    const setup = await engineFor(provider);
    search.script('500');
    for (let i = 0; i < 3; i++) expect((await searchOnce(setup, 1)).status).toBe(500);
    expect(provider.circuitState).toBe('open');
    const requestsWhenOpen = search.requests;
    for (let i = 0; i < 5; i++) {
      const { status, error } = await searchOnce(setup, 0);
      expect(status).toBe(503);
      expect(error?.code).toBe('service_unavailable');
      expect(error?.retryAfterMs).toBe(300);
    }
    expect(search.requests).toBe(requestsWhenOpen);
    search.script('ok');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await searchOnce(setup, 0)).status).toBe(200);
    expect(provider.circuitState).toBe('closed');
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['circuit_open', 'rejected_open', 'circuit_half_open', 'circuit_closed']),
    );
    await setup.engine.close();
  });

  it('a fallback ladder of resilient providers answers from the next upstream, skipping an open circuit', async () => {
    const first = withResilience(searxng(), {
      retries: 1,
      baseDelayMs: 10,
      circuitBreaker: { threshold: 2, halfOpenAfterMs: 60_000 },
    });
    const second = fakeSearchProvider(
      [{ url: 'https://backup.test/tea', title: 'Tea', snippet: 'Backup: green tea is tea.' }],
      { id: 'backup' },
    );
    const setup = await engineFor(createFallbackProvider([first, withResilience(second)]));
    search.script('500');
    for (let i = 0; i < 4; i++) expect((await searchOnce(setup, i < 1 ? 2 : 0)).status).toBe(200);
    expect(first.circuitState).toBe('open');
    expect(second.queries).toHaveLength(4);
    await setup.engine.close();
  });

  it('the caller aborting stops the backoff at once and refunds', async () => {
    const events: ResilienceEvent[] = [];
    const setup = await engineFor(
      withResilience(searxng(), {
        retries: 5,
        baseDelayMs: 1_500,
        maxDelayMs: 1_500,
        circuitBreaker: false,
        onEvent: (e) => events.push(e),
      }),
    );
    search.script('500');
    const before = await setup.balance();
    const controller = new AbortController();
    const pending = setup.engine.search({ prompt: 'tea' }, { apiKey: setup.key, signal: controller.signal });
    pending.catch(() => undefined);
    await expect.poll(() => events.length).toBe(1);
    controller.abort();
    figure.requests++;
    figure.faults++;
    await expect(pending).rejects.toMatchObject({ status: 500, code: 'timeout' });
    expect(await setup.balance()).toBe(before);
    expect(events).toHaveLength(1); // no second attempt after the abort
    await setup.engine.close();
  });
});

describe('model faults (OpenAI-compatible API on loopback)', () => {
  it('5xx, 429 with Retry-After and resets are retried; the answer comes with 200', async () => {
    search.script('ok');
    const answerer = withAnswererResilience(createModelAnswerer({ model: chatModel(), maxRetries: 0 }), {
      ...fast,
      retries: 3,
    });
    const setup = await engineFor(searxng(), { answerer });
    for (const faults of [
      ['500', 'ok'],
      ['429', 'ok'],
      ['reset', 'ok'],
      ['502', '500', 'ok'],
    ] as Fault[][]) {
      model.script(...faults);
      const requestsBefore = model.requests;
      expect((await searchOnce(setup, faults.length - 1)).status, faults.join()).toBe(200);
      expect(model.requests - requestsBefore).toBe(faults.length);
    }
    // Garbage is final for the AI SDK (not retried): one clear 500.
    model.script('garbage');
    const requestsBefore = model.requests;
    expect((await searchOnce(setup, 1)).status).toBe(500);
    expect(model.requests - requestsBefore).toBe(1);
    await setup.engine.close();
  });

  it('a model that never answers or keeps failing ends in a 500 before the deadline, refunded; its circuit opens', async () => {
    search.script('ok');
    const answerer = withAnswererResilience(createModelAnswerer({ model: chatModel(), maxRetries: 0 }), {
      ...fast,
      circuitBreaker: { threshold: 3, halfOpenAfterMs: 60_000 },
      upstream: 'model',
    });
    const setup = await engineFor(searxng(), { answerer });
    model.script('hang');
    expect((await searchOnce(setup, 1)).status).toBe(500);
    model.script('500');
    expect((await searchOnce(setup, 3)).status).toBe(500);
    expect(answerer.circuitState).toBe('open');
    const { status, error } = await searchOnce(setup, 0);
    expect(status).toBe(503);
    expect(error?.description).toMatch(/^Service Unavailable/);
    await setup.engine.close();
  });

  it('a streamed answer is retried before its first delta and refunded when the model fails for good', async () => {
    search.script('ok');
    const answerer = withAnswererResilience(createModelAnswerer({ model: chatModel(), maxRetries: 0 }), {
      ...fast,
      circuitBreaker: false,
    });
    const setup = await engineFor(searxng(), { answerer });
    for (const [faults, expected] of [
      [['500', 'ok'], 'done'],
      [['500'], 'error'],
    ] as [Fault[], string][]) {
      model.script(...faults);
      figure.requests++;
      figure.faults += faults.filter((f) => f !== 'ok').length;
      const before = await setup.balance();
      const events = await setup.engine.searchStream({ prompt: 'green tea' }, { apiKey: setup.key });
      let last = '';
      for await (const event of events) last = event.type;
      expect(last).toBe(expected);
      const spent = before - (await setup.balance());
      figure.creditsLost += Math.abs(spent - (expected === 'done' ? 1 : 0));
      expect(spent).toBe(expected === 'done' ? 1 : 0);
    }
    await setup.engine.close();
  });
});

describe('withResilience options', () => {
  it('rejects invalid options', () => {
    const provider = fakeSearchProvider([]);
    expect(() => withResilience(provider, { retries: -1 })).toThrow(RangeError);
    expect(() => withResilience(provider, { baseDelayMs: 0 })).toThrow(RangeError);
    expect(() => withResilience(provider, { circuitBreaker: { threshold: 0 } })).toThrow(RangeError);
    expect(() => withResilience({} as SearchProvider)).toThrow(TypeError);
    expect(() => withAnswererResilience({} as never)).toThrow(TypeError);
  });

  it('does not retry errors that say they are final', async () => {
    const final = fakeSearchProvider(
      () => {
        throw Object.assign(new Error('bad key'), { retryable: false });
      },
      { id: 'final' },
    );
    const provider = withResilience(final, fast);
    await expect(
      provider.search({ query: 'x', limit: 1 }, { signal: new AbortController().signal, requestId: 'r' }),
    ).rejects.toThrow('bad key');
    expect(final.queries).toHaveLength(1);
  });
});
