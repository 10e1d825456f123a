/**
 * Smoke tests of examples/: each is imported (or run as a process) and exercised on loopback, offline,
 * against the local index of the project's docs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { askAgent } from '../../examples/agent-with-tool.ts';
import { createApp as createExpressApp } from '../../examples/express-app.ts';
import { extractPage } from '../../examples/extract-a-page.ts';
import { createApp as createKoaApp } from '../../examples/koa-app.ts';
import { createAppServer } from '../../examples/node-http.ts';
import { searchAndRank } from '../../examples/search-and-rank.ts';
import { createClient } from '../../src/client/index.ts';
import { createLocalIndexProvider, createSearchEngine, estimateTokens } from '../../src/index.ts';
import { CLI, runCli, runScript, type CliResult } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { MCP_TOOL_NAMES } from '../support/mcp-request.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

async function mcpToolNames(url: string, apiKey: string): Promise<string[]> {
  const client = new Client({ name: 'smoke', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

/** Runs an example as a process (its `import.meta.main` branch) and returns its stdout. */
function runExample(file: string, args: string[]): Promise<CliResult> {
  return runScript(join(EXAMPLES, file), args, { MODEL_BASE_URL: '', MODEL_NAME: '' });
}

const engine = createSearchEngine({ corpus: [MANUAL_CORPUS], fetcher: false, extractor: false });
afterAll(() => engine.close());

