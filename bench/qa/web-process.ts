/**
 * bench:qa's local web and search endpoint in a process of their own, so that the benchmark process holds
 * only what `citewise serve` would (the engine, its extraction workers) and the client: its CPU time is then
 * the service's, as `/proc` would show it for `serve`.
 *
 * The parent calls {@link startWebProcess}; this file, run as a child (`fork`), loads the articles, builds
 * the BM25 index, starts {@link createSquadWeb} and {@link createSearchEndpoint}, and answers the parent's
 * messages (`traffic`, `reset`, `close`) over the IPC channel.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadArticles } from './corpus.ts';
import { createArticleIndex, createSearchEndpoint } from './search-endpoint.ts';
import { createSquadWeb, pageOrigin, type RealWebOptions, type WebTraffic } from './squad-web.ts';
import { articlePath } from './corpus.ts';

/** What the child needs to build the web. */
export interface WebProcessOptions {
  readonly datasetsDir: string;
  readonly seed: number;
  readonly hotpot: boolean;
  readonly titles?: readonly string[];
  readonly realWeb?: Required<RealWebOptions>;
  readonly hosts?: number;
}

/** The web and search endpoint running in the child. */
export interface WebProcess {
  /** Articles served. */
  readonly articles: number;
  /** Base URL of the SearXNG-compatible endpoint. */
  readonly endpointOrigin: string;
  /** Absolute URL of an article's page. */
  urlFor(title: string): string;
  /** The web's politeness figures since it started or since the last reset, and the pages it left hanging. */
  traffic(): Promise<WebTraffic & { readonly hung: number }>;
  resetTraffic(): Promise<void>;
  close(): Promise<void>;
}

type Request = { readonly id: number; readonly kind: 'traffic' | 'reset' | 'close' };
type Ready = {
  readonly kind: 'ready';
  readonly port: number;
  readonly endpointOrigin: string;
  readonly articles: number;
};
type Reply = { readonly kind: 'reply'; readonly id: number; readonly value?: unknown };

/** Forks the web process and waits until it listens. */
export async function startWebProcess(options: WebProcessOptions): Promise<WebProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 0;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the web process exited with ${code}`)));
    child.on('message', (message: Ready | Reply) => {
      if (message.kind === 'ready') resolve(message);
      else pending.get(message.id)?.(message.value);
    });
    child.send({ kind: 'start', options });
  });
  child.removeAllListeners('exit');
  const ask = (kind: Request['kind']) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      pending.set(id, (value) => {
        pending.delete(id);
        resolve(value);
      });
      child.send({ id, kind } satisfies Request);
    });
  const origins = {
    seed: options.seed,
    port: ready.port,
    realWeb: options.realWeb !== undefined,
    ...(options.hosts === undefined ? {} : { hosts: options.hosts }),
  };
  return {
    articles: ready.articles,
    endpointOrigin: ready.endpointOrigin,
    urlFor: (title) => `${pageOrigin(title, origins)}${articlePath(title)}`,
    traffic: async () => (await ask('traffic')) as WebTraffic & { hung: number },
    resetTraffic: async () => void (await ask('reset')),
    async close() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await ask('close');
      await exited;
    },
  };
}

/** The child: builds the web on the first message, then answers requests. */
function serveInChild(): void {
  let web: Awaited<ReturnType<typeof createSquadWeb>> | undefined;
  let endpoint: Awaited<ReturnType<typeof createSearchEndpoint>> | undefined;
  process.on('message', (message: { kind: 'start'; options: WebProcessOptions } | Request) => {
    void (async () => {
      if (message.kind === 'start') {
        const { options } = message;
        const articles = loadArticles({
          datasetsDir: options.datasetsDir,
          hotpot: options.hotpot,
          ...(options.titles ? { titles: options.titles, train: false } : {}),
        });
        const index = createArticleIndex(articles);
        web = await createSquadWeb({
          articles,
          seed: options.seed,
          related: (title) => index.search(title.replaceAll('_', ' '), 12).map((match) => match.title),
          ...(options.realWeb ? { realWeb: options.realWeb } : {}),
          ...(options.hosts === undefined ? {} : { hosts: options.hosts }),
        });
        const site = web;
        endpoint = await createSearchEndpoint({ index, urlFor: (title) => site.urlFor(title) });
        const port = Number(new URL(web.origin).port);
        process.send?.({
          kind: 'ready',
          port,
          endpointOrigin: endpoint.origin,
          articles: articles.length,
        } satisfies Ready);
        return;
      }
      let value: unknown;
      if (message.kind === 'traffic') value = { ...web!.traffic(), hung: web!.hungCount };
      else if (message.kind === 'reset') web!.resetTraffic();
      else await Promise.all([web?.close(), endpoint?.close()]);
      process.send?.({ kind: 'reply', id: message.id, value } satisfies Reply, () => {
        if (message.kind === 'close') process.disconnect();
      });
    })();
  });
  // The parent gone (a crash, ^C): do not linger.
  process.on('disconnect', () => process.exit(0));
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) serveInChild();
