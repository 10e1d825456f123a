/**
 * Stage fakes for tests, as the AI SDK ships `MockLanguageModel`: a search provider with fixed hits, a
 * fetcher serving fixed pages, an answerer with a fixed answer. Each records what it was asked, so a test
 * can check what reached the stage. They implement the public stage interfaces, so an engine
 * (`createSearchEngine({ search, fetcher, answerer })`) or `runPipeline` runs on them unchanged.
 *
 * @example
 * ```ts
 * import { createSearchEngine } from 'citewise';
 * import { fakeSearchProvider, request, staticAnswerer } from 'citewise/testing';
 *
 * const search = fakeSearchProvider([
 *   { url: 'https://example.com/keys', title: 'Keys', content: 'Revoke a key on the API keys page.' },
 * ]);
 * const answerer = staticAnswerer({ answer: 'On the API keys page [1].', sources: ['https://example.com/keys'] });
 * const engine = createSearchEngine({ search, answerer, fetcher: false, extractor: false });
 * const { key } = await engine.createKey();
 * const response = await request(engine, 'POST', '/v1/search', { apiKey: key, body: { prompt: 'Revoke?' } });
 * // response.status === 200; search.queries[0].query === 'Revoke?'; answerer.inputs[0].passages[0].url …
 * ```
 */
import type {
  AnswerInput,
  AnswerOutput,
  Answerer,
  CallOptions,
  FetchedPage,
  PageFetcher,
  SearchHit,
  SearchProvider,
  SearchQuery,
} from '../pipeline/types.ts';
import { FetchError } from '../pipeline/fetch/errors.ts';

/** A {@link SearchProvider} that records its queries. */
export interface FakeSearchProvider extends SearchProvider {
  /** Every query, in the order received. */
  readonly queries: SearchQuery[];
}

/**
 * A search provider answering every query with `hits` (at most the query's `limit`), or with what `hits`
 * returns for it. A hit with `content` is read as it is (no fetch); one with only a `snippet` is fetched.
 *
 * @param hits fixed hits, or a function of the query (and call, for its signal) returning them
 * @param options `id`: the provider id. @default 'fake'
 */
export function fakeSearchProvider(
  hits:
    | readonly SearchHit[]
    | ((query: SearchQuery, call: CallOptions) => readonly SearchHit[] | Promise<readonly SearchHit[]>),
  options: { readonly id?: string } = {},
): FakeSearchProvider {
  const queries: SearchQuery[] = [];
  return {
    id: options.id ?? 'fake',
    queries,
    async search(query, call) {
      queries.push(query);
      const found = typeof hits === 'function' ? await hits(query, call) : hits;
      return found.slice(0, query.limit);
    },
  };
}

/** A page a {@link fakeFetcher} serves: HTML text, or a body with its media type and status. */
export type FakePage =
  | string
  | {
      readonly body: string | Uint8Array;
      /** @default 'text/html' */
      readonly contentType?: string;
      /** @default 200 */
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A {@link PageFetcher} that records the URLs it fetched. */
export interface FakeFetcher extends PageFetcher {
  /** Every URL fetched (as `href`), in the order asked. */
  readonly urls: string[];
}

/**
 * A fetcher serving `pages` by URL (`href`); any other URL fails as a 404 would (a `FetchError` with code
 * `bad_status`), and an aborted call rejects with its signal's reason. With a function, its page (or
 * `undefined` for a 404) is served.
 */
export function fakeFetcher(
  pages:
    | Readonly<Record<string, FakePage>>
    | ((url: URL, call: CallOptions) => FakePage | undefined | Promise<FakePage | undefined>),
): FakeFetcher {
  const urls: string[] = [];
  return {
    urls,
    async fetch(url, call) {
      urls.push(url.href);
      call.signal.throwIfAborted();
      const page = typeof pages === 'function' ? await pages(url, call) : pages[url.href];
      if (page === undefined) {
        throw new FetchError('bad_status', `${url.href} answered 404`, { url: url.href, status: 404 });
      }
      return fetchedPage(url, page);
    },
  };
}

function fetchedPage(url: URL, page: FakePage): FetchedPage {
  const { body, contentType, status, headers } = typeof page === 'string' ? { body: page } : page;
  return {
    url: url.href,
    requestedUrl: url.href,
    status: status ?? FAKE_PAGE_DEFAULTS.status,
    contentType: contentType ?? FAKE_PAGE_DEFAULTS.contentType,
    charset: 'utf-8',
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    headers: headers ?? {},
  };
}

/** What a {@link FakePage} given as an object is when it does not say. */
export const FAKE_PAGE_DEFAULTS = { status: 200, contentType: 'text/html' } as const;

/** An {@link Answerer} that records what it was given. */
export interface StaticAnswerer extends Answerer {
  /** Every answer input (prompt, query, the passages selected), in the order received. */
  readonly inputs: AnswerInput[];
}

/**
 * An answerer that always gives `output` (an answer with `[n]` citations and the URLs they cite), or what
 * `output` returns for the input. Throwing from the function fails the search, as a model that is down
 * would (the search is refunded).
 */
export function staticAnswerer(
  output: AnswerOutput | ((input: AnswerInput) => AnswerOutput | Promise<AnswerOutput>),
): StaticAnswerer {
  const inputs: AnswerInput[] = [];
  return {
    inputs,
    async answer(input) {
      inputs.push(input);
      const answered = typeof output === 'function' ? await output(input) : output;
      return { answer: answered.answer, sources: [...answered.sources] };
    },
  };
}
