/**
 * `node bench/qa/replay.ts` — bench:qa's quality figures in about a minute, without the HTTP stack, to compare
 * settings of the pipeline. Every page of the local web is fetched and extracted once (the real fetcher and
 * extractor); then each question runs through the real {@link runPipeline}, with the search answered
 * in-process by the same BM25 article index the SearXNG endpoint serves, the pages served from those
 * extractions, and the default ranker and extractive answerer. For the same settings it gives the same
 * answer-in-context as `bench:qa`; it measures no time.
 *
 *   node bench/qa/replay.ts [--sample 500] [--seed 1] [--k 5] [--expand-to 40] [--max-tokens 4000]
 *                           [--min-coverage 0.8] [--max-per-source 20] [--search-order-boost 0.5]
 *                           [--min-deeper-page-mentions 0.5] [--min-deeper-snippet-coverage 0.2]
 *                           [--synonym-weight 0.5] [--data DIR] [--answers FILE] [--answer-inputs FILE]
 *
 * `--answers FILE` writes every question's answer and its sources as JSON lines (the local web's origin, whose
 * port changes from run to run, written as `WEB`), to compare two versions of the code answer for answer
 * (`cmp` the two files). `--answer-inputs FILE` writes what the answerer was given for each question (JSON
 * lines), for `node bench/qa/answer-speed.ts --inputs FILE` to time the answer stage alone.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import {
  DEFAULT_MIN_DEEPER_PAGE_MENTIONS,
  DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE,
  runPipeline,
} from '../../src/pipeline/run.ts';
import type {
  Answerer,
  AnswerInput,
  ExtractedContent,
  FetchedPage,
  PassageRanker,
} from '../../src/pipeline/types.ts';
import { estimateTokens } from '../../src/text/tokens.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { loadArticles, loadDevQuestions, sampleQuestions, SQUAD_DIR } from './corpus.ts';
import { containsAnswer, mean } from './metrics.ts';
import { createArticleIndex } from './search-endpoint.ts';
import { createSquadWeb } from './squad-web.ts';

const { values } = parseArgs({
  options: {
    sample: { type: 'string', default: '500' },
    seed: { type: 'string', default: '1' },
    k: { type: 'string', default: '5' },
    'expand-to': { type: 'string', default: '40' },
    'max-tokens': { type: 'string', default: '4000' },
    'min-coverage': { type: 'string', default: '0.8' },
    'synonym-weight': { type: 'string' },
    'max-per-source': { type: 'string', default: '20' },
    'search-order-boost': { type: 'string', default: '0.5' },
    'min-deeper-page-mentions': { type: 'string', default: String(DEFAULT_MIN_DEEPER_PAGE_MENTIONS) },
    'min-deeper-snippet-coverage': {
      type: 'string',
      default: String(DEFAULT_MIN_DEEPER_SNIPPET_COVERAGE),
    },
    answers: { type: 'string' },
    'answer-inputs': { type: 'string' },
    ...DATA_OPTION,
  },
});
const datasetsDir = resolveDatasetsDir(values.data, [SQUAD_DIR]);
const settings = {
  sample: Number(values.sample),
  seed: Number(values.seed),
  maxResults: Number(values.k),
  expandToResults: Number(values['expand-to']),
  maxPassageTokens: Number(values['max-tokens']),
  minQueryCoverage: Number(values['min-coverage']),
  maxPerSource: Number(values['max-per-source']),
  searchOrderBoost: Number(values['search-order-boost']),
  minDeeperPageMentions: Number(values['min-deeper-page-mentions']),
  minDeeperSnippetCoverage: Number(values['min-deeper-snippet-coverage']),
};
for (const [name, value] of Object.entries(settings)) {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`--${name} must be a number ≥ 0`);
}

const articles = loadArticles({ datasetsDir });
const questions = sampleQuestions(loadDevQuestions(datasetsDir), settings.sample, settings.seed);
const index = createArticleIndex(articles);
const web = await createSquadWeb({
  articles,
  seed: settings.seed,
  related: (title) => index.search(title.replaceAll('_', ' '), 12).map((match) => match.title),
});

// Fetch and extract every page once; the same bytes and extractions are then served to every question (the
// bytes because the pipeline looks at them before extracting a deeper page).
const pages = new Map<string, ExtractedContent>();
const bodies = new Map<string, Uint8Array>();
const fetcher = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'], cache: false });
const extractor = createContentExtractor();
const call = () => ({
  signal: new AbortController().signal,
  requestId: 'replay',
  deadline: Date.now() + 60_000,
});
try {
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      for (let article = articles[next++]; article; article = articles[next++]) {
        const url = web.urlFor(article.title);
        const page = await fetcher.fetch(new URL(url), call());
        bodies.set(url, page.body);
        const content = await extractor.extract(page, call());
        if (content) pages.set(url, content);
      }
    }),
  );
} finally {
  await Promise.all([fetcher.close?.(), extractor.close?.(), web.close()]);
}
process.stderr.write(`extracted ${pages.size} pages; replaying ${questions.length} questions\n`);

const bm25 = createBm25Ranker({
  maxPerSource: settings.maxPerSource,
  searchOrderBoost: settings.searchOrderBoost,
});
let pagesRead: ExtractedContent[] = [];
let extracted = 0; // pages handed to the extractor, over all questions: extraction is the costly step
const ranker: PassageRanker = {
  rank(query, docs, budget) {
    pagesRead = [...docs];
    return bm25.rank(query, docs, budget);
  },
};
const stages = {
  search: {
    id: 'squad-index',
    search: async ({ query, limit }: { query: string; limit: number }) =>
      index.search(query, limit).map(({ title }) => ({
        url: web.urlFor(title),
        title: title.replaceAll('_', ' '),
        snippet: index.snippet(title, query),
        provider: 'squad-index',
      })),
  },
  fetcher: {
    fetch: async (url: URL): Promise<FetchedPage> => ({
      url: url.href,
      requestedUrl: url.href,
      status: 200,
      contentType: 'text/html',
      body: bodies.get(url.href) ?? new Uint8Array(),
      headers: {},
    }),
  },
  extractor: {
    extract: async (page: FetchedPage) => {
      extracted++;
      return pages.get(page.url) ?? null;
    },
  },
  ranker,
  answerer: recorded(
    createExtractiveAnswerer(
      values['synonym-weight'] === undefined ? {} : { synonymWeight: Number(values['synonym-weight']) },
    ),
  ),
};

/** Every answerer input, kept for `--answer-inputs` (bench/qa/answer-speed.ts times the answerer on them). */
const answerInputs: AnswerInput[] = [];
function recorded(answerer: Answerer): Answerer {
  return {
    answer(input, options) {
      if (values['answer-inputs'] !== undefined) answerInputs.push(input);
      return answerer.answer(input, options);
    },
  };
}

