/**
 * No free answers (issue #36, items 1 and 2): a model told by the prompt to write its answer without
 * citation markers still reads pages and answers, so the search is charged, on every route that answers
 * (`/v1/search` plain and streamed, `/v1/chat/completions` plain and streamed, the Tavily route, MCP).
 * Strict grounding refuses such an answer: a plain refusal (nothing delivered) is refunded, a streamed one
 * (its text went out) is charged. A streamed answer is charged at its first text: a client that leaves
 * after receiving it is not refunded. A search that found no page at all stays free.
 * Figure: routes tried / uncited answers / free answers.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeListener } from '../../src/cli/mcp-command.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { resolveModel } from '../../src/models/index.ts';
import { startOpenAiServer, type OpenAiServer } from '../answer/openai-server.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { recordFigure } from './figures.ts';

const UNCITED =
  'A new account receives 1,000 free credits and a search costs 1 credit by default, so you can run many searches.';
const PROMPT =
  'How many free credits does a new account get? Answer in one sentence without citation markers.';
const NOTHING = 'zqxv frobnicated wibblequux';

const figure = { routes: 0, uncited: 0, free: 0 };
let llm: OpenAiServer;
/** While set, the model's stream stops after its first piece until the engine hangs up on it. */
let holdStream: ((closed: Promise<unknown>) => void) | undefined;
const services: { server: Server; engine: SearchEngine }[] = [];

beforeAll(async () => {
  llm = await startOpenAiServer({
    reply: () => UNCITED,
    afterFirstChunk: async (res) => {
      if (!holdStream) return;
      const closed = once(res, 'close');
      holdStream(closed);
      await closed;
    },
  });
});
afterAll(async () => {
  for (const { server, engine } of services) {
    server.closeAllConnections();
    server.close();
    await engine.close();
  }
  await llm.close();
  recordFigure('free-answers', {
    area: 'Free answers',
    values: { 'routes tried': figure.routes, 'uncited answers': figure.uncited, 'free answers': figure.free },
    mustBeZero: ['free answers'],
  });
});

async function start(options: Partial<SearchEngineOptions> = {}) {
  const engine = createSearchEngine({
    corpus: [MANUAL_CORPUS],
    fetcher: false,
    extractor: false,
    model: await resolveModel('openai-compatible:test-model', { baseUrl: llm.baseUrl, apiKey: 'sk-test' }),
    queryModel: false,
    rateLimiter: false,
    ...options,
  });
  const { key } = await engine.createKey({ credits: 100 });
  const server = createServer(createServeListener(engine));
  const url = (await listenOnLoopback(server)).baseUrl;
  services.push({ server, engine });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const balance = async () =>
    ((await (await fetch(`${url}/v1/balance`, { headers })).json()) as { available_credits: number })
      .available_credits;
  return { url, key, post, balance };
}

/** The answer text of an SSE stream: `/v1` delta events or chat-completion chunks, joined. */
function streamedText(sse: string): string {
  return sse
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => {
      const data = JSON.parse(line.slice('data: '.length)) as {
        text?: string;
        choices?: { delta?: { content?: string } }[];
      };
      return data.text ?? data.choices?.[0]?.delta?.content ?? '';
    })
    .join('');
}

/** Runs `call` and counts it: each uncited answer it got must cost exactly one credit. */
async function charged(balance: () => Promise<number>, call: () => Promise<string>): Promise<number> {
  const before = await balance();
  const answer = await call();
  figure.routes++;
  if (answer.includes('1,000 free credits')) figure.uncited++;
  const cost = before - (await balance());
  if (answer.includes('1,000 free credits') && cost === 0) figure.free++;
  return cost;
}

describe('answers without citations are charged', () => {
  it('on /v1/search (plain and streamed), chat completions (plain and streamed), Tavily and MCP', async () => {
    const api = await start();
    const chat = { model: 'citewise', messages: [{ role: 'user', content: PROMPT }] };
    const costs = {
      search: await charged(api.balance, async () => {
        const body = (await (await api.post('/v1/search', { prompt: PROMPT })).json()) as {
          answer: string;
          sources: string[];
        };
        expect(body.sources).toEqual([]);
        return body.answer;
      }),
      stream: await charged(api.balance, async () => {
        const text = await (await api.post('/v1/search', { prompt: PROMPT, stream: true })).text();
        expect(text).toContain('"sources":[]');
        return streamedText(text);
      }),
      chat: await charged(api.balance, async () => {
        const body = (await (await api.post('/v1/chat/completions', chat)).json()) as {
          choices: { message: { content: string } }[];
        };
        return body.choices[0]!.message.content;
      }),
      chatStream: await charged(api.balance, async () =>
        streamedText(await (await api.post('/v1/chat/completions', { ...chat, stream: true })).text()),
      ),
      tavily: await charged(api.balance, async () => {
        const body = (await (
          await api.post('/compat/tavily/search', { query: PROMPT, include_answer: true })
        ).json()) as { answer: string };
        return body.answer;
      }),
      mcp: await charged(api.balance, async () => {
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${api.key}` } },
          }),
        );
        try {
          const result = await client.callTool({ name: 'web_search', arguments: { prompt: PROMPT } });
          return (result.structuredContent as { answer: string }).answer;
        } finally {
          await client.close();
        }
      }),
    };
    expect(costs).toEqual({ search: 1, stream: 1, chat: 1, chatStream: 1, tavily: 1, mcp: 1 });
    // A search that found no page at all is still free.
    expect(
      await charged(api.balance, async () => (await api.post('/v1/search', { prompt: NOTHING })).text()),
    ).toBe(0);
  });

  it('strict grounding refuses an uncited answer: refunded when plain (422), charged when its text was streamed', async () => {
    const api = await start({ strictGrounding: true });
    const before = await api.balance();
    const refused = await api.post('/v1/search', { prompt: PROMPT });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('ungrounded_answer');
    expect(await api.balance()).toBe(before);
    const streamed = await (await api.post('/v1/search', { prompt: PROMPT, stream: true })).text();
    expect(streamedText(streamed)).toBe(UNCITED);
    expect(streamed).toMatch(
      /event: error\ndata: \{"error":\{"description":"Unprocessable: no source supports/,
    );
    figure.routes++;
    figure.uncited++;
    if ((await api.balance()) === before) figure.free++;
    expect(await api.balance()).toBe(before - 1);
  });

  it('a streamed answer is charged at its first text: a client that leaves after receiving it is not refunded', async () => {
    const api = await start();
    const before = await api.balance();
    const client = new AbortController();
    const modelCallClosed = new Promise<Promise<unknown>>((resolve) => (holdStream = resolve));
    try {
      const response = await api.post('/v1/search', { prompt: PROMPT, stream: true }, client.signal);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = '';
      while (!seen.includes('event: delta')) seen += (await reader.read()).value ?? '';
      client.abort();
      await reader.cancel().catch(() => {});
      // The engine saw the client leave and hung up on the model: the hold is settled by now.
      await await modelCallClosed;
    } finally {
      holdStream = undefined;
    }
    figure.routes++;
    figure.uncited++;
    if ((await api.balance()) === before) figure.free++;
    expect(await api.balance()).toBe(before - 1);
  });
});
