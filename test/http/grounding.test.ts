/**
 * Citations you can audit, over real HTTP: pages fetched from a loopback web and extracted, a model (a
 * loopback OpenAI-compatible server) that cites them and also invents a claim. Every citation's quote is
 * checked against the page text that `POST /v1/extract` returns; the invented sentence is flagged; strict
 * grounding refuses an answer no source supports (a plain refusal is refunded, a streamed one charged); a provider that fails
 * or finds nothing never yields a confident answer, in any mode.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { resolveModel } from '../../src/models/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import type { SearchHit } from '../../src/pipeline/types.ts';
import { startOpenAiServer, type ChatRequestBody, type OpenAiServer } from '../answer/openai-server.ts';
import { startFixtureWeb } from '../support/fixture-web.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const GLACIERS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>How glaciers move</title></head>
  <body><nav><a href="/">Home</a></nav><main><article><h1>How glaciers move</h1>
  <p>Glaciers move by internal deformation of the ice and by sliding over the rock beneath them.</p>
  <h2>Sliding</h2><p>Meltwater at the base of a glacier acts as a lubricant, so glaciers slide faster in summer.
  The Aletsch Glacier, the largest in the Alps, is about 23 kilometres long.</p>
  </article></main><footer>Copyright Example News.</footer></body></html>`;

const ICE_AGES = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ice ages</title></head>
  <body><main><article><h1>Ice ages</h1>
  <p>During the last glacial maximum, about 20,000 years ago, glaciers and ice sheets covered much of North
  America and northern Europe.</p></article></main></body></html>`;

interface Api {
  readonly url: string;
  readonly engine: SearchEngine;
  readonly key: string;
  post(path: string, body: unknown): Promise<Response>;
  balance(): Promise<number>;
}

/** The number the model was given for the source at `url` (`[n]` above its delimited block). */
function sourceNumber(body: ChatRequestBody, url: string): number {
  const user = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(
    `\\[(\\d+)\\]\\n<<<SOURCE-[0-9a-f]+>>>\\nTitle: [^\\n]*\\nURL: ${escaped}\\n`,
  ).exec(user);
  return Number(match?.[1] ?? 0);
}

/** The chat completion every OpenAI-route check asks. */
const GLACIER_CHAT = {
  model: 'citewise',
  messages: [{ role: 'user', content: 'How do glaciers move?' }],
};

