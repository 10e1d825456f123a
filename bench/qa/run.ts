/**
 * `npm run bench:qa` — end-to-end question answering benchmark on a local Wikipedia web.
 *
 * Starts the local web (SQuAD's 490 articles with boilerplate), a SearXNG-compatible BM25 search endpoint
 * and a fake OpenAI-compatible server, builds the real engine (SearXNG provider → real fetcher → real
 * extractor → default ranker → default answerer) behind the node:http adapter, and sends a fixed
 * stratified sample of SQuAD dev v1.1 questions to `POST /v1/search` over HTTP. Prints Markdown tables.
 *
 *   node bench/qa/run.ts [--data DIR] [--sample 500] [--seed 1] [--concurrency 4] [--k 5]
 *                        [--max-tokens 4000] [--expand-to 40] [--searxng-pages 4]
 *                        [--real-web] [--latency-median 300] [--latency-sigma 0.8] [--hang-share 0.03]
 *                        [--hosts N] [--passes 1] [--concurrency 1,4,8,16 [--plot FILE.png]]
 *                        [--max-latency MS] [--straggler-grace MS] [--min-deeper-page-mentions F]
 *                        [--min-deeper-snippet-coverage F]
 *                        [--model-base-url URL|fake] [--hotpot] [--dump results.json]
 *   node bench/qa/run.ts --handbook [--verbose] [--no-synonyms] [--dump results.json]
 *   node bench/qa/run.ts --multihop [--extractive [--answer-inputs FILE]] [--trace FILE] [--dump FILE]
 *
 * `--real-web` makes the local web answer like the real web: one host per article, a log-normal latency
 * per URL, a share of pages that never answer, and `Cache-Control: no-store`. `--hosts N` spreads the pages
 * over N hosts instead (1: one popular site holding every result). The web and the search endpoint run in a
 * child process (web-process.ts), so this process holds only the engine and the client, and its CPU time per
 * search is the service's. A list of concurrencies runs a sweep (sweep.ts).
 *
 * Stages are observed by wrapping the stage objects handed to createSearchEngine (keyed by the query the
 * pipeline searched for), because the HTTP response carries no per-stage timings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, ENGINE_DEFAULTS, type SearchEngineOptions } from '../../src/engine/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import {
  createPageFetcher,
  FETCHER_DEFAULTS,
  type PageFetcherOptions,
} from '../../src/pipeline/fetch/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import type {
  Answerer,
  ContentExtractor,
  PageFetcher,
  Passage,
  PassageRanker,
  SearchProvider,
} from '../../src/pipeline/types.ts';
import { planQuery } from '../../src/pipeline/query.ts';
import { estimateTokens } from '../../src/text/tokens.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { HOTPOT_DIR, loadDevQuestions, sampleQuestions, SQUAD_DIR, type Question } from './corpus.ts';
import { createFakeLlm, type FakeLlm } from './fake-llm.ts';
import { formatHandbookReport, runHandbookBenchmark } from './handbook.ts';
import { formatMultihopReport, formatMultihopTrace, runMultihopBenchmark } from './multihop.ts';
import { MULTIHOP_DIR } from './multihop-data.ts';
import {
  containsAnswer,
  joinNormalized,
  mean,
  normalizeText,
  percentile,
  type NormalizedText,
} from './metrics.ts';
import { realWebBehaviour, realWebResolver, type RealWebOptions, type WebTraffic } from './squad-web.ts';
import { formatSweep, parseConcurrencyLevels, plotSweep, sweepRow, type SweepRow } from './sweep.ts';
import { startWebProcess } from './web-process.ts';

/** Options of {@link runQaBenchmark}. */
export interface QaBenchmarkOptions {
  /** The data folder holding `squad/` (and `hotpotqa-sample/` with `hotpot`). */
  readonly datasetsDir: string;
  /** Questions in the stratified sample. @default 500 */
  readonly sample?: number;
  /** Seed of the sample and of the page templates. @default 1 */
  readonly seed?: number;
  /** Questions in flight at once. @default 4 */
  readonly concurrency?: number;
  /** Search hits used per question (the engine's `maxResults`). @default 5 */
  readonly k?: number;
  /** Passage token budget (the engine's `maxPassageTokens`). @default 4000 (the engine's default) */
  readonly maxTokens?: number;
  /** Most results read when the first `k` do not cover the question (the engine's `expandToResults`). @default 40 (the engine's default) */
  readonly expandTo?: number;
  /**
   * SearXNG result pages the provider may read (its `pages` option). The local endpoint serves 10 results
   * a page, as one engine does; a real instance merges several engines into one page. @default 4
   */
  readonly searxngPages?: number;
  /**
   * OpenAI-compatible base URL for a model answerer, or `'fake'` for the bundled fake server. Used only if
   * the answer module exports a model answerer factory; otherwise the run notes it and uses the default.
   * @default none (extractive answerer)
   */
  readonly modelBaseUrl?: string;
  /** Model id sent in model mode. @default 'fake-overlap-1' */
  readonly modelId?: string;
  /** Merge the HotpotQA sample pages into the web as extra distractors. @default false */
  readonly hotpot?: boolean;
  /** Restrict the web and the questions to these dev titles, without train distractors (for tests). @default all 490 articles */
  readonly titles?: readonly string[];
  /** Pages answer like the real web (see {@link RealWebOptions}). @default undefined (instant pages) */
  readonly realWeb?: RealWebOptions;
  /**
   * Spread the pages over this many hosts (1: one popular site). @default one host per page in real-web
   * mode, else every page on 127.0.0.1
   */
  readonly hosts?: number;
  /**
   * Times the sample is asked, one pass after the other on the same engine: the first pass starts with
   * empty caches, the next ones find every page read before. Quality figures are the first pass's; CPU
   * time is given per pass. @default 1
   */
  readonly passes?: number;
  /** The engine's content cache (extraction results kept by URL and bytes); false turns it off. @default true */
  readonly contentCache?: boolean;
  /** The page fetcher's per-host limits. @default FETCHER_DEFAULTS */
  readonly perHost?: Pick<PageFetcherOptions, 'perHostConcurrency' | 'perHostRate' | 'perHostBurst'>;
  /** The engine's `maxLatencyMs` (time by which the answer starts). @default the engine's default */
  readonly maxLatencyMs?: number;
  /** The engine's `stragglerGraceMs`. @default the engine's default */
  readonly stragglerGraceMs?: number;
  /** The engine's `minDeeperPageMentions`. @default the engine's default */
  readonly minDeeperPageMentions?: number;
  /** The engine's `minDeeperSnippetCoverage`. @default the engine's default */
  readonly minDeeperSnippetCoverage?: number;
  /** Progress lines go here. @default none */
  readonly log?: (line: string) => void;
}

