/** A real engine (local index over a fixture manual, in-memory stores) behind node:http on 127.0.0.1, for the agent tests. */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

export interface TestService {
  readonly engine: SearchEngine;
  readonly baseUrl: string;
  /** A key of a fresh account with 1,000 credits. */
  readonly apiKey: string;
  close(): Promise<void>;
}

/** Starts an engine (its local index over the fixture manual; no fetcher, so no network) on port 0. */
export async function startTestService(
  options: SearchEngineOptions = {},
  listener?: (engine: SearchEngine) => RequestListener,
): Promise<TestService> {
  const engine = createSearchEngine({
    corpus: [MANUAL_CORPUS],
    fetcher: false,
    extractor: false,
    ...options,
  });
  const { key } = await engine.createKey();
  const server: Server = createServer(listener ? listener(engine) : createNodeHandler(engine));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    engine,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: key,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}
