/**
 * The /v1 API inside a Koa 3 app, next to the app's own middleware.
 *
 *   node examples/koa-app.ts          # then: POST localhost:3000/v1/search
 *
 * In your app, import from 'citewise' and 'citewise/koa'.
 */
import Koa from 'koa';
import { citewiseKoa } from '../adapters/koa.ts';
import { createSearchEngine, type SearchEngine } from '../src/index.ts';

/** A Koa app: its own `/health`, then citewise for /v1 (other paths fall through to 404). */
export function createApp(engine: SearchEngine): Koa {
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (ctx.path === '/health') ctx.body = { ok: true };
    else await next();
  });
  app.use(citewiseKoa(engine));
  return app;
}

if (import.meta.main) {
  const engine = createSearchEngine();
  const { key } = await engine.createKey();
  const port = Number(process.env['PORT'] ?? 3000);
  createApp(engine).listen(port, () => console.log(`http://127.0.0.1:${port}/v1 — API key: ${key}`));
}