/** What was observed for one question. */
export interface QuestionResult {
  readonly id: string;
  readonly question: string;
  readonly title: string;
  readonly status: number;
  readonly error?: string;
  readonly answer: string;
  readonly sources: readonly string[];
  /** Rank (1-based) of the gold page among the search results (up to 10), or null. */
  readonly goldSearchRank: number | null;
  readonly goldInSources: boolean;
  readonly goldInDocs: boolean;
  /** Gold answer string in the extracted text of the gold page (when it was fetched). */
  readonly answerInGoldDoc: boolean | null;
  /**
   * Real-web mode: the gold page never answers, or answers after the latency budget (so only its snippet
   * can be used); null with instant pages.
   */
  readonly goldPageLate: boolean | null;
  readonly answerInPassages: boolean;
  readonly answerInWholePages: boolean;
  readonly answerInAnswer: boolean;
  /** Gold answer in the prompt the model server received (model mode only). */
  readonly answerInPrompt: boolean | null;
  readonly passageTokens: number;
  readonly wholePageTokens: number;
  /** Pages fetched and ranked for the question (more than `k` when the pipeline read deeper). */
  readonly pagesRead: number;
  /** Gold answer in all extracted text of every page read. */
  readonly answerInAllPagesRead: boolean;
  readonly promptTokens: number | null;
  /** The response's grounding check (`include: ["citations"]`), null without a 200. */
  readonly grounding: {
    readonly level: string;
    readonly citations: number;
    readonly verified: number;
  } | null;
  readonly timings: Readonly<Record<string, number>>;
}

/** Result of {@link runQaBenchmark}. */
export interface QaBenchmarkReport {
  readonly options: Required<
    Omit<
      QaBenchmarkOptions,
      | 'log'
      | 'modelBaseUrl'
      | 'titles'
      | 'datasetsDir'
      | 'realWeb'
      | 'maxLatencyMs'
      | 'stragglerGraceMs'
      | 'minDeeperPageMentions'
      | 'minDeeperSnippetCoverage'
      | 'hosts'
      | 'contentCache'
      | 'perHost'
    >
  > & {
    hosts: number | null;
    contentCache: boolean;
    perHost: { concurrency: number; rate: number; burst: number };
    modelBaseUrl: string | null;
    realWeb: Required<RealWebOptions> | null;
    maxLatencyMs: number | null;
    stragglerGraceMs: number | null;
    minDeeperPageMentions: number | null;
    minDeeperSnippetCoverage: number | null;
  };
  readonly mode: 'extractive' | 'model';
  readonly notes: readonly string[];
  readonly articles: number;
  readonly results: readonly QuestionResult[];
  /** Requests the local web received, and how many of them it left unanswered on purpose (real-web mode). */
  readonly webRequests: { readonly total: number; readonly hung: number };
  /** The load the first pass put on the local web's hosts (see {@link WebTraffic}). */
  readonly traffic: WebTraffic;
  /**
   * Per pass: CPU time of this process (the engine with its extraction workers, and the client) over the
   * pass divided by its questions, in ms, and pages extracted per question.
   */
  readonly cpu: readonly { readonly msPerSearch: number; readonly extractionsPerSearch: number }[];
  readonly wallSeconds: number;
}

/** What the benchmark reads of a search response. */
interface SearchBody {
  answer?: string;
  sources?: string[];
  response_time?: number;
  error?: string;
  grounding?: { level: string; citations: number; verified_citations: number };
}

interface Observation {
  requestId?: string;
  searchStart?: number;
  searchMs?: number;
  searchEnd?: number;
  hits?: string[];
  fetchMs: number[];
  extractMs: number[];
  rankStart?: number;
  rankEnd?: number;
  rankMs?: number;
  docs?: { url: string; text: string }[];
  passages?: Passage[];
  answerMs?: number;
}

const now = () => performance.now();

