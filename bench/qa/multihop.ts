/**
 * `npm run bench:qa -- --multihop` — multi-hop question answering on a local Wikipedia web.
 *
 * Serves every paragraph of the multi-hop development sets (HotpotQA, 2WikiMultiHopQA, MuSiQue; see
 * multihop-data.ts) as one page per title with the QA benchmark's boilerplate, a SearXNG-format BM25 search
 * over them, and the recording stand-in model (fake-llm.ts) as the answerer's model; builds the real engine
 * behind the node:http adapter and asks every question over HTTP at each depth (`standard`, `deep`,
 * `research` by default, one after the other, the same questions). A question's evidence is complete when
 * every supporting fact's sentence stands in the prompt the model server received.
 *
 *   node bench/qa/multihop.ts [--data DIR] [--sample N] [--seed S] [--concurrency 2]
 *                             [--depths standard,deep,research] [--max-latency 15000] [--dump FILE]
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine } from '../../src/engine/index.ts';
import { createExtractiveAnswerer, createModelAnswerer } from '../../src/pipeline/answer/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createSearxngProvider } from '../../src/pipeline/search/providers/searxng.ts';
import type { AnswerInput, Answerer, PageFetcher, SearchProvider } from '../../src/pipeline/types.ts';
import { createRandom } from './corpus.ts';
import { createFakeLlm, type RecordedRequest } from './fake-llm.ts';
import { containsAnswer, mean, percentile } from './metrics.ts';
import {
  compactText,
  factsInPrompt,
  loadMultihop,
  MULTIHOP_BENCHMARKS,
  type MultihopQuestion,
} from './multihop-data.ts';
import { createArticleIndex, createSearchEndpoint } from './search-endpoint.ts';
import { createSquadWeb } from './squad-web.ts';

/** The depths compared. */
export const MULTIHOP_DEPTHS = ['standard', 'deep', 'research'] as const;

/** Options of {@link runMultihopBenchmark}. */
export interface MultihopBenchmarkOptions {
  /** The data folder holding `multihop-dev/`. */
  readonly datasetsDir: string;
  /** Most questions per benchmark (a seeded sample); all when unset. @default all */
  readonly sample?: number;
  /** Seed of the sample and of the page templates. @default 1 */
  readonly seed?: number;
  /** Questions in flight at once. @default 2 */
  readonly concurrency?: number;
  /** Depths asked, in order. @default ['standard', 'deep', 'research'] */
  readonly depths?: readonly string[];
  /** `max_latency_ms` of every request. @default 15000 */
  readonly maxLatencyMs?: number;
  /**
   * Let the stand-in model plan queries (`deep` sub-queries, research plans). It answers with a sentence of
   * its prompt, not a plan, so this measures the fallbacks. @default false
   */
  readonly planWithModel?: boolean;
  /**
   * Answer with the extractive answerer instead of the stand-in model (no prompt is recorded then: only
   * the answers are measured). @default false
   */
  readonly extractive?: boolean;
  /**
   * With `extractive`: write what the answerer was given for each question (one JSON `AnswerInput` a line)
   * to this file, for `node bench/qa/multihop-reanswer.ts` to answer the same inputs again with other
   * answering code. @default none
   */
  readonly answerInputs?: string;
  /** Only questions whose id is listed (for looking at a few). @default all */
  readonly ids?: readonly string[];
  readonly log?: (line: string) => void;
}

/** What was observed for one question at one depth. */
export interface MultihopResult {
  readonly id: string;
  readonly benchmark: string;
  readonly type: string;
  readonly depth: string;
  readonly question: string;
  readonly status: number;
  readonly answer: string;
  readonly sources: readonly string[];
  /** Per supporting fact: whether its sentence stood in the answerer's prompt. */
  readonly facts: readonly boolean[];
  readonly evidenceComplete: boolean;
  readonly answerInContext: boolean;
  readonly answerInAnswer: boolean;
  readonly promptChars: number;
  readonly pages: number;
  readonly searches: number;
  readonly modelCalls: number;
  readonly latencyMs: number;
  /** The research steps, when the response carried them. */
  readonly steps?: unknown;
  /** With steps: per supporting fact, whether research read its page (a fact missed on a page read was not selected). */
  readonly factPagesRead?: readonly boolean[];
  /** Per supporting fact: its page's title and, for MuSiQue, its hop ("question → answer"). */
  readonly factLabels: readonly string[];
}

/** Result of {@link runMultihopBenchmark}. */
export interface MultihopReport {
  readonly pages: number;
  readonly questions: number;
  readonly concurrency: number;
  readonly maxLatencyMs: number;
  readonly results: readonly MultihopResult[];
  readonly wallSeconds: number;
  /** Answered by the extractive answerer: no prompt was recorded, so only the answers are measured. */
  readonly extractive?: boolean;
}

