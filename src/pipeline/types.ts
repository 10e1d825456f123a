/**
 * Stage interfaces of the pipeline: search → fetch → extract → rank → answer.
 * Each stage is replaceable through `createSearchEngine` options and usable on its own.
 */
import type { PageType } from './extract/page-type.ts';

export type { PageType } from './extract/page-type.ts';

/** Passed to every stage call. */
export interface CallOptions {
  /** Aborted when the request's deadline passes or the client disconnects. */
  readonly signal: AbortSignal;
  /** Correlates logs across stages. */
  readonly requestId: string;
  /**
   * Epoch ms after which the call must give up: a fetch stops, no retry starts whose wait ends later. The
   * pipeline always sets it (the request's deadline). Absent: only `signal` (and the stage's own timeouts)
   * bound the call.
   */
  readonly deadline?: number;
  /**
   * Where this call stands among its request's calls, lower first: the page fetcher serves a host's
   * waiting requests in this order (the pipeline passes a page's position among the search results, so
   * every search's first results go before anyone's later ones). From {@link SPECULATIVE_PRIORITY} on, the
   * fetch may not be needed (a page read ahead): it is sent only while its host has room to spare. It may
   * change while the call waits (a getter): it is read whenever the host picks its next request.
   * @default 0
   */
  readonly priority?: number;
  /**
   * Who the work is for (the paying account): stages shared by every request, like the extraction
   * workers, are shared fairly between accounts. @default none: each call counts on its own
   */
  readonly account?: string;
  /**
   * Where the client reached the service (origin and mount path), when the engine has no `publicUrl`: the
   * engine's local index cites its documents under it.
   */
  readonly requestBaseUrl?: string;
}

/** A conversation message. Only `role: "user"` messages are considered, as the spec says. */
export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

/** Answer format: `text` = plain text with no Markdown syntax; `markdown` = rich Markdown. */
export type ResponseType = 'text' | 'markdown';

/** A JSON Schema given with `response_type: "json"`: a plain JSON object whose top level describes an object. */
export type JsonObjectSchema = Readonly<Record<string, unknown>>;

/**
 * How far a search reads: `fast` (snippets only), `standard` (pages of the top results), `deep`
 * (sub-queries), `research` (several rounds that follow what was read, for questions that need several
 * documents).
 */
export type SearchDepth = 'fast' | 'standard' | 'deep' | 'research';

/**
 * {@link CallOptions.priority} from this one on marks a speculative request (a page read ahead that may not
 * be needed): the page fetcher starts it only while its host has room to spare (a quarter of its slots and
 * of its burst free: the host scheduler's `SPECULATIVE_RESERVE`), so needed requests of any search do not
 * wait behind speculation, and a busy site is not sent pages nobody asked for.
 */
export const SPECULATIVE_PRIORITY = 1_000_000;

/** Every {@link SearchDepth}, in order of effort. */
export const SEARCH_DEPTHS = [
  'fast',
  'standard',
  'deep',
  'research',
] as const satisfies readonly SearchDepth[];

/**
 * What the pipeline answers ({@link runPipeline}): the question, its conversation and how to read the web.
 * The HTTP layer's validated request body is one (it adds what only the transport needs, such as `stream`).
 */
export interface PipelineRequest {
  readonly prompt: string;
  /** Only `role: "user"` messages, in order. */
  readonly context: readonly ChatMessage[];
  /** Format of a text answer (`text` when `jsonSchema` is set). */
  readonly responseType: ResponseType;
  /** Set when the answer must be a JSON object matching this schema, serialized into the answer string. */
  readonly jsonSchema?: JsonObjectSchema;
  /** Search filters (domains, dates, country, language). Empty when none were given. */
  readonly filters: SearchFilters;
  /** How many sources to read at most. @default the engine's `maxResults` */
  readonly maxSources?: number;
  readonly depth: SearchDepth;
  /**
   * Milliseconds after the request arrived by which the pipeline stops waiting for pages and answers from
   * those that arrived. @default the engine's `maxLatencyMs`
   */
  readonly maxLatencyMs?: number;
}

/** Optional search filters; a provider ignores what it cannot honour and documents it. */
export interface SearchFilters {
  readonly includeDomains?: readonly string[];
  readonly excludeDomains?: readonly string[];
  readonly language?: string;
  readonly country?: string;
  readonly fromDate?: string;
  readonly toDate?: string;
}

/** One search query sent to a provider. */
export interface SearchQuery {
  readonly query: string;
  /** Maximum number of hits wanted. */
  readonly limit: number;
  readonly filters?: SearchFilters;
}

/** One result from a search provider. */
export interface SearchHit {
  readonly url: string;
  readonly title: string;
  /** Short SERP text. Used as the page's text when the page cannot be fetched. */
  readonly snippet?: string;
  /** Full text when the provider already has it (e.g. the local index); the fetch is then skipped. */
  readonly content?: string;
  /** ISO 8601 date when known. */
  readonly publishedAt?: string;
  /** Provider-specific relevance score (higher is better); not comparable across providers. */
  readonly score?: number;
  /** Id of the provider that returned the hit. */
  readonly provider?: string;
}

/** A web search backend. */
export interface SearchProvider {
  /** Short stable id, e.g. `searxng`, `brave`, `local`. */
  readonly id: string;
  search(query: SearchQuery, options: CallOptions): Promise<SearchHit[]>;
  close?(): Promise<void>;
}

