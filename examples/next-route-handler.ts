/**
 * A Next.js App Router route handler (no Next dependency needed: it is a web-standard fetch handler).
 * Save as `app/api/[...path]/route.ts`; the API is then at `/api/v1/search` and `/api/v1/balance`.
 *
 * The engine is created once per server process (module scope), with stores that survive restarts in
 * production (e.g. `createSqliteStores` from 'citewise/sqlite', or Redis/Postgres).
 * In your app, import from 'citewise' and 'citewise/fetch'.
 */
import { createFetchHandler } from '../adapters/fetch.ts';
import { createSearchEngine } from '../src/index.ts';

/** The engine of this process. */
export const engine = createSearchEngine();

const handler = createFetchHandler(engine, { basePath: '/api' });

/** `GET /api/v1/balance`, `GET /api/v1/openapi.json`. */
export const GET = (request: Request): Promise<Response> => handler(request);
/** `POST /api/v1/search`. */
export const POST = (request: Request): Promise<Response> => handler(request);
/** The engine needs the Node.js runtime (not the edge): stores, the local index and the extractor use Node APIs. */
export const runtime = 'nodejs';