/** A seeded sample of at most `size` questions of each benchmark, in file order. */
function sampleEach(questions: readonly MultihopQuestion[], size: number | undefined, seed: number) {
  if (size === undefined) return [...questions];
  return MULTIHOP_BENCHMARKS.flatMap((benchmark) => {
    const mine = questions.filter((q) => q.benchmark === benchmark);
    const chosen = new Set(createRandom(seed).shuffle(mine).slice(0, size));
    return mine.filter((q) => chosen.has(q));
  });
}

/** The answerer's prompt of one question: the model request whose user message holds it and sources. */
function answerPromptOf(requests: readonly RecordedRequest[], question: string): RecordedRequest | undefined {
  const line = question.trim();
  return requests.findLast(
    (r) =>
      r.promptText.includes('<<<') && r.messages.some((m) => m.role === 'user' && m.content.includes(line)),
  );
}

/**
 * `answerer`, keeping the text it was given (passages and research chain) by the prompt it answered, so
 * that "answer in context" is measured for an answerer without a prompt, and each input it was given.
 */
function readingAnswerer(answerer: Answerer, contexts: Map<string, string>, inputs: AnswerInput[]): Answerer {
  return {
    ...answerer,
    answer(input, call) {
      const texts = [
        ...input.passages.map((p) => `${p.title}\n${p.text}`),
        ...(input.chain ?? []).map((c) => c.text),
      ];
      contexts.set(input.prompt, texts.join('\n'));
      inputs.push(input);
      return answerer.answer(input, call);
    },
  };
}

/** The URLs a research search read, from its steps; undefined without steps. */
function pagesReadOf(steps: unknown): Set<string> | undefined {
  if (!Array.isArray(steps)) return undefined;
  const urls = (steps as { pages?: unknown }[]).flatMap((step) =>
    Array.isArray(step.pages) ? step.pages.filter((url): url is string => typeof url === 'string') : [],
  );
  return new Set(urls);
}

