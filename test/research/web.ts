/**
 * A small handmade web for the research tests: pages (title + text) behind a BM25 search provider that
 * returns their text as the hit's content, or only a snippet with a fetcher and extractor that read the
 * page (to count fetches). Calls are recorded.
 */
import type { SearchEngine } from '../../src/engine/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { runPipeline, type PipelineResult, type PipelineSettings } from '../../src/pipeline/run.ts';
import { Bm25Index } from '../../src/text/bm25.ts';
import { tokenize, tokenizeQuery } from '../../src/text/tokenize.ts';
import { engineWithKey } from '../reliability/helpers.ts';
import { ADAPTERS, apiClient, type ApiClient, type RunningServer } from '../support/servers.ts';
import type {
  ContentExtractor,
  ExtractedContent,
  PageFetcher,
  SearchHit,
  SearchProvider,
} from '../../src/pipeline/types.ts';

/** One page: its title and paragraphs. */
export interface Page {
  readonly title: string;
  readonly text: string;
}

/** The web and what was asked of it. */
export interface HandmadeWeb {
  readonly search: SearchProvider;
  /** With `fetched: true`: fetches the page of a hit. */
  readonly fetcher: PageFetcher;
  readonly extractor: ContentExtractor;
  /** Queries searched, in order. */
  readonly queries: string[];
  /** URLs fetched, in order. */
  readonly fetches: string[];
  urlOf(title: string): string;
}

/** Builds the web. `fetched`: hits carry snippets only, and pages are read through the fetcher. */
export function handmadeWeb(pages: readonly Page[], options: { fetched?: boolean } = {}): HandmadeWeb {
  const index = new Bm25Index({ k1: 0.9, b: 0.4 });
  const byUrl = new Map<string, Page>();
  const urlOf = (title: string) => `https://wiki.test/${encodeURIComponent(title.replaceAll(' ', '_'))}`;
  for (const page of pages) {
    index.add(urlOf(page.title), tokenize(`${page.title}\n${page.text}`));
    byUrl.set(urlOf(page.title), page);
  }
  const queries: string[] = [];
  const fetches: string[] = [];
  const search: SearchProvider = {
    id: 'handmade',
    async search(query) {
      queries.push(query.query);
      return index.search(tokenizeQuery(query.query), query.limit).map(({ id }): SearchHit => {
        const page = byUrl.get(id)!;
        return options.fetched
          ? { url: id, title: page.title, snippet: page.text.slice(0, 60) }
          : { url: id, title: page.title, snippet: page.text.slice(0, 60), content: page.text };
      });
    },
  };
  const fetcher: PageFetcher = {
    async fetch(url) {
      fetches.push(url.href);
      const body = new TextEncoder().encode(byUrl.get(url.href)?.text ?? '');
      return {
        url: url.href,
        requestedUrl: url.href,
        status: 200,
        contentType: 'text/plain',
        body,
        headers: {},
      };
    },
  };
  const extractor: ContentExtractor = {
    async extract(page): Promise<ExtractedContent> {
      const text = new TextDecoder().decode(page.body);
      return { url: page.url, title: byUrl.get(page.url)?.title ?? '', text, markdown: text };
    },
  };
  return { search, fetcher, extractor, queries, fetches, urlOf };
}

/** Pages of the research tests: a bridge, a comparison with a second hop, a three-hop chain, distractors. */
export const PAGES: readonly Page[] = [
  {
    title: 'Love Affair (1939 film)',
    text: 'Love Affair is a 1939 American romantic comedy film directed by Leo McCarey and starring Irene Dunne and Charles Boyer. It was nominated for six Academy Awards.',
  },
  {
    title: 'Leo McCarey',
    text: 'Leo McCarey was an American film director, screenwriter and producer. He was involved in nearly 200 films. McCarey married Stella Martin in 1920; their only child, Mary McCarey, was born in 1923.',
  },
  {
    title: 'Love Story (1970 film)',
    text: 'Love Story is a 1970 American romantic drama film written by Erich Segal. The child actors of the film were praised.',
  },
  {
    title: 'An Affair to Remember',
    text: 'An Affair to Remember is a 1957 American romance film, a remake of an earlier film about a love affair on an ocean liner.',
  },
  {
    title: "Mord Em'ly",
    text: "Mord Em'ly is a 1922 British silent comedy film directed by George Pearson and starring Betty Balfour.",
  },
  {
    title: 'Ek Hi Bhool',
    text: 'Ek Hi Bhool is a 1981 Hindi drama film directed by T. Rama Rao, starring Jeetendra and Rekha.',
  },
  {
    title: 'George Pearson',
    text: 'George Pearson (19 March 1875 – 6 February 1973) was an English film director and screenwriter of the silent era.',
  },
  {
    title: 'T. Rama Rao',
    text: 'Tatineni Rama Rao (8 June 1938 – 20 April 2022), known as T. Rama Rao, was an Indian film director and producer.',
  },
  {
    title: 'Brother (Pearl Jam song)',
    text: '"Brother" is a song by the American rock band Pearl Jam. It was recorded during the sessions for their debut album Ten.',
  },
  {
    title: 'Pearl Jam',
    text: 'Pearl Jam is an American rock band formed in 1990 in Seattle, Washington. The band has sold nearly 85 million albums.',
  },
  {
    title: 'Seattle',
    text: 'Seattle is a seaport city on the West Coast of the United States. Average annual snowfall, as measured at Sea-Tac Airport, is 6.8 inches.',
  },
  {
    title: 'Snowfall records of American cities',
    text: 'The average snowfall of a city is measured over thirty winters. Buffalo and Syracuse lead the list of snowy cities.',
  },
  {
    title: 'Zyxwv Quarry',
    text: 'The Zyxwv Quarry is a disused quarry. Nothing else is known of it.',
  },
];

