/** A real engine (local index over a fixture manual, in-memory stores) behind node:http on 127.0.0.1, for the agent tests. */
import { createServer, type RequestListener } from 'node:http';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

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
  const server = await listenOnLoopback(
    createServer(listener ? listener(engine) : createNodeHandler(engine)),
  );
  return {
    engine,
    baseUrl: server.baseUrl,
    apiKey: key,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}