/** Runs the benchmark. */
export async function runMultihopBenchmark(options: MultihopBenchmarkOptions): Promise<MultihopReport> {
  const started = performance.now();
  const seed = options.seed ?? 1;
  const concurrency = options.concurrency ?? 2;
  const maxLatencyMs = options.maxLatencyMs ?? 15_000;
  const depths = options.depths ?? MULTIHOP_DEPTHS;
  const log = options.log ?? (() => {});
  const data = loadMultihop(options.datasetsDir);
  let questions = sampleEach(data.questions, options.sample, seed);
  if (options.ids) questions = questions.filter((q) => options.ids!.includes(q.id));
  log(`loaded ${data.articles.length} pages, asking ${questions.length} questions at ${depths.join(', ')}`);

  const index = createArticleIndex(data.articles);
  const web = await createSquadWeb({
    articles: data.articles,
    seed,
    related: (title) => index.search(title, 12).map((match) => match.title),
  });
  const endpoint = await createSearchEndpoint({ index, urlFor: (title) => web.urlFor(title) });
  const llm = await createFakeLlm({ maxRecorded: 20_000 });
  const servers: Server[] = [];
  // Searches and page fetches per request, by the request id every stage call carries.
  const searches = new Map<string, number>();
  const fetches = new Map<string, number>();
  const count = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1);
  // With the extractive answerer: what it was given (passages and chain), by the prompt it answered.
  const extractiveContexts = new Map<string, string>();
  const answerInputs: AnswerInput[] = [];
  try {
    const provider = createSearxngProvider({ baseUrl: endpoint.origin, pages: 1 });
    const search: SearchProvider = {
      id: provider.id,
      search(query, call) {
        count(searches, call.requestId);
        return provider.search(query, call);
      },
    };
    const realFetcher = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'] });
    const fetcher: PageFetcher = {
      fetch(url, call) {
        count(fetches, call.requestId);
        return realFetcher.fetch(url, call);
      },
      close: () => realFetcher.close?.() ?? Promise.resolve(),
    };
    const extractor = createContentExtractor();
    await extractor.warm?.();
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const model = createOpenAICompatible({ baseURL: llm.baseUrl, name: 'bench' })('fake-overlap-1');
    const engine = createSearchEngine({
      search,
      fetcher,
      extractor,
      // The stand-in model records what the answerer is given; it cannot plan, so queries are planned
      // without a model (as the research depth's targets are measured) unless `planWithModel` is set.
      model,
      answerer: options.extractive
        ? readingAnswerer(createExtractiveAnswerer(), extractiveContexts, answerInputs)
        : createModelAnswerer({ model }),
      ...(options.planWithModel ? {} : { queryModel: false as const }),
      rateLimiter: false,
      maxConcurrentSearches: concurrency,
      maxQueuedSearches: Math.max(64, concurrency * 4),
      maxAccountShare: 1,
      requestTimeoutMs: maxLatencyMs + 30_000,
    });
    const server = createServer(createNodeHandler(engine));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { key } = await engine.createKey({ credits: 100_000_000, name: 'bench:qa:multihop' });

    const results: MultihopResult[] = [];
    for (const depth of depths) {
      llm.reset();
      const depthStart = performance.now();
      let next = 0;
      const ask = async (question: MultihopQuestion) => {
        const start = performance.now();
        let status = 0;
        let body: { answer?: string; sources?: string[]; steps?: unknown; request_id?: string } = {};
        let requestId = '';
        try {
          const response = await fetch(`${api}/v1/search`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              prompt: question.question,
              response_type: 'text',
              depth,
              max_latency_ms: maxLatencyMs,
              ...(depth === 'research' ? { include: ['steps'] } : {}),
            }),
          });
          status = response.status;
          requestId = response.headers.get('x-request-id') ?? '';
          body = (await response.json()) as typeof body;
        } catch (error) {
          body = { answer: `error: ${String(error)}` };
        }
        const latencyMs = performance.now() - start;
        const prompt = answerPromptOf(llm.requests, question.question);
        // The question line itself does not count as context.
        const context = options.extractive
          ? (extractiveContexts.get(question.question) ?? '')
          : (prompt?.promptText ?? '').split(question.question.trim()).join('\n');
        const compact = compactText(context);
        const facts = factsInPrompt(question.facts, compact);
        const read = pagesReadOf(body.steps);
        results.push({
          id: question.id,
          benchmark: question.benchmark,
          type: question.type,
          depth,
          question: question.question,
          status,
          answer: body.answer ?? '',
          sources: body.sources ?? [],
          facts,
          evidenceComplete: facts.every(Boolean),
          answerInContext: containsAnswer(context, question.answers),
          answerInAnswer: containsAnswer(body.answer ?? '', question.answers),
          promptChars: prompt?.promptText.length ?? 0,
          pages: fetches.get(requestId) ?? 0,
          searches: searches.get(requestId) ?? 0,
          modelCalls: llm.requests.filter((r) => r.promptText.includes(question.question.trim())).length,
          latencyMs,
          ...(body.steps ? { steps: body.steps } : {}),
          ...(read ? { factPagesRead: question.facts.map((fact) => read.has(web.urlFor(fact.title))) } : {}),
          factLabels: question.facts.map((fact) => (fact.hop ? `${fact.title}: ${fact.hop}` : fact.title)),
        });
      };
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < questions.length; i = next++) await ask(questions[i]!);
        }),
      );
      log(
        `${depth}: ${questions.length} questions in ${((performance.now() - depthStart) / 1000).toFixed(1)} s`,
      );
    }
    await engine.close();
    if (options.answerInputs !== undefined)
      writeFileSync(options.answerInputs, answerInputs.map((input) => `${JSON.stringify(input)}\n`).join(''));
    return {
      pages: data.articles.length,
      questions: questions.length,
      concurrency,
      maxLatencyMs,
      results,
      wallSeconds: (performance.now() - started) / 1000,
      ...(options.extractive ? { extractive: true } : {}),
    };
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await Promise.all([web.close(), endpoint.close(), llm.close()]);
  }
}

const share = (values: readonly boolean[]) =>
  values.length === 0 ? 'n/a' : (values.filter(Boolean).length / values.length).toFixed(2);
const fmt = (value: number, digits = 0) => (Number.isNaN(value) ? 'n/a' : value.toFixed(digits));