/**
 * A three-hop chain whose pages do not name each other: the plant's page names the blender, a page about
 * repairs (not titled by the blender) names the team, and the org chart (not titled by the team) holds the
 * team's head in a table. Distractors share the question's words.
 */
export const CHAIN_PAGES: readonly Page[] = [
  {
    title: 'Lyon plant',
    text: 'The Lyon plant opened in 1987 on the banks of the Rhône. Its main line builds the Vortex 300 blender for the European market.',
  },
  {
    title: 'Repairs and warranty',
    text: 'Repairs of the Vortex 300 under warranty are handled by the Field Service team, which collects the blender at home.',
  },
  {
    title: 'Org chart',
    text: [
      'Every team of the company has one head, listed below.',
      '',
      '| Team | Head | Office |',
      '|---|---|---|',
      '| Field Service | Marisol Achebe | Grenoble |',
      '| Sales | Dana Whitfield | Basel |',
    ].join('\n'),
  },
  {
    title: 'Basel plant',
    text: 'The Basel plant builds the Aria kettle. Repairs of kettles are handled by the shop that sold them.',
  },
  {
    title: 'Blender team history',
    text: 'The team that designed the first company blender was led by an engineer from Lyon in 1979.',
  },
];

/**
 * Research over the web (or over these pages) as a library caller runs it: BM25 ranking, the extractive
 * answerer, 5 results, passages of 4,000 tokens; `research` overrides research's settings.
 */
export async function researchOver(
  web: HandmadeWeb | readonly Page[],
  prompt: string,
  research?: PipelineSettings['research'],
): Promise<PipelineResult> {
  const { search } = 'search' in web ? web : handmadeWeb(web);
  return runPipeline(
    { prompt, context: [], responseType: 'text', filters: {}, depth: 'research' },
    { search, ranker: createBm25Ranker(), answerer: createExtractiveAnswerer() },
    { maxResults: 5, maxPassageTokens: 4000, pageTimeoutMs: 5000, ...(research ? { research } : {}) },
    { signal: new AbortController().signal, requestId: 'research-test', deadline: Date.now() + 20_000 },
  );
}

/** An engine over a handmade web, served over HTTP (node:http adapter), with a key and its balance. */
export interface ResearchServer {
  readonly engine: SearchEngine;
  readonly server: RunningServer;
  readonly api: ApiClient;
  readonly key: string;
  readonly balance: () => Promise<number>;
  readonly close: () => Promise<void>;
}

/** Serves an engine searching `web` (no fetcher, no extractor: pages are the hits), with `research` settings. */
export async function researchServer(
  web: HandmadeWeb,
  research?: NonNullable<Parameters<typeof engineWithKey>[0]['research']>,
): Promise<ResearchServer> {
  const setup = await engineWithKey({
    search: web.search,
    fetcher: false,
    extractor: false,
    ...(research ? { research } : {}),
  });
  const server = await ADAPTERS['node:http']!(setup.engine);
  return {
    ...setup,
    server,
    api: apiClient(server.baseUrl, setup.key),
    close: async () => {
      await server.close();
      await setup.engine.close();
    },
  };
}

/** A research answer with its steps and charge, as `include: ["steps", "usage"]` gives it. */
export interface CountedResearch {
  readonly body: {
    answer: string;
    sources: string[];
    steps: { queries: string[]; pages: string[]; stopped?: string }[];
    usage: { credits_charged: number };
  };
  /** Queries the web received for it. */
  readonly sent: number;
  /** Credits the account lost for it. */
  readonly spent: number;
}

/** Asks `prompt` at `depth: "research"` over HTTP: the answer, and what it sent and cost. */
export async function askCounted(
  served: ResearchServer,
  web: HandmadeWeb,
  prompt: string,
): Promise<CountedResearch> {
  const before = await served.balance();
  const searched = web.queries.length;
  const response = await served.api.post({ prompt, depth: 'research', include: ['steps', 'usage'] });
  if (response.status !== 200)
    throw new Error(`research answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as CountedResearch['body'];
  return { body, sent: web.queries.length - searched, spent: before - (await served.balance()) };
}
