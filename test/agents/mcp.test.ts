import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeListener } from '../../src/cli/mcp-command.ts';
import { createMemoryDocumentIndex } from '../../src/documents/memory.ts';
import { JOBS_DEFAULTS } from '../../src/jobs/options.ts';
import { LOOPBACK_HOST_NAMES } from '../../src/mcp/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { CLI, runCli } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { MCP_TOOL_NAMES, postMcpToolsList } from '../support/mcp-request.ts';
import { startTestService, type TestService } from './support.ts';

interface SearchStructured {
  answer: string;
  response_type: string;
  sources: string[];
  response_time: number;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((part) => part.text ?? '').join('');
}

describe('MCP over Streamable HTTP at /mcp (beside /v1)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({}, (engine) => createServeListener(engine));
  });
  afterAll(() => service.close());

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    });
    await client.connect(transport);
    return client;
  }

  it('lists the tools and answers web_search with text and structured content', async () => {
    const client = await connect(service.apiKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOL_NAMES);
      const webSearch = tools.find((t) => t.name === 'web_search')!;
      expect(webSearch.inputSchema.required).toEqual(['prompt']);
      expect(Object.keys(webSearch.inputSchema.properties ?? {}).sort()).toEqual([
        'context',
        'depth',
        'documents',
        'exclude_domains',
        'include_domains',
        'prompt',
        'response_type',
        'time_range',
      ]);

      const before = await client.callTool({ name: 'get_balance', arguments: {} });
      const credits = (before.structuredContent as { available_credits: number }).available_credits;

      const result = await client.callTool({
        name: 'web_search',
        arguments: { prompt: 'How do I create an API key?', context: ['I run citewise myself.'] },
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as SearchStructured;
      expect(structured.answer.length).toBeGreaterThan(0);
      expect(structured.sources.length).toBeGreaterThan(0);
      expect(structured.response_type).toBe('markdown');
      const text = textOf(result);
      expect(text.startsWith(structured.answer)).toBe(true);
      expect(text).toContain(`Sources:\n[1] ${structured.sources[0]}`);

      const after = await client.callTool({ name: 'get_balance', arguments: {} });
      expect((after.structuredContent as { available_credits: number }).available_credits).toBe(credits - 1);
      expect(textOf(after)).toBe(`${credits - 1} credits available`);
    } finally {
      await client.close();
    }
  });

  it("research takes max_credits and time_limit_ms with POST /v1/research's own limits", async () => {
    const client = await connect(service.apiKey);
    try {
      const { tools } = await client.listTools();
      const research = tools.find((tool) => tool.name === 'research')!;
      const properties = research.inputSchema.properties as Record<string, Record<string, unknown>>;
      expect(properties['max_credits']).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: JOBS_DEFAULTS.maxCredits,
      });
      expect(properties['time_limit_ms']).toMatchObject({
        minimum: JOBS_DEFAULTS.minTimeLimitMs,
        maximum: JOBS_DEFAULTS.maxTimeLimitMs,
      });
      const refused = await client.callTool({
        name: 'research',
        arguments: { prompt: 'How are credits charged?', max_credits: JOBS_DEFAULTS.maxCredits + 1 },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/max_credits/);
    } finally {
      await client.close();
    }
  });

  it('research starts a job, waits for it and answers with its sources and job id, charged once', async () => {
    const client = await connect(service.apiKey);
    try {
      const before = await client.callTool({ name: 'get_balance', arguments: {} });
      const credits = (before.structuredContent as { available_credits: number }).available_credits;
      const result = await client.callTool({
        name: 'research',
        arguments: { prompt: 'How are credits charged?' },
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as {
        id: string;
        status: string;
        answer: string;
        sources: string[];
      };
      expect(structured).toMatchObject({ status: 'completed' });
      expect(structured.sources.length).toBeGreaterThan(0);
      expect(textOf(result)).toContain(structured.answer);
      expect(textOf(result)).toContain(`(research job ${structured.id})`);
      const job = await service.engine.research.get(structured.id, { apiKey: service.apiKey });
      expect(job.status).toBe('completed');
      const after = await client.callTool({ name: 'get_balance', arguments: {} });
      const used = (structured as unknown as { credits_used: number }).credits_used;
      expect(used).toBeGreaterThanOrEqual(1);
      expect((after.structuredContent as { available_credits: number }).available_credits).toBe(
        credits - used,
      );
    } finally {
      await client.close();
    }
  });

  it('extract reads pages through the SSRF-safe fetcher: a loopback URL is refused and not charged', async () => {
    // This service fetches pages (the shared one does not: it answers 404 for extract, tested below).
    const fetching = await startTestService(
      { fetcher: createPageFetcher(), extractor: createContentExtractor() },
      (engine) => createServeListener(engine),
    );
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fetching.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${fetching.apiKey}` } },
      }),
    );
    try {
      const before = await client.callTool({ name: 'get_balance', arguments: {} });
      const result = await client.callTool({
        name: 'extract',
        arguments: { urls: ['http://127.0.0.1:1/secret'] },
      });
      expect(textOf(result)).toBe(
        'http://127.0.0.1:1/secret\ncould not be read: the host is, or resolves to, a private or reserved address (blocked_address)',
      );
      expect(result.isError).toBeFalsy();
      const after = await client.callTool({ name: 'get_balance', arguments: {} });
      expect(after.structuredContent).toEqual(before.structuredContent);
      const bad = await client.callTool({ name: 'extract', arguments: { urls: [] } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
      await fetching.close();
    }
  });

  it('extract on a service that does not fetch pages is a tool error saying so', async () => {
    const client = await connect(service.apiKey);
    try {
      const result = await client.callTool({
        name: 'extract',
        arguments: { urls: ['https://example.org/'] },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('this service does not fetch pages');
    } finally {
      await client.close();
    }
  });

  it('reports a failed search as a tool error with the spec description', async () => {
    const { key } = await service.engine.createKey({ credits: 0 });
    const client = await connect(key);
    try {
      const result = await client.callTool({ name: 'web_search', arguments: { prompt: 'anything' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('web search failed (HTTP 433): Account is at / over message quota.');
    } finally {
      await client.close();
    }
  });

  it('rejects a wrong or missing API key with the spec 401 before any MCP work', async () => {
    await expect(connect('cw_not_a_key')).rejects.toThrow(/401|Invalid or expired API key/);
    const response = await fetch(`${service.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({
      error: { description: 'Invalid or expired API key', code: 'invalid_api_key' },
    });
    const get = await fetch(`${service.baseUrl}/mcp`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('reads the body with the /v1 limit (413 past it) and decodes gzip like /v1', async () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${service.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const oversized = JSON.stringify({
      ...request,
      params: { pad: 'x'.repeat(service.engine.maxBodyBytes) },
    });
    const tooLarge = await post(oversized);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { description: string } }).error.description).toMatch(
      /Payload Too Large/,
    );
    const zipped = await post(new Uint8Array(gzipSync(JSON.stringify(request))), {
      'content-encoding': 'gzip',
    });
    expect(zipped.status).toBe(200);
    expect(JSON.stringify(await zipped.json())).toContain('web_search');
    expect((await post(JSON.stringify(request), { 'content-encoding': 'compress' })).status).toBe(415);
  });

  it('leaves /v1 working beside it', async () => {
    const response = await fetch(`${service.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('/mcp Host and Origin checks (DNS-rebinding protection)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({}, (engine) =>
      createServeListener(engine, { mcpAllowedHosts: LOOPBACK_HOST_NAMES }),
    );
  });
  afterAll(() => service.close());

  const postWith = (headers: Record<string, string>) =>
    postMcpToolsList(service.baseUrl, service.apiKey, headers);

  it('answers loopback Host names and same-machine origins', async () => {
    const { port } = new URL(service.baseUrl);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await postWith({ host })).status, host).toBe(200);
    }
    expect((await postWith({ origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('refuses a rebound Host or a foreign Origin with 403, before the key is checked', async () => {
    const rebound = await postWith({ host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    expect((JSON.parse(rebound.body) as { error: { description: string } }).error.description).toMatch(
      /Host/,
    );
    const foreign = await postWith({ origin: 'http://attacker.example' });
    expect(foreign.status).toBe(403);
    expect((JSON.parse(foreign.body) as { error: { description: string } }).error.description).toMatch(
      /Origin/,
    );
    expect((await postWith({ host: 'attacker.example', authorization: 'Bearer nope' })).status).toBe(403);
  });

  it('still requires the bearer key from an allowed host', async () => {
    expect((await postWith({ authorization: 'Bearer cw_not_a_key' })).status).toBe(401);
  });
});

describe('citewise mcp over stdio (the SDK client spawns the CLI)', () => {
  let dataDir: string;
  let apiKey: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-mcp-'));
    const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    apiKey = created.stdout.trim().split('\n').at(-1)!;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves web_search and get_balance with the engine in-process', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI,
        'mcp',
        '--api-key',
        apiKey,
        '--data-dir',
        dataDir,
        '--corpus',
        MANUAL_CORPUS,
        '--log-level',
        'warn',
      ],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOL_NAMES);
      const result = await client.callTool({
        name: 'web_search',
        arguments: { prompt: 'How are credits charged?', response_type: 'text' },
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as SearchStructured;
      expect(structured.response_type).toBe('text');
      expect(structured.sources.length).toBeGreaterThan(0);
      const balance = await client.callTool({ name: 'get_balance', arguments: {} });
      expect(balance.structuredContent).toEqual({ available_credits: 999 });
    } finally {
      await client.close();
    }
    // The search was charged in the shared SQLite store, as `serve` would charge it.
    const accounts = await runCli(['keys', 'list', '--data-dir', dataDir, '--json']);
    const [record] = JSON.parse(accounts.stdout) as { accountId: string }[];
    const balance = await runCli(['credits', 'balance', record!.accountId, '--data-dir', dataDir]);
    expect(balance.stdout.trim()).toBe('999');
  });

  it('refuses to start with an invalid key, saying why on stderr', async () => {
    const result = await runCli(['mcp', '--api-key', 'cw_wrong', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot use this API key: Invalid or expired API key');
    const missing = await runCli(['mcp', '--data-dir', dataDir], { CITEWISE_API_KEY: '' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('an API key is required');
  });
});

const KILN_PDF = readFileSync(new URL('../fixtures/documents/kiln-manual.pdf', import.meta.url));

describe('MCP add_document', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(
      { documents: { index: createMemoryDocumentIndex(), maxDocuments: 1 } },
      (engine) => createServeListener(engine),
    );
  });
  afterAll(() => service.close());

  const connect = async (apiKey: string): Promise<Client> => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
    return client;
  };

  it("adds a document that the account's web_search answers from, and no other account's", async () => {
    const client = await connect(service.apiKey);
    const other = await connect((await service.engine.createKey()).key);
    try {
      const added = await client.callTool({
        name: 'add_document',
        arguments: {
          content: 'The lighthouse keeper logs the fog horn at dawn.',
          format: 'text',
          title: 'Lighthouse log',
        },
      });
      expect(added.isError).toBeFalsy();
      const { id, url } = added.structuredContent as { id: string; url: string };
      expect(id).toMatch(/^doc_/);
      const search = async (c: Client) =>
        (
          await c.callTool({
            name: 'web_search',
            arguments: { prompt: 'When does the lighthouse keeper log the fog horn?' },
          })
        ).structuredContent as SearchStructured;
      const mine = await search(client);
      expect(mine.answer).toMatch(/dawn/);
      expect(mine.sources).toContain(url);
      expect((await search(other)).sources).not.toContain(url);
      // The tool takes every format the API takes, from one list.
      const tool = (await client.listTools()).tools.find((t) => t.name === 'add_document')!;
      const format = tool.inputSchema.properties?.format as { enum?: string[] };
      expect(format.enum).toEqual(['markdown', 'text', 'html', 'pdf']);
      const pdf = await other.callTool({
        name: 'add_document',
        arguments: { content: KILN_PDF.toString('base64'), format: 'pdf' },
      });
      expect(pdf.isError).toBeFalsy();
      const kiln = (
        await other.callTool({
          name: 'web_search',
          arguments: { prompt: 'How long does a full firing of the Kiln K7 take?', documents: 'own' },
        })
      ).structuredContent as SearchStructured;
      expect(kiln.answer).toMatch(/eleven hours/);
      // The quota (1 document) answers as a tool error with the public description.
      const refused = await client.callTool({
        name: 'add_document',
        arguments: { content: 'Another.', format: 'text' },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^could not add the document \(HTTP 403\): Forbidden: the account's document quota is used up/,
      );
    } finally {
      await client.close();
      await other.close();
    }
  });
});
