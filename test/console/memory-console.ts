/** A console over in-memory stores and an engine that answers without the web, for the console suites. */
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import {
  createConsole,
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

/** The engine (no fetching: answers come from `search`'s hits), the console mounted on it and its accounts. */
export function memoryConsole(
  stages: { readonly search: SearchProvider; readonly answerer: Answerer },
  options: Omit<ConsoleOptions, 'engine' | 'accounts' | 'usage' | 'recorder'> = {},
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
  });
  const app = createConsole({ engine, accounts, usage, recorder, ...options });
  return { engine, app, accounts };
}