/** Runs the benchmark and returns per-question results (see {@link formatReport}). */
export async function runQaBenchmark(options: QaBenchmarkOptions): Promise<QaBenchmarkReport> {
  const sample = options.sample ?? 500;
  const seed = options.seed ?? 1;
  const concurrency = options.concurrency ?? 4;
  const k = options.k ?? 5;
  const maxTokens = options.maxTokens ?? 4000;
  const expandTo = options.expandTo ?? 40;
  const searxngPages = options.searxngPages ?? 4;
  const modelId = options.modelId ?? 'fake-overlap-1';
  const passes = options.passes ?? 1;
  const log = options.log ?? (() => {});
  const counts = {
    sample,
    concurrency,
    k,
    maxTokens,
    expandTo,
    searxngPages,
    passes,
    hosts: options.hosts ?? 1,
  };
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  const notes: string[] = [];
  const started = now();

  const titles = options.titles;
  const realWeb = options.realWeb
    ? { medianMs: 300, sigma: 0.8, hangShare: 0.03, ...options.realWeb }
    : undefined;
  // A page whose response starts after the engine's latency budget cannot be read (its delay alone, not
  // counting search time before the fetch: a lower bound on what the budget cuts).
  const latencyBudgetMs = options.maxLatencyMs ?? ENGINE_DEFAULTS.maxLatencyMs;
  const isLate = (page: { hangs: boolean; delayMs: number }) => page.hangs || page.delayMs > latencyBudgetMs;
  const questions = sampleQuestions(
    loadDevQuestions(options.datasetsDir).filter((question) => !titles || titles.includes(question.title)),
    sample,
    seed,
  );
  // The web and the search endpoint run in a process of their own (see web-process.ts).
  const web = await startWebProcess({
    datasetsDir: options.datasetsDir,
    seed,
    hotpot: options.hotpot ?? false,
    ...(titles ? { titles } : {}),
    ...(realWeb ? { realWeb } : {}),
    ...(options.hosts === undefined ? {} : { hosts: options.hosts }),
  });
  const articles = { length: web.articles };
  log(
    `web of ${articles.length} articles ready in ${((now() - started) / 1000).toFixed(1)} s, sampled ${questions.length} questions`,
  );
  const endpoint = { origin: web.endpointOrigin };
  let fakeLlm: FakeLlm | undefined;
  const servers: Server[] = [];
  const observations = new Map<string, Observation>();
  const byRequestId = new Map<string, Observation>();
  // The latest text read for each URL: kept once while questions wait to be scored, and normalized once
  // when they are (20-40 pages per question, the same pages across questions).
  const pages = new Map<string, { text: string; normalized?: NormalizedText }>();
  const pageOf = ({ url, text }: { url: string; text: string }) => {
    let page = pages.get(url);
    if (page?.text !== text) pages.set(url, (page = { text }));
    return page;
  };
  const internText = (doc: { url: string; text: string }): string => pageOf(doc).text;
  const normalizedPage = (doc: { url: string; text: string }): NormalizedText => {
    const page = pageOf(doc);
    return (page.normalized ??= normalizeText(page.text));
  };
  const observe = (query: string): Observation => {
    let observation = observations.get(query);
    if (!observation) observations.set(query, (observation = { fetchMs: [], extractMs: [] }));
    return observation;
  };

  try {
    const provider = createSearxngProvider({ baseUrl: endpoint.origin, pages: searxngPages });
    const search: SearchProvider = {
      id: provider.id,
      async search(query, call) {
        const observation = observe(query.query);
        observation.requestId = call.requestId;
        byRequestId.set(call.requestId, observation);
        observation.searchStart = now();
        // Ask for at least 10 to measure recall@10; the pipeline still gets its own limit.
        const hits = await provider.search({ ...query, limit: Math.max(query.limit, 10) }, call);
        observation.searchEnd = now();
        observation.searchMs = observation.searchEnd - observation.searchStart;
        observation.hits = hits.map((hit) => hit.url);
        return hits.slice(0, query.limit);
      },
    };
    const realFetcher = createPageFetcher({
      ...options.perHost,
      allowPrivateAddresses: ['127.0.0.1'],
      ...(realWeb || options.hosts !== undefined ? { resolver: realWebResolver } : {}),
    });
    const fetcher: PageFetcher = {
      async fetch(url, call) {
        const start = now();
        try {
          return await realFetcher.fetch(url, call);
        } finally {
          byRequestId.get(call.requestId)?.fetchMs.push(now() - start);
        }
      },
      isCheap: (url) => realFetcher.isCheap(url),
      close: () => realFetcher.close?.() ?? Promise.resolve(),
    };
    const realExtractor = createContentExtractor();
    // As `citewise serve` does at start: the first question does not pay for the workers' start.
    await realExtractor.warm?.();
    let extractions = 0;
    const extractor: ContentExtractor = {
      async extract(page, call) {
        extractions++;
        const start = now();
        try {
          return await realExtractor.extract(page, call);
        } finally {
          byRequestId.get(call.requestId)?.extractMs.push(now() - start);
        }
      },
      close: () => realExtractor.close?.() ?? Promise.resolve(),
    };
    const realRanker = createBm25Ranker();
    const ranker: PassageRanker = {
      async rank(query, docs, budget) {
        const observation = observe(query);
        const rankStart = now();
        observation.rankStart ??= rankStart;
        const passages = await realRanker.rank(query, docs, budget);
        observation.rankEnd = now();
        // The pipeline ranks twice when it reads deeper; both count.
        observation.rankMs = (observation.rankMs ?? 0) + (observation.rankEnd - rankStart);
        // Kept until the question is scored: the URL and text only, one copy of each page's text.
        observation.docs = docs.map((doc) => ({ url: doc.url, text: internText(doc) }));
        observation.passages = passages;
        return passages;
      },
    };

    let realAnswerer: Answerer = createExtractiveAnswerer();
    let mode: 'extractive' | 'model' = 'extractive';
    if (options.modelBaseUrl) {
      const answerModule = (await import('../../src/pipeline/answer/index.ts')) as Record<string, unknown>;
      const factory = answerModule.createModelAnswerer;
      if (typeof factory !== 'function') {
        notes.push(
          'Model mode skipped: src/pipeline/answer exports no `createModelAnswerer` yet; the extractive answerer ran instead.',
        );
      } else {
        let baseURL = options.modelBaseUrl;
        if (baseURL === 'fake') {
          fakeLlm = await createFakeLlm({ models: [modelId] });
          baseURL = fakeLlm.baseUrl;
        }
        const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
        const model = createOpenAICompatible({ baseURL, name: 'bench' })(modelId);
        realAnswerer = (factory as (o: { model: unknown }) => Answerer)({ model });
        mode = 'model';
        notes.push(`Model mode: createModelAnswerer({ model }) with ${modelId} at ${baseURL}.`);
      }
    }
    const answerer: Answerer = {
      async answer(input, call) {
        const start = now();
        try {
          return await realAnswerer.answer(input, call);
        } finally {
          observe(input.query).answerMs = now() - start;
        }
      },
    };

    const engineOptions: SearchEngineOptions = {
      search,
      fetcher,
      extractor,
      ranker,
      answerer,
      rateLimiter: false,
      maxResults: k,
      expandToResults: expandTo,
      maxPassageTokens: maxTokens,
      maxConcurrentSearches: concurrency,
      maxQueuedSearches: Math.max(64, concurrency * 4),
      // One client key asks every question: it may use every slot (the fair share is for several tenants).
      maxAccountShare: 1,
      requestTimeoutMs: 60_000,
      ...(options.contentCache === false ? { contentCache: false } : {}),
      ...(options.maxLatencyMs === undefined ? {} : { maxLatencyMs: options.maxLatencyMs }),
      ...(options.stragglerGraceMs === undefined ? {} : { stragglerGraceMs: options.stragglerGraceMs }),
      ...(options.minDeeperPageMentions === undefined
        ? {}
        : { minDeeperPageMentions: options.minDeeperPageMentions }),
      ...(options.minDeeperSnippetCoverage === undefined
        ? {}
        : { minDeeperSnippetCoverage: options.minDeeperSnippetCoverage }),
    };
    const engine = createSearchEngine(engineOptions);
    const server = createServer(createNodeHandler(engine));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const apiOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { key } = await engine.createKey({ credits: 10_000_000, name: 'bench:qa' });

    // Scoring reads 20-40 pages per question: it runs after the last question, not on the engine's
    // thread while other questions are being measured.
    const scorers: (() => QuestionResult)[] = new Array<() => QuestionResult>(questions.length);
    let nextIndex = 0;
    let done = 0;
    const worker = async () => {
      for (;;) {
        const i = nextIndex++;
        const question = questions[i];
        if (question === undefined) return;
        const scorer = await askOne(question);
        // Later passes ask the same questions again for their CPU time; quality is the first pass's.
        scorers[i] ??= scorer;
        if (++done % 50 === 0)
          log(
            `${done}/${questions.length} questions (heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB)`,
          );
      }
    };

    const askOne = async (question: Question): Promise<() => QuestionResult> => {
      const start = now();
      let status = 0;
      let body: SearchBody = {};
      try {
        const response = await fetch(`${apiOrigin}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: question.question, response_type: 'text', include: ['citations'] }),
        });
        status = response.status;
        body = (await response.json()) as typeof body;
      } catch (error) {
        body = { error: String(error) };
      }
      const total = now() - start;
      const observation = observations.get(planQuery(question.question, []));
      return () => score(question, status, body, total, start, observation);
    };

    const score = (
      question: Question,
      status: number,
      body: SearchBody,
      total: number,
      start: number,
      observation: Observation | undefined,
    ): QuestionResult => {
      const goldUrl = web.urlFor(question.title);
      const hits = observation?.hits ?? [];
      const rank = hits.indexOf(goldUrl);
      const docs = observation?.docs ?? [];
      const passages = observation?.passages ?? [];
      const goldDoc = docs.find((doc) => doc.url === goldUrl);
      const normalizedDocs = new Map(docs.map((doc) => [doc, normalizedPage(doc)]));
      const passageText = passages.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text)).join('\n\n');
      // Whole pages of the first k results: what sending whole pages instead of passages would cost.
      const firstK = new Set(hits.slice(0, k));
      const wholeText = docs
        .filter((doc) => firstK.has(doc.url))
        .map((doc) => doc.text)
        .join('\n\n');
      const normalizedWhole = joinNormalized(
        docs.filter((doc) => firstK.has(doc.url)).map((doc) => normalizedDocs.get(doc)!),
      );
      const normalizedAllRead = joinNormalized([...normalizedDocs.values()]);
      // Up to 40 extracted pages per question: keep them only until the question is scored.
      if (observation) delete observation.docs;
      const answer = body.answer ?? '';
      const searchStart = observation?.searchStart ?? start;
      const timings: Record<string, number> = {
        before_search: searchStart - start,
        search: observation?.searchMs ?? Number.NaN,
        fetch_max: observation?.fetchMs.length ? Math.max(...observation.fetchMs) : Number.NaN,
        extract_max: observation?.extractMs.length ? Math.max(...observation.extractMs) : Number.NaN,
        gather:
          observation?.rankEnd !== undefined && observation.searchEnd !== undefined
            ? observation.rankEnd - observation.searchEnd - (observation.rankMs ?? 0)
            : Number.NaN,
        rank: observation?.rankMs ?? Number.NaN,
        answer: observation?.answerMs ?? Number.NaN,
        server_total: body.response_time ?? Number.NaN,
        client_total: total,
      };
      return {
        id: question.id,
        question: question.question,
        title: question.title,
        status,
        ...(body.error
          ? { error: typeof body.error === 'string' ? body.error : JSON.stringify(body.error) }
          : {}),
        answer,
        sources: body.sources ?? [],
        goldSearchRank: rank >= 0 ? rank + 1 : null,
        goldInSources: (body.sources ?? []).includes(goldUrl),
        goldInDocs: goldDoc !== undefined,
        answerInGoldDoc: goldDoc ? containsAnswer(normalizedDocs.get(goldDoc)!, question.answers) : null,
        goldPageLate: realWeb ? isLate(realWebBehaviour(goldUrl, seed, realWeb)) : null,
        answerInPassages: containsAnswer(passageText, question.answers),
        answerInWholePages: containsAnswer(normalizedWhole, question.answers),
        answerInAnswer: containsAnswer(answer, question.answers),
        answerInPrompt: null,
        passageTokens: estimateTokens(passageText),
        wholePageTokens: estimateTokens(wholeText),
        pagesRead: docs.length,
        answerInAllPagesRead: containsAnswer(normalizedAllRead, question.answers),
        promptTokens: null,
        grounding: body.grounding
          ? {
              level: body.grounding.level,
              citations: body.grounding.citations,
              verified: body.grounding.verified_citations,
            }
          : null,
        timings,
      };
    };

    log(`engine on ${apiOrigin}; running ${questions.length} questions with concurrency ${concurrency}`);
    const cpu: { msPerSearch: number; extractionsPerSearch: number }[] = [];
    let traffic: WebTraffic | undefined;
    for (let pass = 0; pass < passes; pass++) {
      nextIndex = 0;
      done = 0;
      extractions = 0;
      // The first pass's scorers hold their observations; later passes record into new ones.
      observations.clear();
      byRequestId.clear();
      // process.cpuUsage covers every thread of the process: the extraction workers too.
      const before = process.cpuUsage();
      await Promise.all(Array.from({ length: concurrency }, worker));
      const used = process.cpuUsage(before);
      cpu.push({
        msPerSearch: (used.user + used.system) / 1000 / questions.length,
        extractionsPerSearch: extractions / questions.length,
      });
      traffic ??= await web.traffic();
    }
    const results = scorers.map((scoreQuestion) => scoreQuestion());

    let finalResults = results;
    if (fakeLlm) finalResults = attachPrompts(results, questions, fakeLlm);
    await engine.close();
    const finalTraffic = await web.traffic();
    return {
      options: {
        sample,
        seed,
        concurrency,
        k,
        maxTokens,
        expandTo,
        searxngPages,
        modelId,
        hotpot: options.hotpot ?? false,
        passes,
        hosts: options.hosts ?? null,
        contentCache: options.contentCache ?? true,
        perHost: {
          concurrency: options.perHost?.perHostConcurrency ?? FETCHER_DEFAULTS.perHostConcurrency,
          rate: options.perHost?.perHostRate ?? FETCHER_DEFAULTS.perHostRate,
          burst: options.perHost?.perHostBurst ?? FETCHER_DEFAULTS.perHostBurst,
        },
        modelBaseUrl: options.modelBaseUrl ?? null,
        realWeb: realWeb ?? null,
        maxLatencyMs: options.maxLatencyMs ?? null,
        stragglerGraceMs: options.stragglerGraceMs ?? null,
        minDeeperPageMentions: options.minDeeperPageMentions ?? null,
        minDeeperSnippetCoverage: options.minDeeperSnippetCoverage ?? null,
      },
      mode,
      notes,
      articles: articles.length,
      results: finalResults,
      webRequests: { total: finalTraffic.requests, hung: finalTraffic.hung },
      traffic: traffic ?? finalTraffic,
      cpu,
      wallSeconds: (now() - started) / 1000,
    };
  } finally {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
    await Promise.all([web.close(), fakeLlm?.close()]);
  }
}

/** Model mode: answer-in-prompt and prompt tokens from what the fake server recorded. */
function attachPrompts(
  results: readonly QuestionResult[],
  questions: readonly Question[],
  llm: FakeLlm,
): QuestionResult[] {
  const byQuestion = new Map(questions.map((q) => [q.question.trim(), q]));
  const prompts = new Map<string, { text: string; tokens: number }>();
  for (const request of llm.requests) {
    const lines = request.messages.filter((m) => m.role === 'user').flatMap((m) => m.content.split('\n'));
    for (const line of lines) {
      // The question may carry a label ("Question: …").
      const text = line.trim();
      const question = byQuestion.get(text) ?? byQuestion.get(text.replace(/^(?:question|q)\s*:\s*/iu, ''));
      if (!question) continue;
      // The answer counts as in the prompt only outside the question line itself.
      const context = request.promptText
        .split('\n')
        .filter((l) => l !== line)
        .join('\n');
      prompts.set(question.id, { text: context, tokens: request.promptTokens });
    }
  }
  return results.map((result) => {
    const prompt = prompts.get(result.id);
    const question = questions.find((q) => q.id === result.id)!;
    return prompt
      ? {
          ...result,
          answerInPrompt: containsAnswer(prompt.text, question.answers),
          promptTokens: prompt.tokens,
        }
      : result;
  });
}

/** The politeness line: the load the first pass put on the busiest host, and how often a page was fetched. */
export function formatPoliteness(report: QaBenchmarkReport): string {
  const { traffic } = report;
  return `Politeness (first pass, ${traffic.hosts} host${traffic.hosts === 1 ? '' : 's'} reached): at the peak ${traffic.peakHostRequestsPerSecond} requests in one second and ${traffic.peakHostInFlight} in flight to one host; ${traffic.pageRequests} page requests, each page fetched ${fmt(traffic.meanFetchesPerPage, 2)} times on average, ${traffic.maxFetchesOfOnePage} at most.`;
}

/** The CPU line: this process's CPU time (engine, extraction workers, client) per search, per pass. */
export function formatCpu(report: QaBenchmarkReport): string {
  const passes = report.cpu.map(
    (pass, i) =>
      `${fmt(pass.msPerSearch, 1)} ms ${i === 0 ? '(pass 1, caches empty at the start)' : `(pass ${i + 1}, warm)`}, ${fmt(pass.extractionsPerSearch, 1)} pages extracted`,
  );
  return `CPU time per search (the engine's process, extraction workers included; web and search endpoint in another process): ${passes.join('; ')}.`;
}

const share = (values: readonly boolean[]) =>
  values.length === 0 ? 'n/a' : (values.filter(Boolean).length / values.length).toFixed(3);
const fmt = (value: number, digits = 0) => (Number.isNaN(value) ? 'n/a' : value.toFixed(digits));

/** The report as Markdown tables. */
export function formatReport(report: QaBenchmarkReport): string {
  const { results, options } = report;
  const ok = results.filter((r) => r.status === 200);
  const recallAt = (n: number) =>
    share(results.map((r) => r.goldSearchRank !== null && r.goldSearchRank <= n));
  const mrr = mean(results.map((r) => (r.goldSearchRank === null ? 0 : 1 / r.goldSearchRank)));
  const withGoldDoc = results.filter((r) => r.answerInGoldDoc !== null);
  const grounded = results.filter((r) => r.grounding !== null && r.sources.length > 0);
  const citationCount = grounded.reduce((sum, r) => sum + (r.grounding?.citations ?? 0), 0);
  const verifiedCount = grounded.reduce((sum, r) => sum + (r.grounding?.verified ?? 0), 0);
  const lines: string[] = [];
  const hostsText =
    options.hosts === null
      ? options.realWeb
        ? 'one host per page'
        : 'one host'
      : `${options.hosts} host${options.hosts === 1 ? '' : 's'}`;
  const web = options.realWeb
    ? `real-web pages (${hostsText}, latency log-normal median ${options.realWeb.medianMs} ms sigma ${options.realWeb.sigma}, ${options.realWeb.hangShare * 100}% never answer, no-store)`
    : `instant pages (${hostsText})`;
  const engineSettings = [
    options.maxLatencyMs === null ? '' : `maxLatencyMs ${options.maxLatencyMs}`,
    options.stragglerGraceMs === null ? '' : `stragglerGraceMs ${options.stragglerGraceMs}`,
    options.minDeeperPageMentions === null ? '' : `minDeeperPageMentions ${options.minDeeperPageMentions}`,
    options.minDeeperSnippetCoverage === null
      ? ''
      : `minDeeperSnippetCoverage ${options.minDeeperSnippetCoverage}`,
    options.contentCache ? '' : 'content cache off',
    `per host: ${options.perHost.concurrency} in flight, ${options.perHost.rate}/s, burst ${options.perHost.burst}`,
  ].filter(Boolean);
  const total = (r: QuestionResult) => r.timings['client_total'] ?? Number.NaN;
  const stage = (name: string) =>
    results.map((r) => r.timings[name] ?? Number.NaN).filter((v) => !Number.isNaN(v));
  const p50p95 = (values: number[]) => `${fmt(percentile(values, 50))} / ${fmt(percentile(values, 95))}`;
  lines.push(
    `### bench:qa — ${results.length} SQuAD dev v1.1 questions (stratified over ${new Set(results.map((r) => r.title)).size} articles, seed ${options.seed}), ${report.articles} pages, ${web}, k = ${options.k} read first, up to ${options.expandTo} when uncovered, budget ${options.maxTokens} tokens, ${report.mode} answerer, concurrency ${options.concurrency}${engineSettings.length ? `, ${engineSettings.join(', ')}` : ''}`,
    '',
    'Latency next to quality (ms, p50 / p95):',
    '',
    '| answer in context | total (client) | search | gather (fetch + extract) | rank | answer |',
    '|---|---|---|---|---|---|',
    `| **${share(results.map((r) => r.answerInPassages))}** | **${p50p95(results.map(total).filter((v) => !Number.isNaN(v)))}** | ${p50p95(stage('search'))} | ${p50p95(stage('gather'))} | ${p50p95(stage('rank'))} | ${p50p95(stage('answer'))} |`,
    '',
    `Local web: ${report.webRequests.total} requests${options.realWeb ? `, ${report.webRequests.hung} left unanswered on purpose` : ''}.`,
    '',
    formatPoliteness(report),
    '',
    formatCpu(report),
    '',
    '| metric | value |',
    '|---|---|',
    `| HTTP 200 | ${ok.length} / ${results.length} |`,
    `| gold article in search results R@1 / R@5 / R@10 / R@${options.expandTo} | ${recallAt(1)} / ${recallAt(5)} / ${recallAt(10)} / ${recallAt(options.expandTo)} (MRR@10 ${fmt(mrr, 3)}) |`,
    `| pages read per question: mean / p50 / p95 (questions that read past ${options.k}) | ${fmt(mean(results.map((r) => r.pagesRead)), 1)} / ${fmt(
      percentile(
        results.map((r) => r.pagesRead),
        50,
      ),
    )} / ${fmt(
      percentile(
        results.map((r) => r.pagesRead),
        95,
      ),
    )} (${share(results.map((r) => r.pagesRead > options.k))}) |`,
    `| gold article among fetched+extracted pages | ${share(results.map((r) => r.goldInDocs))} |`,
    `| gold article among \`sources\` | ${share(results.map((r) => r.goldInSources))} |`,
    `| answer kept by extraction (gold page fetched: ${withGoldDoc.length}) | ${share(withGoldDoc.map((r) => r.answerInGoldDoc === true))} |`,
    ...(options.realWeb
      ? [
          `| gold page never answers or answers after the latency budget (only its snippet can be used) | ${share(results.map((r) => r.goldPageLate === true))} |`,
        ]
      : []),
    `| **answer in context** (selected passages, budget ${options.maxTokens}) | **${share(results.map((r) => r.answerInPassages))}** |`,
    `| answer in whole pages (all extracted text of top ${options.k}) | ${share(results.map((r) => r.answerInWholePages))} |`,
    `| answer in all pages read (all extracted text) | ${share(results.map((r) => r.answerInAllPagesRead))} |`,
    `| answer contained in final answer | ${share(results.map((r) => r.answerInAnswer))} |`,
    `| citations verified against their page (${citationCount} citations) | ${citationCount ? fmt(verifiedCount / citationCount, 3) : 'n/a'} |`,
    `| answers with grounding full / partial / none (${grounded.length} answers with sources) | ${['full', 'partial', 'none'].map((level) => share(grounded.map((r) => r.grounding?.level === level))).join(' / ')} |`,
  );
  const prompted = results.filter((r) => r.answerInPrompt !== null);
  if (prompted.length > 0) {
    lines.push(
      `| answer in the prompt the model server received (${prompted.length} prompts) | ${share(prompted.map((r) => r.answerInPrompt === true))} |`,
    );
  }
  lines.push(
    '',
    "Context size per question (tokens ≈ characters / 4, the project's `estimateTokens`):",
    '',
    '| context | answer-in-context | mean tokens | p50 | p95 |',
    '|---|---|---|---|---|',
  );
  const tokenRow = (label: string, recall: string, values: number[]) =>
    `| ${label} | ${recall} | ${fmt(mean(values))} | ${fmt(percentile(values, 50))} | ${fmt(percentile(values, 95))} |`;
  lines.push(
    tokenRow(
      `selected passages (budget ${options.maxTokens})`,
      share(results.map((r) => r.answerInPassages)),
      results.map((r) => r.passageTokens),
    ),
    tokenRow(
      `whole pages (top ${options.k})`,
      share(results.map((r) => r.answerInWholePages)),
      results.map((r) => r.wholePageTokens),
    ),
  );
  if (prompted.length > 0) {
    lines.push(
      tokenRow(
        'model prompt (recorded by the fake server)',
        share(prompted.map((r) => r.answerInPrompt === true)),
        prompted.map((r) => r.promptTokens ?? 0),
      ),
    );
  }
  lines.push(
    '',
    'Time per question in ms (engine and client in one process, web and search endpoint in another; 2 shared cores):',
    '',
    '| stage | p50 | p95 |',
    '|---|---|---|',
  );
  const stageLabels: Record<string, string> = {
    before_search: 'HTTP + auth + queue + plan (client send → search start)',
    search: 'search (SearXNG endpoint, BM25)',
    fetch_max: 'fetch (slowest page of the question)',
    extract_max: 'extract (slowest page of the question)',
    gather: 'gather (fetch + extract, all pages in parallel)',
    rank: 'rank (passage selection)',
    answer: 'answer',
    server_total: 'total (server `response_time`)',
    client_total: 'total (client round trip)',
  };
  for (const [stage, label] of Object.entries(stageLabels)) {
    const values = results.map((r) => r.timings[stage] ?? Number.NaN).filter((v) => !Number.isNaN(v));
    lines.push(`| ${label} | ${fmt(percentile(values, 50), 1)} | ${fmt(percentile(values, 95), 1)} |`);
  }
  const failures = results.filter((r) => r.status !== 200);
  if (failures.length > 0) {
    lines.push(
      '',
      `Failures: ${failures
        .slice(0, 5)
        .map((r) => `${r.status} ${r.error ?? ''}`)
        .join('; ')}`,
    );
  }
  for (const note of report.notes) lines.push('', `Note: ${note}`);
  lines.push('', `Wall time ${report.wallSeconds.toFixed(0)} s.`);
  return lines.join('\n');
}

const HELP = `Usage: node bench/qa/run.ts [options]

  --data DIR              folder holding squad/ (env CITEWISE_DATASETS; default: the shared datasets folder beside the checkout)
  --sample N              questions in the stratified sample (default 500)
  --seed S                seed of the sample, the page templates and the real-web draws (default 1)
  --concurrency C         questions in flight (default 4); a list (1,4,8,16) runs a sweep: one run per
                          level, then one table of p50 / p95 / answer in context per level
  --plot FILE.png         with a sweep: draw p50 and p95 against answer in context per level
  --hosts N               spread the pages over N hosts (1 = one popular site holding every result;
                          default: one host per page in real-web mode, one host with instant pages)
  --passes P              ask the sample P times on one engine; CPU time is given per pass (default 1)
  --no-content-cache      turn the engine's content cache off (every page read is extracted)
  --per-host-concurrency N, --per-host-rate R, --per-host-burst B
                          the page fetcher's per-host limits (default: its FETCHER_DEFAULTS)
  --k K                   search results read first (default 5)
  --max-tokens T          passage token budget (default 4000)
  --expand-to N           most results read when the first k do not cover the question (default 40)
  --searxng-pages P       SearXNG result pages the provider may read (default 4)
  --real-web              pages answer like the real web: one host per page, log-normal latency per URL,
                          a share of pages that never answer, Cache-Control: no-store
  --latency-median MS     real-web median latency (default 300)
  --latency-sigma S       real-web log-normal sigma (default 0.8)
  --hang-share F          real-web share of pages that never answer (default 0.03)
  --max-latency MS        the engine's maxLatencyMs (default: the engine's)
  --straggler-grace MS    the engine's stragglerGraceMs (default: the engine's)
  --min-deeper-page-mentions F  the engine's minDeeperPageMentions (default: the engine's; 0 = off)
  --min-deeper-snippet-coverage F  the engine's minDeeperSnippetCoverage (default: the engine's; 0 = off)
  --model-base-url URL    OpenAI-compatible server for a model answerer, or "fake"
  --model ID              model id in model mode (default fake-overlap-1)
  --hotpot                add the HotpotQA sample pages as distractors
  --dump FILE             write per-question results as JSON

Multi-hop mode (HotpotQA, 2WikiMultiHopQA and MuSiQue over one local web of their paragraphs):
  --multihop              run bench/qa/multihop.ts: evidence complete per benchmark, question type and depth
  --depths LIST           depths compared (default standard,deep,research)
  --sample N              with --multihop: most questions per benchmark (default all)
  --concurrency C         with --multihop: default 2
  --max-latency MS        with --multihop: max_latency_ms of every request (default 15000)
  --extractive            with --multihop: answer with the extractive answerer (measures answers only)
  --trace FILE            with --multihop: write each question whose evidence is incomplete (its facts, pages
                          read, research rounds) as Markdown
  --answer-inputs FILE    with --multihop --extractive: write what the answerer was given for each question
                          (JSON lines) for node bench/qa/multihop-reanswer.ts

Handbook mode (test/fixtures/handbook/ as the corpus, test/fixtures/handbook-questions.json):
  --handbook              answered right, answers with another row's value, answer sentences off the question
  --verbose               with --handbook: print each question and its answer
  --depths LIST           with --handbook: the depths asked, one table each (default standard)
  --no-synonyms           with --handbook: ask without the operator's synonym rules (test/fixtures/handbook-synonyms.txt)
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'real-web': { type: 'boolean', default: false },
      'latency-median': { type: 'string', default: '300' },
      'latency-sigma': { type: 'string', default: '0.8' },
      'hang-share': { type: 'string', default: '0.03' },
      'max-latency': { type: 'string' },
      'straggler-grace': { type: 'string' },
      'min-deeper-page-mentions': { type: 'string' },
      'min-deeper-snippet-coverage': { type: 'string' },
      help: { type: 'boolean', default: false },
      sample: { type: 'string', default: '500' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '4' },
      k: { type: 'string', default: '5' },
      'max-tokens': { type: 'string', default: '4000' },
      'expand-to': { type: 'string', default: '40' },
      'searxng-pages': { type: 'string', default: '4' },
      'model-base-url': { type: 'string' },
      model: { type: 'string', default: 'fake-overlap-1' },
      hotpot: { type: 'boolean', default: false },
      dump: { type: 'string' },
      hosts: { type: 'string' },
      passes: { type: 'string', default: '1' },
      'no-content-cache': { type: 'boolean', default: false },
      'per-host-concurrency': { type: 'string' },
      'per-host-rate': { type: 'string' },
      'per-host-burst': { type: 'string' },
      plot: { type: 'string' },
      multihop: { type: 'boolean', default: false },
      extractive: { type: 'boolean', default: false },
      trace: { type: 'string' },
      'answer-inputs': { type: 'string' },
      depths: { type: 'string' },
      ids: { type: 'string' },
      handbook: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'no-synonyms': { type: 'boolean', default: false },
      ...DATA_OPTION,
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.multihop) {
    await runMultihopMode(values);
    return;
  }
  if (values.handbook) {
    const depths = (values.depths ?? 'standard').split(',').map((d) => d.trim());
    const dumped: Record<string, unknown> = {};
    for (const depth of depths) {
      if (depth !== 'standard' && depth !== 'deep' && depth !== 'research') {
        throw new Error(`--depths: unknown depth ${depth} (standard, deep or research)`);
      }
      const results = await runHandbookBenchmark({
        depth,
        ...(values.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
        ...(values['no-synonyms'] ? { synonymsFile: false as const } : {}),
      });
      dumped[depth] = results;
      process.stdout.write(`${formatHandbookReport(results, depth)}\n\n`);
    }
    if (values.dump)
      writeFileSync(values.dump, JSON.stringify(depths.length === 1 ? dumped[depths[0]!] : dumped, null, 2));
    return;
  }
  const datasetsDir = resolveDatasetsDir(values.data, [SQUAD_DIR, ...(values.hotpot ? [HOTPOT_DIR] : [])]);
  const levels = parseConcurrencyLevels(values.concurrency);
  const rows: SweepRow[] = [];
  for (const concurrency of levels) {
    const report = await runQaBenchmark({
      datasetsDir,
      ...(values['real-web']
        ? {
            realWeb: {
              medianMs: Number(values['latency-median']),
              sigma: Number(values['latency-sigma']),
              hangShare: Number(values['hang-share']),
            },
          }
        : {}),
      ...(values['max-latency'] ? { maxLatencyMs: Number(values['max-latency']) } : {}),
      ...(values['straggler-grace'] ? { stragglerGraceMs: Number(values['straggler-grace']) } : {}),
      ...(values['min-deeper-page-mentions']
        ? { minDeeperPageMentions: Number(values['min-deeper-page-mentions']) }
        : {}),
      ...(values['min-deeper-snippet-coverage']
        ? { minDeeperSnippetCoverage: Number(values['min-deeper-snippet-coverage']) }
        : {}),
      ...(values.hosts ? { hosts: Number(values.hosts) } : {}),
      sample: Number(values.sample),
      seed: Number(values.seed),
      concurrency,
      passes: Number(values.passes),
      ...(values['no-content-cache'] ? { contentCache: false } : {}),
      perHost: {
        ...(values['per-host-concurrency']
          ? { perHostConcurrency: Number(values['per-host-concurrency']) }
          : {}),
        ...(values['per-host-rate'] ? { perHostRate: Number(values['per-host-rate']) } : {}),
        ...(values['per-host-burst'] ? { perHostBurst: Number(values['per-host-burst']) } : {}),
      },
      k: Number(values.k),
      maxTokens: Number(values['max-tokens']),
      expandTo: Number(values['expand-to']),
      searxngPages: Number(values['searxng-pages']),
      modelId: values.model,
      hotpot: values.hotpot,
      ...(values['model-base-url'] ? { modelBaseUrl: values['model-base-url'] } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    if (values.dump) {
      const file = levels.length > 1 ? values.dump.replace(/(\.json)?$/, `-c${concurrency}$1`) : values.dump;
      writeFileSync(file, JSON.stringify(report, null, 2));
    }
    process.stdout.write(`${formatReport(report)}\n\n`);
    rows.push(sweepRow(report));
  }
  if (levels.length > 1) {
    process.stdout.write(`### Concurrency sweep\n\n${formatSweep(rows)}\n`);
    if (values.plot) {
      const where = values['real-web'] ? 'SIMULATED REAL WEB' : 'INSTANT PAGES';
      const hosts = values.hosts ? `, ${values.hosts} HOST${values.hosts === '1' ? '' : 'S'}` : '';
      writeFileSync(values.plot, plotSweep(rows, `BENCH:QA ON THE ${where}${hosts}: SEARCHES IN FLIGHT`));
    }
  }
}

/** `--multihop`: the multi-hop benchmark, with the flags it shares (defaults of its own where unset). */
async function runMultihopMode(values: {
  data?: string | undefined;
  sample?: string | undefined;
  seed?: string | undefined;
  concurrency?: string | undefined;
  depths?: string | undefined;
  ids?: string | undefined;
  extractive?: boolean | undefined;
  dump?: string | undefined;
  trace?: string | undefined;
  'answer-inputs'?: string | undefined;
  'max-latency'?: string | undefined;
}): Promise<void> {
  const given = (name: string) =>
    process.argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  const datasetsDir = resolveDatasetsDir(values.data, [MULTIHOP_DIR]);
  const report = await runMultihopBenchmark({
    datasetsDir,
    ...(given('sample') ? { sample: Number(values.sample) } : {}),
    seed: Number(values.seed),
    ...(given('concurrency') ? { concurrency: Number(values.concurrency) } : {}),
    ...(values.depths ? { depths: values.depths.split(',').map((d) => d.trim()) } : {}),
    ...(values.ids ? { ids: values.ids.split(',') } : {}),
    ...(values.extractive ? { extractive: true } : {}),
    ...(values['answer-inputs'] ? { answerInputs: values['answer-inputs'] } : {}),
    ...(values['max-latency'] ? { maxLatencyMs: Number(values['max-latency']) } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (values.dump) writeFileSync(values.dump, JSON.stringify(report, null, 2));
  if (values.trace) writeFileSync(values.trace, `${formatMultihopTrace(report)}\n`);
  process.stdout.write(`${formatMultihopReport(report)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