/** Raw bytes of a fetched page with what is needed to decode them. */
export interface FetchedPage {
  /** Final URL after redirects. */
  readonly url: string;
  /** URL originally requested. */
  readonly requestedUrl: string;
  readonly status: number;
  /** Media type without parameters, lower-case, e.g. `text/html`. */
  readonly contentType: string;
  /** Charset from the Content-Type header, if any (the extractor also sniffs BOM and `<meta>`). */
  readonly charset?: string;
  readonly body: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
}

/** Fetches untrusted URLs safely (SSRF guard, size and time limits, robots.txt). */
export interface PageFetcher {
  /** Gives up at `options.deadline` (or the fetcher's own page timeout, whichever comes first). */
  fetch(url: URL, options: CallOptions): Promise<FetchedPage>;
  /**
   * Whether fetching `url` now would cost the site no new request or a quick one (cached, being fetched
   * already, or a fast host with room): the pipeline then reads it with the first results. Optional: a
   * fetcher without it is never asked to read more.
   */
  isCheap?(url: URL): boolean;
  close?(): Promise<void>;
}

/** The main content of a page. */
export interface ExtractedContent {
  readonly url: string;
  readonly title: string;
  /** Plain text, paragraphs separated by blank lines. */
  readonly text: string;
  /** Markdown keeping headings, lists, tables, code and links. */
  readonly markdown: string;
  readonly lang?: string;
  readonly publishedAt?: string;
  readonly canonicalUrl?: string;
  readonly byline?: string;
  readonly siteName?: string;
  /**
   * What kind of page this is (`article`, `documentation`, `service`, `forum`, `collection`, `listing`,
   * `product`), detected from structured data, the URL and the page's shape. HTML pages only.
   */
  readonly pageType?: PageType;
}

/** Turns fetched bytes into main content; `null` when there is nothing worth reading. */
export interface ContentExtractor {
  extract(page: FetchedPage, options: CallOptions): Promise<ExtractedContent | null>;
  /** Gets ready for the first page now (e.g. starts worker threads and loads their modules). */
  warm?(): Promise<void>;
  close?(): Promise<void>;
}

/** A scored piece of a document. */
export interface Passage {
  readonly url: string;
  readonly title: string;
  readonly text: string;
  /** Nearest heading above the passage, if any. */
  readonly heading?: string;
  /** Relevance to the query (higher is better). */
  readonly score: number;
}

/** How much passage text may be handed to the answerer. */
export interface TokenBudget {
  /** Approximate tokens (1 token ≈ 4 characters of English). */
  readonly maxTokens: number;
}

/** Selects the passages that matter, within a token budget, best first. */
export interface PassageRanker {
  rank(query: string, docs: readonly ExtractedContent[], budget: TokenBudget): Promise<Passage[]>;
}

/** Input of an {@link Answerer}. */
export interface AnswerInput {
  /** The user's prompt as sent. */
  readonly prompt: string;
  /** Earlier user messages (non-user roles already removed). */
  readonly context: readonly ChatMessage[];
  /** The standalone query the pipeline searched for. */
  readonly query: string;
  readonly responseType: ResponseType;
  /** Selected passages, best first. */
  readonly passages: readonly Passage[];
  /**
   * Extension (`response_type: "json"`): answer with a JSON object matching this JSON Schema; the
   * output's `answer` is then its JSON text. Only answerers with `structuredOutput: true` accept it.
   */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /**
   * Set by `depth: "research"` when it followed a chain: the sentence (or table row) that resolves the
   * chain's last hop, then the bridge sentences that led to it, first hop first, each with its page. The
   * extractive answerer opens its answer with them; a model reads them among the passages.
   */
  readonly chain?: readonly ChainSentence[];
  /**
   * Set by `depth: "research"` for a yes/no question about two things, or "which of X or Y came first",
   * when the chain's end sentences decide it ("No: Chile for X, United States for Y"), or say that
   * they do not. The extractive answerer opens with it, cited by the pages of those sentences.
   */
  readonly verdict?: AnswerVerdict;
  /** Set by `depth: "research"`: the passages are what research gathered for every part of the question. */
  readonly researched?: boolean;
}

/** A verdict read from a research chain's end sentences, and the pages of those sentences, in order. */
export interface AnswerVerdict {
  readonly text: string;
  readonly urls: readonly string[];
}

/** A sentence of a research chain and the page it stands on. */
export interface ChainSentence {
  readonly text: string;
  readonly url: string;
}

/** Output of an {@link Answerer}. */
export interface AnswerOutput {
  /** Formatted according to the response type, with `[n]` citations. */
  readonly answer: string;
  /** URLs actually cited, in citation order (`[1]` is `sources[0]`). */
  readonly sources: string[];
}

/**
 * One event of a streamed answer: first the candidate `sources`, then text `delta`s whose concatenation is
 * the answer, then `done` with the final answer and the sources actually cited.
 */
export type AnswerEvent =
  | { readonly type: 'sources'; readonly sources: readonly string[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly answer: string; readonly sources: readonly string[] };

/** Writes the answer from the selected passages. */
export interface Answerer {
  /** True when `answer` honours {@link AnswerInput.jsonSchema} (structured output). @default false */
  readonly structuredOutput?: boolean;
  answer(input: AnswerInput, options: CallOptions): Promise<AnswerOutput>;
  /** Streams the answer; answerers without it are streamed as one delta. */
  stream?(input: AnswerInput, options: CallOptions): AsyncIterable<AnswerEvent>;
}