describe('grounding over HTTP', () => {
  let web: ListeningServer;
  let webUrl: string;
  let llm: OpenAiServer;
  let reply: (body: ChatRequestBody) => string = () => '';
  let hits: () => SearchHit[] = () => [];
  let failSearch = false;
  const apis: { server: Server; engine: SearchEngine }[] = [];

  beforeAll(async () => {
    web = await startFixtureWeb({ '/glaciers': GLACIERS, '/ice-ages': ICE_AGES });
    webUrl = web.baseUrl;
    hits = () => [
      { url: `${webUrl}/glaciers`, title: 'How glaciers move', snippet: 'Glaciers move by deformation.' },
      { url: `${webUrl}/ice-ages`, title: 'Ice ages', snippet: 'Ice sheets covered North America.' },
    ];
    llm = await startOpenAiServer({ reply: (body) => reply(body) });
  });

  afterAll(async () => {
    for (const { server, engine } of apis) {
      server.close();
      await engine.close();
    }
    await web.close();
    await llm.close();
  });

  async function start(options: Partial<SearchEngineOptions> = {}): Promise<Api> {
    const provider = fakeSearchProvider(
      () => {
        if (failSearch) throw new Error('search backend down');
        return hits();
      },
      { id: 'fixture' },
    );
    const engine = createSearchEngine({
      search: provider,
      fetcher: createPageFetcher({ allowPrivateHosts: [new URL(webUrl).host] }),
      model: await resolveModel('openai-compatible:test-model', { baseUrl: llm.baseUrl, apiKey: 'sk-test' }),
      queryModel: false,
      rateLimiter: false,
      // Each engine starts its own extraction worker; on a busy machine the first page can take seconds,
      // and a page cut by the latency budget would leave the model citing a snippet instead.
      maxLatencyMs: 30_000,
      pageTimeoutMs: 30_000,
      ...options,
    });
    const { key } = await engine.createKey({ credits: 100 });
    const server = createServer(createNodeHandler(engine));
    const url = (await listenOnLoopback(server)).baseUrl;
    apis.push({ server, engine });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    return {
      url,
      engine,
      key,
      post: (path, body) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
      balance: async () =>
        ((await (await fetch(`${url}/v1/balance`, { headers })).json()) as { available_credits: number })
          .available_credits,
    };
  }

  /** The model cites both pages correctly, then invents a claim and cites it to the glacier page. */
  const citingModel = (body: ChatRequestBody): string => {
    const glaciers = sourceNumber(body, `${webUrl}/glaciers`);
    const iceAges = sourceNumber(body, `${webUrl}/ice-ages`);
    return (
      `Glaciers move by internal deformation of the ice and by sliding over the rock beneath them [${glaciers}]. ` +
      `Meltwater at the base acts as a lubricant, so glaciers slide faster in summer [${glaciers}]. ` +
      `About 20,000 years ago, glaciers and ice sheets covered much of North America [${iceAges}].\n\n` +
      `The Aletsch Glacier was first crossed by Napoleon's army in 1799 [${glaciers}]. ` +
      'Glaciers also sing audible songs at dawn.'
    );
  };

  it('every quote is the page text at its offsets; the invented claim is flagged; the uncited one listed', async () => {
    const api = await start();
    reply = citingModel;
    const response = await api.post('/v1/search', {
      prompt: 'How do glaciers move?',
      include: ['citations'],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      answer: string;
      sources: string[];
      citations: Array<{
        index: number;
        url: string;
        claim: string;
        claim_start: number;
        claim_end: number;
        quote: string;
        quote_start: number | null;
        quote_end: number | null;
        verified: boolean;
      }>;
      grounding: { level: string; claims: number; supported_claims: number; unsupported: { text: string }[] };
    };
    expect(body.citations).toHaveLength(4);
    expect(body.citations.map((c) => c.verified)).toEqual([true, true, true, false]);
    expect(body.citations[3]!.claim).toMatch(/^The Aletsch Glacier was first crossed by Napoleon/);
    expect(body.grounding).toMatchObject({ level: 'partial', claims: 5, supported_claims: 3 });
    expect(body.grounding.unsupported.map((u) => u.text)).toEqual([
      'Glaciers also sing audible songs at dawn.',
    ]);

    // Audit each citation as a client would: the page text from /v1/extract holds the quote at its offsets.
    const pages = (await (await api.post('/v1/extract', { urls: body.sources, format: 'text' })).json()) as {
      results: Array<{ url: string; content: string }>;
    };
    for (const citation of body.citations) {
      expect(citation.url).toBe(body.sources[citation.index - 1]);
      expect(body.answer.slice(citation.claim_start, citation.claim_end)).toBe(citation.claim);
      if (!citation.verified) continue;
      const page = pages.results.find((p) => p.url === citation.url)!;
      expect(page.content.slice(citation.quote_start!, citation.quote_end!)).toBe(citation.quote);
    }
    expect(body.citations[0]!.quote).toBe(
      'Glaciers move by internal deformation of the ice and by sliding over the rock beneath them.',
    );
  });

  it('strict grounding refuses an answer no source supports (422, refunded; streamed: charged, its text went out), on /v1 and the chat route', async () => {
    const api = await start({ strictGrounding: true });
    reply = (body) =>
      `Glaciers were invented by Roman engineers to store wine [${sourceNumber(body, `${webUrl}/glaciers`)}].`;
    const before = await api.balance();
    const refused = await api.post('/v1/search', { prompt: 'How do glaciers move?' });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: {
        description: 'Unprocessable: no source supports an answer to this question',
        code: 'ungrounded_answer',
      },
    });
    const streamed = await api.post('/v1/search', { prompt: 'How do glaciers move?', stream: true });
    expect(streamed.status).toBe(200);
    const events = await streamed.text();
    // The streamed text was sent as it came; the error takes the place of `done`. The text went out, so
    // the search was charged at its first delta (a plain refusal delivers nothing and is refunded).
    expect(events).toMatch(
      /event: error\ndata: \{"error":\{"description":"Unprocessable: no source supports/,
    );
    expect(events).not.toMatch(/event: done/);
    // The chat route refuses it in OpenAI's shape, plain (422) and streamed (an error frame, no [DONE]).
    const chat = await api.post('/v1/chat/completions', GLACIER_CHAT);
    expect(chat.status).toBe(422);
    expect(await chat.json()).toEqual({
      error: {
        message: 'Unprocessable: no source supports an answer to this question',
        type: 'invalid_request_error',
        param: null,
        code: 'ungrounded_answer',
      },
    });
    const chatStream = await (
      await api.post('/v1/chat/completions', { ...GLACIER_CHAT, stream: true })
    ).text();
    expect(chatStream).toContain(
      'data: {"error":{"message":"Unprocessable: no source supports an answer to this question","type":"invalid_request_error","param":null,"code":"ungrounded_answer"}}',
    );
    expect(chatStream).not.toMatch(/\[DONE\]/);
    expect(await api.balance()).toBe(before - 2);

    // The request may ask for the answer anyway; it is charged and says how it stands.
    const lenient = await api.post('/v1/search', {
      prompt: 'How do glaciers move?',
      grounding: 'lenient',
      include: ['citations'],
    });
    expect(lenient.status).toBe(200);
    expect(((await lenient.json()) as { grounding: { level: string } }).grounding.level).toBe('none');
    expect(await api.balance()).toBe(before - 3);

    // A supported answer passes strict grounding and is charged.
    reply = citingModel;
    expect((await api.post('/v1/search', { prompt: 'How do glaciers move?' })).status).toBe(200);
    expect(await api.balance()).toBe(before - 4);
  });

  it('a request can ask for strict grounding from a lenient server', async () => {
    const api = await start();
    reply = (body) => `Glaciers are made of cheese [${sourceNumber(body, `${webUrl}/glaciers`)}].`;
    const before = await api.balance();
    expect((await api.post('/v1/search', { prompt: 'glaciers', grounding: 'strict' })).status).toBe(422);
    expect((await api.post('/v1/search', { prompt: 'glaciers' })).status).toBe(200);
    expect(await api.balance()).toBe(before - 1);
    const invalid = await api.post('/v1/search', { prompt: 'glaciers', grounding: 'maybe' });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toMatch(/grounding must be \\"strict\\" or \\"lenient\\"/);
  });

  it('a provider that fails never gives an answer: an error in every mode (plain, streamed, json, chat plain and streamed, Tavily), and nothing charged', async () => {
    const api = await start();
    reply = citingModel;
    const before = await api.balance();
    const requests = llm.chatRequests.length;
    failSearch = true;
    try {
      for (const body of [
        { prompt: 'How do glaciers move?' },
        { prompt: 'How do glaciers move?', depth: 'fast' },
        { prompt: 'How do glaciers move?', response_type: 'json', json_schema: { type: 'object' } },
      ]) {
        const response = await api.post('/v1/search', body);
        expect(response.status).toBe(500);
        expect(await response.json()).toMatchObject({ error: { description: 'Server Error' } });
      }
      const streamed = await (await api.post('/v1/search', { prompt: 'glaciers', stream: true })).text();
      expect(streamed).toMatch(/event: error/);
      expect(streamed).not.toMatch(/event: delta/);
      const chat = await api.post('/v1/chat/completions', GLACIER_CHAT);
      expect(chat.status).toBe(500);
      expect(await chat.json()).toMatchObject({ error: { type: 'server_error', code: 'server_error' } });
      const chatStream = await (
        await api.post('/v1/chat/completions', { ...GLACIER_CHAT, stream: true })
      ).text();
      // No assistant text and no [DONE]: an OpenAI-shaped error frame ends the stream.
      expect(chatStream).toMatch(/^data: \{"error":\{"message":"Server Error","type":"server_error"/m);
      expect(chatStream).not.toMatch(/"content":"[^"]/);
      expect(chatStream).not.toMatch(/\[DONE\]/);
      const tavily = await api.post('/compat/tavily/search', { query: 'glaciers', include_answer: true });
      expect(tavily.status).toBe(500);
      expect(await tavily.json()).toEqual({ detail: { error: 'Server Error' } });
    } finally {
      failSearch = false;
    }
    expect(llm.chatRequests.length).toBe(requests);
    expect(await api.balance()).toBe(before);
  });

  it('a search that finds nothing says so (text, streamed, chat plain and streamed, Tavily include_answer), refuses (json), and costs nothing; the model is not asked', async () => {
    const api = await start();
    const saved = hits;
    hits = () => [];
    const requests = llm.chatRequests.length;
    const before = await api.balance();
    try {
      const text = await api.post('/v1/search', { prompt: 'How do glaciers move?', include: ['citations'] });
      const body = (await text.json()) as { answer: string; sources: string[]; grounding: { level: string } };
      expect(body.answer).toMatch(/do not contain an answer/);
      expect(body.sources).toEqual([]);
      expect(body.grounding.level).toBe('none');
      const streamed = await (await api.post('/v1/search', { prompt: 'glaciers', stream: true })).text();
      expect(streamed).toMatch(/do not contain an answer/);
      const json = await api.post('/v1/search', {
        prompt: 'How do glaciers move?',
        response_type: 'json',
        json_schema: { type: 'object', properties: { how: { type: 'string' } } },
      });
      expect(json.status).toBe(422);
      expect(await json.json()).toEqual({
        error: {
          description: 'Unprocessable: the search found no source to answer from',
          code: 'ungrounded_answer',
        },
      });

      // The compatible routes say so too: the chat answer (plain and streamed) and Tavily's include_answer.
      const chat = (await (await api.post('/v1/chat/completions', GLACIER_CHAT)).json()) as {
        choices: { message: { content: string } }[];
        citations: string[];
      };
      expect(chat.choices[0]!.message.content).toMatch(/do not contain an answer/);
      expect(chat.citations).toEqual([]);
      const chatStream = await (
        await api.post('/v1/chat/completions', { ...GLACIER_CHAT, stream: true })
      ).text();
      const deltas = chatStream
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: {'))
        .map(
          (frame) =>
            JSON.parse(frame.slice('data: '.length)) as { choices: { delta: { content?: string } }[] },
        )
        .map((chunk) => chunk.choices[0]?.delta.content ?? '')
        .join('');
      expect(deltas).toMatch(/do not contain an answer/);
      expect(chatStream).toMatch(/data: \[DONE\]\n\n$/);
      const tavily = (await (
        await api.post('/compat/tavily/search', { query: 'How do glaciers move?', include_answer: true })
      ).json()) as { answer: string; results: unknown[] };
      expect(tavily.answer).toMatch(/do not contain an answer/);
      expect(tavily.results).toEqual([]);
    } finally {
      hits = saved;
    }
    expect(llm.chatRequests.length).toBe(requests);
    expect(await api.balance()).toBe(before);
  });
});
