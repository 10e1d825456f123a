/**
 * Extraction benchmark on the article-extraction benchmark (181 news/blog pages with hand-made article bodies).
 * Prints quality (shingle F1/precision/recall, accuracy) and speed for our extractor (linkedom and jsdom DOMs)
 * and for the plain baseline — a new JSDOM per page + Readability textContent — in the same run.
 *
 *   node bench/extract.ts [--data DIR] [--variants ours,jsdom,baseline,raw] [--pool WORKERS|0] [--dump FILE.json]
 */
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { createContentExtractor, extractContent } from '../src/pipeline/extract/index.ts';
import { join } from 'node:path';
import { ARTICLE_BENCHMARK_DIR, loadBenchmarkPages, type BenchmarkPage } from './lib/article-benchmark.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import {
  matchPage,
  pagePrecision,
  pageRecall,
  scoreCorpus,
  type CorpusScore,
  type PageMatch,
} from './lib/extraction-metric.ts';

type Extract = (page: BenchmarkPage) => Promise<string>;

const VARIANTS: Record<string, { label: string; run: Extract }> = {
  ours: {
    label: 'citewise (linkedom, default)',
    run: async (page) =>
      (await extractContent(page.html, { url: page.url, contentType: 'text/html' }))?.text ?? '',
  },
  jsdom: {
    label: 'citewise (jsdom)',
    run: async (page) =>
      (await extractContent(page.html, { url: page.url, contentType: 'text/html', dom: 'jsdom' }))?.text ??
      '',
  },
  raw: {
    label: 'citewise, no boilerplate filter',
    run: async (page) =>
      (await extractContent(page.html, { url: page.url, contentType: 'text/html', cleanBoilerplate: false }))
        ?.text ?? '',
  },
  baseline: {
    label: 'baseline: new JSDOM + Readability',
    run: async (page) => {
      const dom = new JSDOM(new TextDecoder().decode(page.html), {
        url: page.url,
        virtualConsole: new VirtualConsole(),
      });
      try {
        return new Readability(dom.window.document).parse()?.textContent ?? '';
      } finally {
        dom.window.close();
      }
    },
  },
};

interface VariantResult {
  readonly label: string;
  readonly score: CorpusScore;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly totalMs: number;
  readonly perPage: { id: string; precision: number; recall: number; ms: number }[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? 0;
}

/**
 * Runs every variant on each page in turn (interleaved), so that load changes on a shared machine hit all
 * variants alike instead of skewing whichever ran during a busy minute.
 */
async function runInterleaved(
  variants: readonly { label: string; run: Extract }[],
  pages: readonly BenchmarkPage[],
): Promise<VariantResult[]> {
  for (const variant of variants) await variant.run(pages[0]!); // warm-up (module loading, JIT); not counted
  const collected = variants.map(() => ({
    matches: [] as PageMatch[],
    times: [] as number[],
    perPage: [] as VariantResult['perPage'],
  }));
  for (const page of pages) {
    for (const [index, variant] of variants.entries()) {
      const start = performance.now();
      const text = await variant.run(page);
      const ms = performance.now() - start;
      const match = matchPage(page.truth, text);
      const bucket = collected[index]!;
      bucket.times.push(ms);
      bucket.matches.push(match);
      bucket.perPage.push({ id: page.id, precision: pagePrecision(match), recall: pageRecall(match), ms });
    }
  }
  return variants.map((variant, index) => {
    const { matches, times, perPage } = collected[index]!;
    const sorted = [...times].sort((a, b) => a - b);
    return {
      label: variant.label,
      score: scoreCorpus(matches),
      medianMs: quantile(sorted, 0.5),
      p90Ms: quantile(sorted, 0.9),
      totalMs: times.reduce((a, b) => a + b, 0),
      perPage,
    };
  });
}

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    variants: { type: 'string', default: 'ours,jsdom,baseline' },
    dump: { type: 'string' },
    pool: { type: 'string', default: '2' },
  },
});

const pages = loadBenchmarkPages(
  join(resolveDatasetsDir(values.data, [ARTICLE_BENCHMARK_DIR]), ARTICLE_BENCHMARK_DIR),
);
const selected = values.variants.split(',').map((name) => {
  const variant = VARIANTS[name.trim()];
  if (!variant) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`);
  return variant;
});
const results = await runInterleaved(selected, pages);

const baseline = results.find((result) => result.label.startsWith('baseline'));
const f = (n: number): string => n.toFixed(3);
const ms = (n: number): string => n.toFixed(1);
console.log(`Article extraction benchmark: ${pages.length} pages, node ${process.version}\n`);
console.log(
  '| extractor | F1 | precision | recall | accuracy | median ms/page | p90 ms/page | total ms | speed vs baseline |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const result of results) {
  const { score } = result;
  const speed = baseline ? `${(baseline.totalMs / result.totalMs).toFixed(1)}x` : 'n/a';
  console.log(
    `| ${result.label} | ${f(score.f1)} | ${f(score.precision)} | ${f(score.recall)} | ${f(score.accuracy)} | ` +
      `${ms(result.medianMs)} | ${ms(result.p90Ms)} | ${Math.round(result.totalMs)} | ${speed} |`,
  );
}
if (values.pool && values.pool !== '0') {
  // Throughput off the main thread: every page submitted at once to a pool of worker threads.
  const workers = Number(values.pool);
  const extractor = createContentExtractor({ workers, timeoutMs: 60_000 });
  const call = { signal: new AbortController().signal, requestId: 'bench' };
  const toPage = (page: BenchmarkPage) => ({
    url: page.url,
    requestedUrl: page.url,
    status: 200,
    contentType: 'text/html',
    body: page.html,
    headers: {},
  });
  await Promise.all(pages.slice(0, workers).map((page) => extractor.extract(toPage(page), call))); // warm-up
  const start = performance.now();
  const results = await Promise.all(pages.map((page) => extractor.extract(toPage(page), call)));
  const wall = performance.now() - start;
  await extractor.close?.();
  const score = scoreCorpus(pages.map((page, index) => matchPage(page.truth, results[index]?.text ?? '')));
  console.log(
    `\nWorker pool (${workers} workers, all ${pages.length} pages submitted at once): ${Math.round(wall)} ms wall, ` +
      `${(wall / pages.length).toFixed(1)} ms/page amortised, F1 ${f(score.f1)}`,
  );
}
if (values.dump)
  writeFileSync(
    values.dump,
    JSON.stringify(
      results.map((r) => ({ label: r.label, perPage: r.perPage })),
      null,
      1,
    ),
  );