const answers: string[] = [];
const rows: { inContext: boolean; inAnswer: boolean; goldRead: boolean; pages: number; tokens: number }[] =
  [];
for (const question of questions) {
  const goldUrl = web.urlFor(question.title);
  const result = await runPipeline(
    {
      prompt: question.question,
      context: [],
      responseType: 'text',
      filters: {},
      depth: 'standard',
    },
    stages,
    { ...settings, pageTimeoutMs: 8_000 },
    call(),
  );
  answers.push(
    JSON.stringify({
      question: question.question,
      answer: result.answer,
      sources: result.sources,
    }),
  );
  const context = result.passages.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text)).join('\n\n');
  rows.push({
    inContext: containsAnswer(context, question.answers),
    inAnswer: containsAnswer(result.answer, question.answers),
    goldRead: pagesRead.some((page) => page.url === goldUrl),
    pages: pagesRead.length,
    tokens: estimateTokens(context),
  });
}

if (values['answer-inputs'] !== undefined) {
  writeFileSync(
    values['answer-inputs'],
    `${answerInputs.map((input) => JSON.stringify(input)).join('\n')}\n`,
  );
}
if (values.answers !== undefined) {
  writeFileSync(values.answers, `${answers.join('\n').replaceAll(web.origin, 'WEB')}\n`);
}

const share = (pick: (row: (typeof rows)[number]) => boolean) =>
  (rows.filter(pick).length / rows.length).toFixed(3);
process.stdout.write(
  [
    `### bench:qa replay — ${rows.length} questions, seed ${settings.seed}, k = ${settings.maxResults} read first, up to ${settings.expandToResults} when coverage < ${settings.minQueryCoverage}, budget ${settings.maxPassageTokens} tokens, maxPerSource ${settings.maxPerSource}, searchOrderBoost ${settings.searchOrderBoost}, minDeeperPageMentions ${settings.minDeeperPageMentions}, minDeeperSnippetCoverage ${settings.minDeeperSnippetCoverage}`,
    '',
    '| metric | value |',
    '|---|---|',
    `| pages read per question (mean; share that read past k) | ${mean(rows.map((r) => r.pages)).toFixed(1)} (${share((r) => r.pages > settings.maxResults)}) |`,
    `| pages extracted per question (mean) | ${(extracted / rows.length).toFixed(1)} |`,
    `| gold article among pages read | ${share((r) => r.goldRead)} |`,
    `| **answer in context** (selected passages) | **${share((r) => r.inContext)}** |`,
    `| context tokens (mean) | ${mean(rows.map((r) => r.tokens)).toFixed(0)} |`,
    `| answer contained in the extractive answer | ${share((r) => r.inAnswer)} |`,
    '',
  ].join('\n'),
);
