/** A console over in-memory stores and an engine that answers without the web, for the console suites. */
import { createServer } from 'node:http';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import {
  createConsole,
  createConsoleNodeHandler,
  createMemoryAccountStore,
  createMemoryUsageStore,
  createUsageRecorder,
  withConsoleKeys,
  type AccountStore,
  type Console,
  type ConsoleOptions,
} from '../../src/console/index.ts';
import type { Answerer, SearchProvider } from '../../src/pipeline/types.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import { createMemoryKeyStore } from '../../src/stores/memory/key-store.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';

/** The engine (no fetching: answers come from `search`'s hits), the console mounted on it and its accounts. */
export function memoryConsole(
  stages: { readonly search: SearchProvider; readonly answerer: Answerer },
  options: Omit<ConsoleOptions, 'engine' | 'accounts' | 'usage' | 'recorder'> = {},
  engineOptions: Pick<SearchEngineOptions, 'documents'> = {},
): { engine: SearchEngine; app: Console; accounts: AccountStore } {
  const accounts = createMemoryAccountStore();
  const usage = createMemoryUsageStore();
  const recorder = createUsageRecorder(usage);
  const engine = createSearchEngine({
    keys: withConsoleKeys(createMemoryKeyStore(), accounts),
    credits: createMemoryCreditStore(),
    usage: recorder,
    search: stages.search,
    answerer: stages.answerer,
    fetcher: false,
    extractor: false,
    ...engineOptions,
  });
  const app = createConsole({ engine, accounts, usage, recorder, ...options });
  return { engine, app, accounts };
}

/** The console and the API on one loopback server, as `citewise serve` mounts them: the console first. */
export function listenConsoleAndApi(app: Console, engine: SearchEngine): Promise<ListeningServer> {
  const ui = createConsoleNodeHandler(app);
  const api = createNodeHandler(engine);
  return listenOnLoopback(createServer((req, res) => ui(req, res, () => api(req, res))));
}
