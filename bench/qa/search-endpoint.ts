/**
 * A local search engine for the QA benchmark, speaking SearXNG's JSON format:
 * `GET /search?q=…&format=json[&n=10][&pageno=1]` → `{ query, number_of_results, results: [{ url, title,
 * content, engine, score }], answers: [], suggestions: [], unresponsive_engines: [] }`.
 * Articles are ranked with BM25 (the project's {@link Bm25Index}, k1 = 0.9, b = 0.4 as in the dataset's
 * reference run) over title + text; `content` is a query-dependent snippet of about 300 characters, like a
 * SERP. Other `format` values answer 403, as a SearXNG instance without JSON output does.
 */
import { createServer, type Server } from 'node:http';
import { Bm25Index, type Bm25Options } from '../../src/text/bm25.ts';
import { tokenize, tokenizeQuery } from '../../src/text/tokenize.ts';
import type { Article } from './corpus.ts';
import { listenOnLoopback } from '../../test/support/loopback-server.ts';

/** A BM25 index of whole articles. */
export interface ArticleIndex {
  /** Best articles for `query`, best first. */
  search(query: string, limit: number): { title: string; score: number }[];
  /** About `maxChars` characters of the article around the paragraph that best matches the query. */
  snippet(title: string, query: string, maxChars?: number): string;
  readonly size: number;
}

/** Builds an {@link ArticleIndex} (title + text, the project's tokenizer with stemming and stop words). */
export function createArticleIndex(
  articles: readonly Article[],
  bm25: Bm25Options = { k1: 0.9, b: 0.4 },
): ArticleIndex {
  const index = new Bm25Index(bm25);
  const byTitle = new Map<string, Article>();
  // Tokenizing an article's paragraphs takes milliseconds and the endpoint runs in the benchmark's own
  // process: each article is tokenized once, on its first snippet, and kept (1.5 million tokens for the
  // SQuAD articles; with 256 kept, 40 results per question over 490 articles re-tokenized most of them).
  const paragraphTokens = new Map<string, readonly (readonly string[])[]>();
  const tokensOf = (article: Article): readonly (readonly string[])[] => {
    let tokens = paragraphTokens.get(article.title);
    if (!tokens) paragraphTokens.set(article.title, (tokens = article.paragraphs.map((p) => tokenize(p))));
    return tokens;
  };
  for (const article of articles) {
    byTitle.set(article.title, article);
    const text = `${article.title.replaceAll('_', ' ')}\n${article.paragraphs.join('\n')}`;
    index.add(article.title, tokenize(text));
  }
  return {
    size: index.size,
    search(query, limit) {
      return index
        .search(tokenizeQuery(query), limit)
        .map((match) => ({ title: match.id, score: match.score }));
    },
    snippet(title, query, maxChars = 300) {
      const article = byTitle.get(title);
      if (!article) return '';
      const terms = new Set(tokenizeQuery(query));
      let best = article.paragraphs[0] ?? '';
      let bestHits = -1;
      const tokens = tokensOf(article);
      article.paragraphs.forEach((paragraph, i) => {
        const hits = (tokens[i] ?? []).filter((token) => terms.has(token)).length;
        if (hits > bestHits) [best, bestHits] = [paragraph, hits];
      });
      if (best.length <= maxChars) return best;
      // Window starting at the sentence before the first query term, as SERP snippets do.
      const lower = best.toLowerCase();
      const firstHit = Math.min(
        ...query
          .toLowerCase()
          .split(/\W+/)
          .filter((word) => word.length > 3)
          .map((word) => lower.indexOf(word))
          .filter((at) => at >= 0),
        best.length,
      );
      // A hit near the paragraph's end moves the window back to fill it, never off the hit (a window from
      // the paragraph's start, as before, showed none of the query's words: no search engine does that).
      const sentenceStart = Math.max(0, best.lastIndexOf('. ', firstHit) + 2);
      const start =
        firstHit === best.length ? 0 : Math.max(0, Math.min(sentenceStart, best.length - maxChars));
      const window = best.slice(start, start + maxChars);
      return `${start > 0 ? '… ' : ''}${window.slice(0, window.lastIndexOf(' '))} …`;
    },
  };
}

/** Options of {@link createSearchEndpoint}. */
export interface SearchEndpointOptions {
  readonly index: ArticleIndex;
  /** URL of an article's page on the local web. */
  readonly urlFor: (title: string) => string;
  /** Results per page when the request has no `n`. @default 10 */
  readonly defaultResults?: number;
  /** @default 0 (any free port) */
  readonly port?: number;
}

/** A running search endpoint. */
export interface SearchEndpoint {
  /** `http://127.0.0.1:PORT`; the SearXNG provider's `baseUrl`. */
  readonly origin: string;
  /** Queries received, in order. */
  readonly queries: readonly string[];
  close(): Promise<void>;
}

/** Starts the SearXNG-compatible endpoint on 127.0.0.1. */
export async function createSearchEndpoint(options: SearchEndpointOptions): Promise<SearchEndpoint> {
  const { index, urlFor } = options;
  if (!index || typeof index.search !== 'function')
    throw new TypeError('createSearchEndpoint: index is required');
  if (typeof urlFor !== 'function') throw new TypeError('createSearchEndpoint: urlFor must be a function');
  const defaultResults = options.defaultResults ?? 10;
  if (!Number.isInteger(defaultResults) || defaultResults < 1) {
    throw new RangeError('createSearchEndpoint: defaultResults must be a positive integer');
  }
  const queries: string[] = [];

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/search') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (url.searchParams.get('format') !== 'json') {
      res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>');
      return;
    }
    const query = url.searchParams.get('q') ?? '';
    queries.push(query);
    const n = Math.min(
      50,
      Math.max(1, Number.parseInt(url.searchParams.get('n') ?? '', 10) || defaultResults),
    );
    const page = Math.max(1, Number.parseInt(url.searchParams.get('pageno') ?? '1', 10) || 1);
    const matches = index.search(query, n * page).slice(n * (page - 1));
    const body = {
      query,
      number_of_results: matches.length,
      results: matches.map((match) => ({
        url: urlFor(match.title),
        title: match.title.replaceAll('_', ' '),
        content: index.snippet(match.title, query),
        engine: 'local-bm25',
        engines: ['local-bm25'],
        score: Math.round(match.score * 1000) / 1000,
        category: 'general',
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  });
  const listening = await listenOnLoopback(server, '', options.port ?? 0);
  return {
    origin: listening.baseUrl,
    queries,
    close: () => listening.close(),
  };
}