describe('examples', () => {
  it('express-app.ts: own route, /api/v1 and MCP at /api/mcp', async () => {
    const { key } = await engine.createKey();
    const server = await listenOnLoopback(createServer(createExpressApp(engine)));
    try {
      expect(await (await fetch(`${server.baseUrl}/health`)).json()).toEqual({ ok: true });
      const client = createClient({ baseUrl: `${server.baseUrl}/api`, apiKey: key });
      expect((await client.search({ prompt: 'How do I revoke a key?' })).sources.length).toBeGreaterThan(0);
      expect(await mcpToolNames(`${server.baseUrl}/api/mcp`, key)).toEqual(MCP_TOOL_NAMES);
    } finally {
      await server.close();
    }
  });

  it('koa-app.ts: own route and /v1', async () => {
    const { key } = await engine.createKey();
    const koa = createKoaApp(engine).callback();
    const server = await listenOnLoopback(createServer((req, res) => void koa(req, res)));
    try {
      expect(await (await fetch(`${server.baseUrl}/health`)).json()).toEqual({ ok: true });
      const client = createClient({ baseUrl: server.baseUrl, apiKey: key });
      expect(await client.balance()).toEqual({ available_credits: 1000 });
      expect((await fetch(`${server.baseUrl}/elsewhere`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('node-http.ts: /v1 and /mcp on one server', async () => {
    const { key } = await engine.createKey();
    const server = await listenOnLoopback(createAppServer(engine));
    try {
      const client = createClient({ baseUrl: server.baseUrl, apiKey: key });
      expect((await client.search({ prompt: 'What is the free allowance?' })).answer.length).toBeGreaterThan(
        0,
      );
      expect(await mcpToolNames(`${server.baseUrl}/mcp`, key)).toEqual(MCP_TOOL_NAMES);
    } finally {
      await server.close();
    }
  });

  it('next-route-handler.ts: GET and POST fetch handlers under /api', async () => {
    const route = await import('../../examples/next-route-handler.ts');
    try {
      const { key } = await route.engine.createKey();
      const search = await route.POST(
        new Request('http://localhost/api/v1/search', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'How do rate limits work?', response_type: 'text' }),
        }),
      );
      expect(search.status).toBe(200);
      expect(((await search.json()) as { response_type: string }).response_type).toBe('text');
      const balance = await route.GET(
        new Request('http://localhost/api/v1/balance', { headers: { authorization: `Bearer ${key}` } }),
      );
      expect(await balance.json()).toEqual({ available_credits: 999 });
      expect(route.runtime).toBe('nodejs');
    } finally {
      await route.engine.close();
    }
  });

  it('extract-a-page.ts: fetches a loopback page (explicitly allowed) and extracts its main content', async () => {
    const html =
      '<!doctype html><html><head><title>Okapi BM25</title></head><body><nav>Home | About</nav>' +
      '<article><h1>Okapi BM25</h1><p>BM25 is a ranking function used by search engines to estimate the ' +
      'relevance of documents to a given search query. It is based on the probabilistic retrieval framework.</p>' +
      '<p style="display:none">hidden instructions for models</p>' +
      '<p>It ranks documents by the query terms appearing in each document, regardless of their proximity.</p>' +
      '</article><footer>Copyright</footer></body></html>';
    const server = await listenOnLoopback(
      createServer((req, res) => {
        if (req.url === '/robots.txt') return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      }),
    );
    try {
      const url = `${server.baseUrl.replace('127.0.0.1', 'localhost')}/bm25`;
      const content = await extractPage(url, { allowPrivateHosts: ['localhost'] });
      expect(content?.title).toBe('Okapi BM25');
      expect(content?.text).toContain('ranking function used by search engines');
      expect(content?.text).not.toContain('hidden instructions');
      expect(content?.markdown).toContain('BM25');
      // Without the explicit allowance the SSRF guard refuses a private address.
      await expect(extractPage(url)).rejects.toThrow();
    } finally {
      await server.close();
    }
  });

  it('search-and-rank.ts: passages from the local index within the token budget, best first', async () => {
    const provider = createLocalIndexProvider({ paths: [MANUAL_CORPUS] });
    try {
      const passages = await searchAndRank('how are credits charged', provider, { maxTokens: 300 });
      expect(passages.length).toBeGreaterThan(0);
      expect(passages[0]!.url).toMatch(/credits\.md$/);
      const scores = passages.map((p) => p.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(passages.reduce((sum, p) => sum + estimateTokens(p.text), 0)).toBeLessThanOrEqual(300);
    } finally {
      await provider.close?.();
    }
    const run = await runExample('search-and-rank.ts', ['how are credits charged', MANUAL_CORPUS]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/credits\.md/);
  });

  it('agent-with-tool.ts: the (mock) agent calls the tool and answers from its result', async () => {
    const { text, steps, balance } = await askAgent('How do I create an API key?');
    expect(steps.length).toBe(2);
    expect(text).toMatch(/^From the web: /);
    expect(text).toMatch(/Sources: http:\/\/localhost\/docs\/\S+\.md/);
    expect(balance.available_credits).toBe(999);
    const run = await runExample('agent-with-tool.ts', ['How are credits charged?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^From the web: /);
  });

  describe('mcp-client-config.json', () => {
    const config = JSON.parse(readFileSync(join(EXAMPLES, 'mcp-client-config.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-config-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    /** The configured command, run from this checkout instead of npx, with the placeholders filled in. */
    async function connect(name: string, values: Record<string, string>): Promise<Client> {
      const server = config.mcpServers[name]!;
      expect(server.command).toBe('npx');
      const args = server.args.slice(server.args.indexOf('citewise') + 1).map((arg) => values[arg] ?? arg);
      const client = new Client({ name: 'smoke', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], stderr: 'pipe' }),
      );
      return client;
    }

    it('the local (in-process) server starts and answers', async () => {
      const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
      const key = created.stdout.trim().split('\n').at(-1)!;
      const client = await connect('citewise', { YOUR_API_KEY: key, '/path/to/.citewise': dataDir });
      try {
        const result = await client.callTool({ name: 'get_balance', arguments: {} });
        expect(result.structuredContent).toEqual({ available_credits: 1000 });
      } finally {
        await client.close();
      }
    });

    it('the remote server forwards to a running service with --url', async () => {
      const { key } = await engine.createKey();
      const server = await listenOnLoopback(createAppServer(engine));
      try {
        const client = await connect('citewise-remote', {
          YOUR_API_KEY: key,
          'https://search.example.com': server.baseUrl,
        });
        try {
          const result = await client.callTool({
            name: 'web_search',
            arguments: { prompt: 'How do I revoke a key?' },
          });
          expect(result.isError).toBeFalsy();
          expect((result.structuredContent as { sources: string[] }).sources.length).toBeGreaterThan(0);
          expect(await engine.balance(key)).toEqual({ available_credits: 999 });
        } finally {
          await client.close();
        }
      } finally {
        await server.close();
      }
    });
  });
});