/** The report as Markdown tables: one row per depth and benchmark, then per question type. */
export function formatMultihopReport(report: MultihopReport): string {
  const depths = [...new Set(report.results.map((r) => r.depth))];
  // With the extractive answerer no prompt is recorded: the prompt's columns say n/a, not 0 (answer in
  // context is what the extractive answerer was given).
  const fromPrompt = (value: string) => (report.extractive ? 'n/a' : value);
  const row = (label: string, rows: readonly MultihopResult[]) => {
    const facts = rows.flatMap((r) => r.facts);
    const prompts = rows.map((r) => r.promptChars);
    const latency = rows.map((r) => r.latencyMs);
    return `| ${label} | ${rows.length} | **${fromPrompt(share(rows.map((r) => r.evidenceComplete)))}** | ${fromPrompt(share(facts))} | ${share(rows.map((r) => r.answerInContext))} | ${share(rows.map((r) => r.answerInAnswer))} | ${fromPrompt(`${fmt(percentile(prompts, 50))} / ${fmt(percentile(prompts, 95))}`)} | ${fmt(mean(rows.map((r) => r.pages)), 1)} | ${fmt(mean(rows.map((r) => r.searches)), 1)} | ${fmt(mean(rows.map((r) => r.modelCalls)), 1)} | ${fmt(percentile(latency, 50))} / ${fmt(percentile(latency, 95))} |`;
  };
  const header = [
    '| depth · questions | n | evidence complete | facts covered | answer in context | answer in answer | prompt chars p50 / p95 | pages | searches | model calls | latency ms p50 / p95 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const lines = [
    `### bench:qa --multihop — ${report.questions} questions over ${report.pages} pages, instant pages, ${report.concurrency} in flight, max_latency_ms ${report.maxLatencyMs}, ${report.extractive ? 'extractive answerer' : 'recording stand-in model'}`,
    '',
    ...header,
  ];
  for (const depth of depths) {
    const mine = report.results.filter((r) => r.depth === depth);
    lines.push(row(`**${depth}** · all`, mine));
    for (const benchmark of MULTIHOP_BENCHMARKS) {
      const rows = mine.filter((r) => r.benchmark === benchmark);
      if (rows.length > 0) lines.push(row(`${depth} · ${benchmark}`, rows));
    }
  }
  lines.push('', 'Per question type:', '', ...header);
  const types = [...new Set(report.results.map((r) => `${r.benchmark} ${r.type}`))].sort();
  for (const type of types) {
    for (const depth of depths) {
      const rows = report.results.filter((r) => r.depth === depth && `${r.benchmark} ${r.type}` === type);
      if (rows.length > 0) lines.push(row(`${type} · ${depth}`, rows));
    }
  }
  const traced = report.results.filter((r) => r.factPagesRead);
  if (traced.length > 0) {
    lines.push('', 'Supporting facts missing from the prompt, by whether research read their page:', '');
    lines.push('| depth · questions | facts missed | on a page read (not selected) | on a page never read |');
    lines.push('|---|---|---|---|');
    for (const depth of depths)
      for (const benchmark of MULTIHOP_BENCHMARKS) {
        const rows = traced.filter((r) => r.depth === depth && r.benchmark === benchmark);
        const missed = rows.flatMap((r) =>
          r.facts.flatMap((inPrompt, i) => (inPrompt ? [] : [r.factPagesRead![i]!])),
        );
        if (rows.length > 0)
          lines.push(
            `| ${depth} · ${benchmark} | ${missed.length} | ${missed.filter(Boolean).length} | ${missed.filter((read) => !read).length} |`,
          );
      }
  }
  const failed = report.results.filter((r) => r.status !== 200);
  lines.push(
    '',
    `HTTP 200: ${report.results.length - failed.length} / ${report.results.length}; wall ${fmt(report.wallSeconds)} s.`,
  );
  return lines.join('\n');
}

/** One research step as the response reports it (the fields a trace shows). */
interface TracedStep {
  readonly hop?: number;
  readonly queries?: readonly string[];
  readonly found?: readonly string[];
  readonly stopped?: string;
}

/**
 * The trace of each question whose evidence is incomplete (`--trace FILE`), as Markdown: the question, each
 * supporting fact (its page, its MuSiQue hop, whether it reached the prompt and whether its page was read),
 * then each research round's queries, what it found and why research stopped.
 */
export function formatMultihopTrace(report: MultihopReport): string {
  const lines = ['# bench:qa --multihop: questions whose evidence is incomplete', ''];
  for (const result of report.results) {
    if (result.evidenceComplete || report.extractive) continue;
    lines.push(`## ${result.id} (${result.type}, ${result.depth})`, '', result.question, '');
    result.factLabels.forEach((label, i) => {
      const state = result.facts[i]
        ? 'in prompt'
        : result.factPagesRead?.[i]
          ? 'MISSED, page read'
          : 'MISSED';
      const unread = !result.facts[i] && result.factPagesRead?.[i] === false ? ', page never read' : '';
      lines.push(`- ${state}${unread}: ${label}`);
    });
    const steps = Array.isArray(result.steps) ? (result.steps as TracedStep[]) : [];
    for (const step of steps) {
      lines.push(`- round ${step.hop ?? '?'}: ${(step.queries ?? []).map((q) => `\`${q}\``).join(', ')}`);
      if (step.found && step.found.length > 0) lines.push(`  - found: ${step.found.join('; ')}`);
      if (step.stopped) lines.push(`  - stopped: ${step.stopped}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
