/**
 * The service on plain node:http: the /v1 API, plus the MCP endpoint at /mcp (same API keys).
 *
 *   node examples/node-http.ts        # then: curl -H "Authorization: Bearer <key>" localhost:8787/v1/balance
 *
 * In your app, import from 'citewise', 'citewise/node' and 'citewise/mcp'.
 */
import { createServer, type Server } from 'node:http';
import { createNodeHandler } from '../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../src/index.ts';
import { createMcpHttpHandler } from '../src/mcp/index.ts';

/** A server answering /v1 and /mcp; everything else is a 404 in the spec's error shape. */
export function createAppServer(engine: SearchEngine): Server {
  const api = createNodeHandler(engine);
  const mcp = createMcpHttpHandler(engine);
  return createServer((req, res) => {
    if (req.url === '/mcp' || req.url?.startsWith('/mcp?')) void mcp(req, res);
    else api(req, res);
  });
}

if (import.meta.main) {
  const engine = createSearchEngine();
  const { key } = await engine.createKey();
  const port = Number(process.env['PORT'] ?? 8787);
  createAppServer(engine).listen(port, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${port} — API key (in memory, this run only): ${key}`);
  });
}
