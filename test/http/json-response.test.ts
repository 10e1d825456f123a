/**
 * `response_type: "json"` over real HTTP: request validation (400s naming the field), the model answer
 * through the real AI SDK OpenAI-compatible provider against a loopback OpenAI-compatible server, and a
 * model that keeps returning JSON that does not match the schema (500, credits refunded).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { MAX_JSON_SCHEMA_CHARS, parseSearchRequest } from '../../src/contract/search.ts';
import { resolveModel } from '../../src/models/index.ts';
import { startOpenAiServer, type ChatRequestBody, type OpenAiServer } from '../answer/openai-server.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';

const PAGES = [
  {
    url: 'https://a.example.com/etna',
    title: 'Etna',
    content: 'Mount Etna is 3,357 metres high and erupts often. It stands in Sicily, Italy.',
  },
  { url: 'https://b.example.org/fuji', title: 'Fuji', content: 'Mount Fuji is 3,776 metres high, in Japan.' },
];

const fixedProvider = fakeSearchProvider(PAGES, { id: 'fixed' });

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name of the volcano' },
    height_m: { type: 'integer', minimum: 0 },
    country: { type: 'string' },
  },
  required: ['name', 'height_m'],
  additionalProperties: false,
};

/** What the loopback model replies next: a function of the request. */
let reply: (body: ChatRequestBody) => string = () => '{}';

