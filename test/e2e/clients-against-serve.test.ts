/**
 * The three real clients against a running `citewise serve`, as a user would switch: a real process started
 * by the CLI (its `--corpus`, the first key from `<data dir>/first-key.txt`), and each client pointed at it by
 * its base URL and key alone. LangChain's `TavilySearch` and `TavilyExtract` (`@langchain/tavily`), the
 * `openai` SDK (plain and streaming) and the AI SDK's `@ai-sdk/openai-compatible` provider (`generateText`
 * and `streamText`). The in-process tests of each route are test/e2e/tavily-compat.test.ts and
 * test/e2e/openai-chat.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { TavilyExtract, TavilySearch } from '@langchain/tavily';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { startFixtureWeb } from '../support/fixture-web.ts';
import type { ListeningServer } from '../support/loopback-server.ts';

const GLACIERS = `<!doctype html><html lang="en"><head><title>How glaciers move</title></head><body>
  <nav>Home | News</nav><main><article><h1>How glaciers move</h1>
  <p>Glaciers move by internal deformation of the ice and by sliding over the rock beneath them.</p>
  </article></main><footer>Copyright</footer></body></html>`;

const QUESTION = 'How do I revoke an API key?';

describe('the real clients against a running citewise serve', () => {
  let web: ListeningServer | undefined;
  let webUrl: string;
  let dataDir: string;
  let server: ServeProcess;
  let key: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ '/glaciers': GLACIERS });
    webUrl = web.baseUrl;
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-clients-'));
    server = await startServe([
      '--data-dir',
      dataDir,
      '--corpus',
      MANUAL_CORPUS,
      // The extract route reads the loopback page above; the SSRF guard refuses loopback otherwise.
      '--allow-private-hosts',
      '127.0.0.1',
    ]);
    key = server.firstKey() ?? '';
    expect(key).toMatch(/^cw_/);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await web?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const balance = async (): Promise<number> => {
    const response = await fetch(`${server.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return ((await response.json()) as { available_credits: number }).available_credits;
  };

  it('LangChain TavilySearch (include_answer) and TavilyExtract, by apiBaseUrl', async () => {
    const before = await balance();
    const search = new TavilySearch({
      tavilyApiKey: key,
      apiBaseUrl: `${server.baseUrl}/compat/tavily`,
      maxResults: 3,
      includeAnswer: true,
    });
    const found = (await search.invoke({ query: QUESTION })) as {
      error?: string;
      answer: string;
      results: { url: string; title: string; content: string }[];
      images: unknown[];
    };
    expect(found.error).toBeUndefined();
    expect(found.answer).toMatch(/revoke/i);
    expect(found.answer).toContain('[1]');
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results[0]!.url).toMatch(/\/docs\/.+\.md/);
    expect(found.images).toEqual([]);

    const extract = new TavilyExtract({ tavilyApiKey: key, apiBaseUrl: `${server.baseUrl}/compat/tavily` });
    const read = (await extract.invoke({ urls: [`${webUrl}/glaciers`, `${webUrl}/missing`] })) as {
      error?: string;
      results: { url: string; raw_content: string }[];
      failed_results: { url: string; error: string }[];
    };
    expect(read.error).toBeUndefined();
    expect(read.results.map((r) => r.url)).toEqual([`${webUrl}/glaciers`]);
    expect(read.results[0]!.raw_content).toContain('Glaciers move by internal deformation');
    expect(read.failed_results.map((r) => r.url)).toEqual([`${webUrl}/missing`]);
    // One search, one page read, and 0.25 (rounded up) for the page requested but not read.
    expect(await balance()).toBe(before - 3);
  }, 60_000);

  it('the openai SDK, plain and streaming, by baseURL', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['citewise', 'citewise-research']);
    const completion = await client.chat.completions.create({
      model: 'citewise',
      messages: [{ role: 'user', content: QUESTION }],
    });
    const answer = completion.choices[0]!.message.content ?? '';
    expect(answer).toMatch(/revoke/i);
    expect(answer).toContain('[1]');
    expect((completion as unknown as { citations: string[] }).citations.length).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({
      model: 'citewise',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
    });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe(answer);
    expect(finish).toBe('stop');
  }, 60_000);

  it("the AI SDK's OpenAI-compatible provider, generateText and streamText, by baseURL", async () => {
    const citewise = createOpenAICompatible({
      name: 'citewise',
      baseURL: `${server.baseUrl}/v1`,
      apiKey: key,
    });
    const generated = await generateText({ model: citewise.chatModel('citewise'), prompt: QUESTION });
    expect(generated.text).toMatch(/revoke/i);
    expect(generated.finishReason).toBe('stop');
    const streamed = streamText({ model: citewise.chatModel('citewise'), prompt: QUESTION });
    let text = '';
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toBe(generated.text);
  }, 60_000);
});
