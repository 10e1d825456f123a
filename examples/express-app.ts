/**
 * The /v1 API inside an Express 5 app, mounted under /api next to the app's own routes, with the MCP
 * endpoint at /api/mcp.
 *
 *   node examples/express-app.ts      # then: POST localhost:3000/api/v1/search
 *
 * In your app, import from 'citewise', 'citewise/express' and 'citewise/mcp'.
 */
import express, { type Express } from 'express';
import { citewiseExpress } from '../adapters/express.ts';
import { createSearchEngine, type SearchEngine } from '../src/index.ts';
import { createMcpHttpHandler } from '../src/mcp/index.ts';

/** An Express app with its own route and citewise under /api. */
export function createApp(engine: SearchEngine): Express {
  const app = express();
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  const mcp = createMcpHttpHandler(engine);
  app.post('/api/mcp', express.json(), (req, res) => void mcp(req, res, req.body));
  app.use('/api', citewiseExpress(engine));
  return app;
}

if (import.meta.main) {
  const engine = createSearchEngine();
  const { key } = await engine.createKey();
  const port = Number(process.env['PORT'] ?? 3000);
  createApp(engine).listen(port, () => console.log(`http://127.0.0.1:${port}/api/v1 — API key: ${key}`));
}