describe('response_type "json" over HTTP', () => {
  let llm: OpenAiServer;
  const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];

  beforeAll(async () => {
    llm = await startOpenAiServer({ reply: (body) => reply(body) });
  });
  afterAll(() => llm.close());
  afterEach(async () => {
    for (const { engine, server } of running.splice(0)) {
      await server.close();
      await engine.close();
    }
  });

  async function setup(options: Partial<SearchEngineOptions> = {}, withModel = true) {
    const model = withModel
      ? await resolveModel('openai-compatible:test-model', { baseUrl: llm.baseUrl, apiKey: 'sk-test' })
      : undefined;
    const engine = createSearchEngine({
      search: fixedProvider,
      fetcher: false,
      ...(model ? { model } : {}),
      ...options,
    });
    const { key } = await engine.createKey();
    const server = await ADAPTERS['node:http']!(engine);
    running.push({ engine, server });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = (body: unknown) =>
      fetch(`${server.baseUrl}/v1/search`, { method: 'POST', headers, body: JSON.stringify(body) });
    const balance = async () =>
      (
        (await (await fetch(`${server.baseUrl}/v1/balance`, { headers })).json()) as {
          available_credits: number;
        }
      ).available_credits;
    return { post, balance };
  }

  async function description(response: Response): Promise<string> {
    return ((await response.json()) as { error: { description: string } }).error.description;
  }

  it('rejects invalid json requests with a 400 naming the field, before any charge', async () => {
    const { post, balance } = await setup();
    const before = await balance();
    const cases: Array<[unknown, RegExp]> = [
      [
        { prompt: 'x', response_type: 'json' },
        /^Invalid request: json_schema is required when response_type is "json"$/,
      ],
      [{ prompt: 'x', json_schema: SCHEMA }, /^Invalid request: json_schema needs response_type "json"$/],
      [
        { prompt: 'x', response_type: 'json', json_schema: [SCHEMA] },
        /^Invalid request: json_schema must be a JSON Schema object$/,
      ],
      [
        { prompt: 'x', response_type: 'json', json_schema: { type: 'string' } },
        /^Invalid request: json_schema must describe an object at the top level/,
      ],
      [
        {
          prompt: 'x',
          response_type: 'json',
          json_schema: { type: 'object', properties: { a: { type: 'strng' } } },
        },
        /^Invalid request: json_schema is not a supported JSON Schema/,
      ],
      [
        {
          prompt: 'x',
          response_type: 'json',
          json_schema: { type: 'object', description: 'x'.repeat(MAX_JSON_SCHEMA_CHARS) },
        },
        /^Invalid request: json_schema must be at most 16384 characters when serialized$/,
      ],
      [
        { prompt: 'x', response_type: 'json', json_schema: nested(40) },
        /^Invalid request: json_schema must be nested at most 32 levels deep$/,
      ],
      [
        {
          prompt: 'x',
          response_type: 'json',
          json_schema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } },
        },
        /^Invalid request: json_schema must not use "pattern" or "patternProperties"/,
      ],
      [
        { prompt: 'x', response_type: 'json', json_schema: SCHEMA, stream: true },
        /^Invalid request: stream cannot be combined with response_type "json"/,
      ],
      [
        { prompt: 'x', response_type: 'xml' },
        /^Invalid request: response_type must be "text" or "markdown" \(or the extension "json"\)$/,
      ],
    ];
    for (const [body, expected] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(await description(response)).toMatch(expected);
    }
    expect(llm.chatRequests).toHaveLength(0);
    expect(await balance()).toBe(before);
  });

  it('answers 400 "needs a model" without a model, and charges nothing', async () => {
    const { post, balance } = await setup({}, false);
    const before = await balance();
    const response = await post({ prompt: 'How high is Etna?', response_type: 'json', json_schema: SCHEMA });
    expect(response.status).toBe(400);
    expect(await description(response)).toBe(
      'Invalid request: response_type "json" needs a model (start the service with --model)',
    );
    expect(await balance()).toBe(before);
  });

  it('answers with the JSON text of an object matching the schema, from the delimited sources', async () => {
    const { post, balance } = await setup();
    const before = await balance();
    llm.chatRequests.length = 0;
    reply = () => JSON.stringify({ name: 'Mount Etna', height_m: 3357, country: 'Italy' });
    const response = await post({
      prompt: 'How high is Etna?',
      response_type: 'json',
      json_schema: SCHEMA,
      include: ['citations'],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      answer: string;
      response_type: string;
      sources: string[];
      citations: Array<{ url: string; claim: string; claim_start: number; verified: boolean; quote: string }>;
      grounding: { level: string; claims: number; supported_claims: number };
    };
    expect(body.response_type).toBe('json');
    expect(typeof body.answer).toBe('string');
    expect(JSON.parse(body.answer)).toEqual({ name: 'Mount Etna', height_m: 3357, country: 'Italy' });
    // The sources given to the model.
    expect(body.sources).toEqual(PAGES.map((page) => page.url));
    // Each string value is a claim, aligned with the source that supports it (the model gives no markers).
    expect(body.citations.map((c) => [c.claim, c.url, c.verified])).toEqual([
      ['Mount Etna', PAGES[0]!.url, true],
      ['Italy', PAGES[0]!.url, true],
    ]);
    const first = body.citations[0]!;
    expect(body.answer.slice(first.claim_start, first.claim_start + first.claim.length)).toBe('Mount Etna');
    expect(first.quote).toMatch(/^Mount Etna is 3,357 metres high/);
    expect(body.grounding).toMatchObject({ level: 'full', claims: 2, supported_claims: 2 });
    expect(await balance()).toBe(before - 1);

    expect(llm.chatRequests).toHaveLength(1);
    const request = llm.chatRequests[0]!;
    // The provider asked the server for JSON (this OpenAI-compatible provider has no native schemas, so
    // the schema travels in the prompt).
    expect(request['response_format']).toEqual({ type: 'json_object' });
    const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
    expect(system).toMatch(/one JSON object that matches the JSON Schema/);
    expect(system).not.toMatch(/Cite every statement/);
    expect(user).toContain(JSON.stringify(SCHEMA));
    expect(user).toMatch(/<<<SOURCE-[0-9a-f]+>>>\nTitle: Etna/);
  });

  it('sends the schema natively to a provider that supports structured outputs', async () => {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const model = createOpenAICompatible({
      name: 'test',
      baseURL: llm.baseUrl,
      apiKey: 'sk-test',
      supportsStructuredOutputs: true,
    })('test-model');
    const { post } = await setup({ model });
    llm.chatRequests.length = 0;
    reply = () => JSON.stringify({ name: 'Mount Fuji', height_m: 3776 });
    const response = await post({ prompt: 'How high is Fuji?', response_type: 'json', json_schema: SCHEMA });
    expect(response.status).toBe(200);
    expect(JSON.parse(((await response.json()) as { answer: string }).answer)).toEqual({
      name: 'Mount Fuji',
      height_m: 3776,
    });
    const format = llm.chatRequests[0]!['response_format'] as {
      type: string;
      json_schema: { schema: unknown; name: string };
    };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.schema).toEqual(SCHEMA);
  });

  it('retries once, then fails with a 500 and refunds when the JSON does not match the schema', async () => {
    const { post, balance } = await setup();
    const before = await balance();
    for (const bad of ['not json at all', JSON.stringify({ name: 'Etna', height_m: 'very high' })]) {
      llm.chatRequests.length = 0;
      reply = () => bad;
      const response = await post({
        prompt: 'How high is Etna?',
        response_type: 'json',
        json_schema: SCHEMA,
      });
      expect(response.status).toBe(500);
      expect(await description(response)).toBe(
        'Server Error: the model did not return JSON matching json_schema',
      );
      // One attempt and one retry.
      expect(llm.chatRequests).toHaveLength(2);
      expect(await balance()).toBe(before);
    }
  });

  it('recovers when the retry returns a matching object', async () => {
    const { post } = await setup();
    llm.chatRequests.length = 0;
    let calls = 0;
    reply = () => (calls++ === 0 ? '{"name": "Etna"}' : '{"name": "Etna", "height_m": 3357}');
    const response = await post({ prompt: 'How high is Etna?', response_type: 'json', json_schema: SCHEMA });
    expect(response.status).toBe(200);
    expect(JSON.parse(((await response.json()) as { answer: string }).answer)).toEqual({
      name: 'Etna',
      height_m: 3357,
    });
    expect(llm.chatRequests).toHaveLength(2);
  });
});

describe('parseSearchRequest with response_type "json"', () => {
  it('keeps the schema and a text response type for the text parts of the pipeline', () => {
    const request = parseSearchRequest({ prompt: 'x', response_type: 'json', json_schema: SCHEMA });
    expect(request.jsonSchema).toEqual(SCHEMA);
    expect(request.responseType).toBe('text');
    expect(parseSearchRequest({ prompt: 'x' }).jsonSchema).toBeUndefined();
  });

  it('accepts properties named like keywords, and rejects patterns in nested subschemas', () => {
    const named = {
      type: 'object',
      properties: { pattern: { type: 'string' }, patternProperties: { type: 'string', enum: ['pattern'] } },
      $defs: { x: { type: 'string' } },
    };
    expect(parseSearchRequest({ prompt: 'x', response_type: 'json', json_schema: named }).jsonSchema).toEqual(
      named,
    );
    const nestedPattern = {
      type: 'object',
      properties: { list: { type: 'array', items: { anyOf: [{ type: 'string', pattern: 'a*' }] } } },
    };
    expect(() =>
      parseSearchRequest({ prompt: 'x', response_type: 'json', json_schema: nestedPattern }),
    ).toThrow(/json_schema must not use "pattern"/);
  });
});

/** An object schema nested `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}
