/**
 * Extraction benchmark. Runs two datasets (read in place, never copied):
 *
 * - WCXB dev split (1,497 pages of seven page types) with the metric WCXB publishes (word F1 per page,
 *   averaged), precision/recall, must-include/must-exclude snippets, nulls, metadata and page-type detection;
 * - the Scrapinghub/Zyte article-extraction benchmark (181 news pages) with its own shingle metric.
 *
 * Our extractor and the naive baseline (a new JSDOM window per page + Readability's textContent) take turns
 * over blocks of pages, so load on a shared machine hits both alike; before each turn the benchmark thread
 * collects its garbage and pauses, so one variant's garbage is not collected on the other core while the
 * next variant is timed (turns page by page made the worker take 36% more time than alone, on two cores). `ours` extracts in one extraction
 * worker, as the service does; `inprocess` calls `extractContent` in the benchmark's own thread, as a library
 * user may (the thread the benchmark's own work and the naive baseline's garbage share). The profile
 * times the stages in a thread of its own with the extraction workers' settings, and fits each stage's time
 * on the page's size (the cost model: what the slow pages are made of).
 *
 *   node bench/extract.ts [--data DIR] [--sets wcxb,articles] [--every N] [--types product,listing]
 *                         [--variants ours,baseline] [--block PAGES] [--reps N]
 *                         [--profile [--pool WORKERS]] [--dump FILE.json]
 *
 * The datasets folder comes from --data, else CITEWISE_DATASETS, else ../shared/datasets beside the checkout.
 */
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { createContentExtractor, extractContent } from '../src/pipeline/extract/index.ts';
import { EXTRACTOR_DEFAULTS } from '../src/pipeline/extract/extractor.ts';
import { PAGE_TYPES } from '../src/pipeline/extract/page-type.ts';
import { extractHtml, type StageTimes } from '../src/pipeline/extract/html.ts';
import { decodeBytes } from '../src/pipeline/extract/decode.ts';
import { parserOf } from './lib/reference-doms.ts';
import { asFetchedPage } from './lib/fetched-page.ts';
import type { ContentExtractor, ExtractedContent } from '../src/pipeline/types.ts';
import { loadBenchmarkPages, type BenchmarkPage } from './lib/article-benchmark.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import { profileInWorker, type PageProfile } from './lib/extract-profile.ts';
import { fitLinear } from './lib/linear-fit.ts';
import { collectGarbage } from './lib/gc.ts';
import { matchPage, scoreCorpus, type PageMatch } from './lib/extraction-metric.ts';
import { loadWcxbPages, sameWords, snippetCounts, wordF1, type WcxbPage } from './lib/wcxb.ts';

/** Pages each variant extracts in one turn. */
const DEFAULT_BLOCK_PAGES = 20;
/** Pause before each turn, for background garbage collection to finish. */
const SETTLE_MS = 50;

interface Page {
  readonly id: string;
  readonly url: string;
  readonly html: Uint8Array;
}

interface Variant {
  readonly name: string;
  readonly label: string;
  run(page: Page): Promise<ExtractedContent | null>;
}

/** One extraction worker, as the service runs extraction (created on first use, closed at the end). */
let worker: ContentExtractor | undefined;
const call = { signal: new AbortController().signal, requestId: 'bench' };

const VARIANTS: Record<string, Variant> = {
  ours: {
    name: 'ours',
    label: 'citewise (extraction worker)',
    run: (page) => {
      // No time limit here: the table counts the pages over the service's limit instead.
      worker ??= createContentExtractor({ workers: 1, timeoutMs: 600_000, maxInputBytes: 2 ** 30 });
      return worker.extract(asFetchedPage(page), call);
    },
  },
  inprocess: {
    name: 'inprocess',
    label: 'citewise in the calling thread',
    run: (page) => extractContent(page.html, { url: page.url, contentType: 'text/html' }),
  },
  jsdom: {
    name: 'jsdom',
    label: 'citewise on jsdom',
    run: (page) =>
      extractHtml(decodeBytes(page.html, { sniffMeta: true }).text, {
        url: page.url,
        parser: parserOf('jsdom'),
      }),
  },
  baseline: {
    name: 'baseline',
    label: 'naive: new JSDOM + Readability',
    run: async (page) => {
      const dom = new JSDOM(new TextDecoder().decode(page.html), {
        url: page.url,
        virtualConsole: new VirtualConsole(),
      });
      try {
        const article = new Readability(dom.window.document).parse();
        if (!article) return null;
        return { url: page.url, title: article.title ?? '', text: article.textContent ?? '', markdown: '' };
      } finally {
        dom.window.close();
      }
    },
  },
};

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    sets: { type: 'string', default: 'wcxb,articles' },
    every: { type: 'string', default: '1' },
    types: { type: 'string' },
    variants: { type: 'string', default: 'ours,baseline' },
    profile: { type: 'boolean', default: false },
    pool: { type: 'string', default: '0' },
    block: { type: 'string', default: String(DEFAULT_BLOCK_PAGES) },
    reps: { type: 'string', default: '1' },
    dump: { type: 'string' },
  },
});

function fail(sentence: string): never {
  console.error(sentence);
  process.exit(2);
}

const sets = new Set(values.sets.split(',').map((name) => name.trim()));
const DATASET_OF_SET: Readonly<Record<string, string>> = {
  wcxb: 'wcxb-dev',
  articles: 'article-extraction-benchmark',
};
const datasetsDir = resolveDatasetsDir(
  values.data,
  [...sets].map((set) => DATASET_OF_SET[set] ?? fail(`Unknown set ${set}; known: wcxb, articles.`)),
);
/** A dataset folder inside the datasets folder (checked to exist by resolveDatasetsDir). */
const datasetDir = (name: string) => ({ dir: join(datasetsDir, name) });
const every = Number(values.every);
if (!Number.isInteger(every) || every < 1) fail('--every must be a positive integer.');
/** WCXB page types to run (labelled type); all when absent. */
const onlyTypes = values.types?.split(',').map((name) => name.trim());
for (const type of onlyTypes ?? []) {
  if (!(PAGE_TYPES as readonly string[]).includes(type))
    fail(`Unknown page type ${type}; known: ${PAGE_TYPES.join(', ')}.`);
}
/** The WCXB pages of this run: one in `every`, of the chosen types. */
const wcxbPages = (dir: string): WcxbPage[] =>
  loadWcxbPages(dir, every).filter((page) => !onlyTypes || onlyTypes.includes(page.pageType));
const blockPages = Number(values.block);
if (!Number.isInteger(blockPages) || blockPages < 1) fail('--block must be a positive integer.');
/** Timed runs of each page by our variants (the naive baseline runs once: it takes ten times as long). */
const reps = Number(values.reps);
if (!Number.isInteger(reps) || reps < 1) fail('--reps must be a positive integer.');
const variants = values.variants.split(',').map((name) => {
  const variant = VARIANTS[name.trim()];
  if (!variant) fail(`Unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}.`);
  return variant;
});

const f3 = (n: number): string => n.toFixed(3);
const ms1 = (n: number): string => n.toFixed(1);
const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

interface Run {
  readonly outputs: (ExtractedContent | null)[][];
  /** Per variant, each page's time in the first pass. */
  readonly times: number[][];
  /** Per variant, each page's fastest time over the passes ({@link reps} for ours, one for the baseline). */
  readonly fastest: number[][];
}

/**
 * What scoring needs, as fresh strings: attribute values and titles can be slices of the page's whole
 * HTML, and keeping them would keep every page in memory.
 */
function compact(output: ExtractedContent | null): ExtractedContent | null {
  if (!output) return null;
  const { url, title, text, byline, publishedAt, pageType } = output;
  return JSON.parse(
    JSON.stringify({ url, title, text, markdown: '', byline, publishedAt, pageType }),
  ) as ExtractedContent;
}

/**
 * Every variant on each block of pages in turn, {@link reps} passes over the block (the baseline only in the
 * first). Before each turn: a full collection of the benchmark thread's heap and a pause for the collector's
 * background work (and the worker's) to finish. Outputs are those of the first pass.
 */
async function runInterleaved(pages: readonly Page[]): Promise<Run> {
  for (const variant of variants) await variant.run(pages[0]!); // warm-up (module loading, JIT); not counted
  const outputs = variants.map(() => [] as (ExtractedContent | null)[]);
  const times = variants.map(() => [] as number[]);
  const fastest = variants.map(() => [] as number[]);
  for (let start = 0; start < pages.length; start += blockPages) {
    const block = pages.slice(start, start + blockPages);
    for (let pass = 0; pass < reps; pass++) {
      for (const [v, variant] of variants.entries()) {
        if (pass > 0 && variant.name === 'baseline') continue;
        collectGarbage();
        await setTimeout(SETTLE_MS);
        for (const [i, page] of block.entries()) {
          const begin = performance.now();
          const output = await variant.run(page);
          const elapsed = performance.now() - begin;
          if (pass === 0) {
            times[v]!.push(elapsed);
            fastest[v]!.push(elapsed);
            outputs[v]!.push(compact(output));
          } else {
            fastest[v]![start + i] = Math.min(fastest[v]![start + i]!, elapsed);
          }
        }
      }
    }
    process.stderr.write(`  ${Math.min(pages.length, start + blockPages)}/${pages.length}\r`);
  }
  return { outputs, times, fastest };
}

/**
 * Median, p90, max and total of each variant, against the naive baseline's total. With `--reps`, a second
 * table gives each page's fastest pass of our variants: what the page costs with less of the shared
 * machine's noise. It has no ratio to the baseline, which runs once.
 */
function speedTables(run: Run): void {
  speedTable(run.times);
  if (reps === 1) return;
  console.log(`\nEach page's fastest of ${reps} passes:`);
  speedTable(run.fastest, false);
}

function speedTable(timesOfVariants: readonly (readonly number[])[], withBaseline = true): void {
  const baselineIndex = withBaseline ? variants.findIndex((variant) => variant.name === 'baseline') : -1;
  const baselineTotal = baselineIndex >= 0 ? timesOfVariants[baselineIndex]!.reduce((a, b) => a + b, 0) : 0;
  console.log(
    `\n| extractor | median ms | p90 ms | max ms | total ms | total / naive total | pages over ${EXTRACTOR_DEFAULTS.timeoutMs} ms |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [v, variant] of variants.entries()) {
    if (!withBaseline && variant.name === 'baseline') continue;
    const times = timesOfVariants[v]!;
    const sorted = [...times].sort((a, b) => a - b);
    const total = times.reduce((a, b) => a + b, 0);
    const ratio =
      baselineTotal > 0
        ? `${(total / baselineTotal).toFixed(3)} (${(baselineTotal / total).toFixed(2)}× faster)`
        : 'n/a';
    const over = times.filter((t) => t > EXTRACTOR_DEFAULTS.timeoutMs).length;
    console.log(
      `| ${variant.label} | ${ms1(quantile(sorted, 0.5))} | ${ms1(quantile(sorted, 0.9))} | ${ms1(sorted.at(-1) ?? 0)} | ${Math.round(total)} | ${variant.name === 'baseline' ? '1.000' : ratio} | ${over} |`,
    );
  }
}

const dump: Record<string, unknown> = {};

async function benchWcxb(dir: string): Promise<void> {
  const pages = wcxbPages(dir);
  const subset = `${every > 1 ? `, one page in ${every}` : ''}${onlyTypes ? `, types ${onlyTypes.join(', ')}` : ''}`;
  console.log(`\n### WCXB dev split: ${pages.length} pages${subset} (node ${process.version})\n`);
  const run = await runInterleaved(pages);
  const types = [...PAGE_TYPES, 'all'];
  const header = variants.map((variant) => `F1 ${variant.name}`).join(' | ');
  console.log(
    `| page type | pages | ${header} | precision | recall | with found | without leaked | nulls | type detected |`,
  );
  console.log(`|---|---|${variants.map(() => '---|').join('')}---|---|---|---|---|---|`);
  const scores = variants.map((_v, vi) =>
    pages.map((page, pi) => wordF1(page.truth, run.outputs[vi]![pi]?.text ?? '')),
  );
  const ours = 0;
  for (const type of types) {
    const indexes = pages.flatMap((page, index) => (type === 'all' || page.pageType === type ? [index] : []));
    if (indexes.length === 0) continue;
    const f1s = scores.map((perPage) => f3(mean(indexes.map((i) => perPage[i]!.f1))));
    const precision = mean(indexes.map((i) => scores[ours]![i]!.precision));
    const recall = mean(indexes.map((i) => scores[ours]![i]!.recall));
    let withFound = 0;
    let withTotal = 0;
    let withoutLeaked = 0;
    let withoutTotal = 0;
    for (const i of indexes) {
      const counts = snippetCounts(pages[i]!, run.outputs[ours]![i]?.text ?? '');
      withFound += counts.withFound;
      withTotal += counts.withTotal;
      withoutLeaked += counts.withoutLeaked;
      withoutTotal += counts.withoutTotal;
    }
    const nulls = indexes.filter((i) => run.outputs[ours]![i] === null).length;
    const detected = indexes.filter((i) => run.outputs[ours]![i]?.pageType === pages[i]!.pageType).length;
    const label = type === 'all' ? '**all**' : type;
    console.log(
      `| ${label} | ${indexes.length} | ${f1s.join(' | ')} | ${f3(precision)} | ${f3(recall)} | ${pct(withFound, withTotal)} | ${pct(withoutLeaked, withoutTotal)} | ${nulls} | ${pct(detected, indexes.length)} |`,
    );
  }
  console.log(`\nMetadata of ${variants[ours]!.label} against the ground truth:\n`);
  console.log('| field | pages with a value in the truth | extracted | equal (same words) |');
  console.log('|---|---|---|---|');
  const outputs = run.outputs[ours]!;
  const field = (
    name: string,
    truthOf: (p: WcxbPage) => string | undefined,
    ourOf: (o: ExtractedContent) => string | undefined,
    equal: (a: string, b: string) => boolean,
  ) => {
    const indexes = pages.flatMap((page, i) => (truthOf(page) ? [i] : []));
    const extracted = indexes.filter((i) => outputs[i] && ourOf(outputs[i]));
    const same = extracted.filter((i) => equal(truthOf(pages[i]!)!, ourOf(outputs[i]!)!));
    console.log(
      `| ${name} | ${indexes.length} | ${pct(extracted.length, indexes.length)} | ${pct(same.length, indexes.length)} |`,
    );
  };
  field(
    'title',
    (p) => p.title,
    (o) => o.title,
    sameWords,
  );
  field(
    'author',
    (p) => p.author,
    (o) => o.byline,
    sameWords,
  );
  field(
    'published date (day)',
    (p) => p.publishDate?.slice(0, 10),
    (o) => o.publishedAt?.slice(0, 10),
    (a, b) => a === b,
  );
  speedTables(run);
  dump.wcxb = pages.map((page, i) => ({
    id: page.id,
    type: page.pageType,
    detected: outputs[i]?.pageType ?? null,
    f1: variants.map((_v, vi) => Number(scores[vi]![i]!.f1.toFixed(4))),
    ms: variants.map((_v, vi) => Number(run.times[vi]![i]!.toFixed(1))),
  }));
}

async function benchArticles(dir: string): Promise<void> {
  const pages: BenchmarkPage[] = loadBenchmarkPages(dir).filter((_page, index) => index % every === 0);
  console.log(`\n### Article extraction benchmark: ${pages.length} pages (node ${process.version})\n`);
  const run = await runInterleaved(pages);
  console.log('| extractor | F1 | precision | recall | accuracy | nulls |');
  console.log('|---|---|---|---|---|---|');
  for (const [v, variant] of variants.entries()) {
    const matches: PageMatch[] = pages.map((page, i) =>
      matchPage(page.truth, run.outputs[v]![i]?.text ?? ''),
    );
    const score = scoreCorpus(matches);
    const nulls = run.outputs[v]!.filter((output) => output === null).length;
    console.log(
      `| ${variant.label} | ${f3(score.f1)} | ${f3(score.precision)} | ${f3(score.recall)} | ${f3(score.accuracy)} | ${nulls} |`,
    );
  }
  speedTables(run);
}

/**
 * Time per stage of our HTML path (run apart from the timed comparison, in a thread with the extraction
 * workers' settings), and how each stage's time grows with the page: a least-squares fit of each page's
 * stage time on its elements and text characters.
 */
async function profile(pages: readonly Page[]): Promise<void> {
  const { pages: profiles, heapMiB: heap } = await profileInWorker(pages);
  const totals: StageTimes = {};
  for (const { stages } of profiles) {
    for (const [stage, ms] of Object.entries(stages)) totals[stage] = (totals[stage] ?? 0) + ms;
  }
  const all = Object.values(totals).reduce((a, b) => a + b, 0);
  const stages = Object.entries(totals)
    .sort((a, b) => b[1] - a[1])
    .map(([stage]) => stage);
  console.log(
    `\nProfile of ${pages.length} pages (time per stage in an extraction worker's thread and settings, summed):\n`,
  );
  console.log('| stage | total ms | share | ms per page |');
  console.log('|---|---|---|---|');
  for (const stage of stages) {
    const total = totals[stage]!;
    console.log(`| ${stage} | ${Math.round(total)} | ${pct(total, all)} | ${ms1(total / pages.length)} |`);
  }
  console.log(
    `\nMemory in the same pass (nothing kept between pages): heap after GC at the start and after each quarter: ${heap.map((h) => `${h.toFixed(0)} MiB`).join(' → ')}`,
  );
  costModel(profiles, stages);
}

/**
 * What the pages around the 90th percentile of time (88th to 92nd) spend it on, and each stage's fixed cost and cost per
 * 1,000 elements and per 10,000 characters of text (least squares over all pages).
 */
function costModel(profiles: readonly PageProfile[], stages: readonly string[]): void {
  if (profiles.length < 10) return;
  const total = (page: PageProfile): number => Object.values(page.stages).reduce((a, b) => a + b, 0);
  const byTime = [...profiles].sort((a, b) => total(a) - total(b));
  const band = byTime.slice(Math.floor(0.88 * byTime.length), Math.ceil(0.92 * byTime.length));
  const predictors = profiles.map((page) => [1, page.elements / 1000, page.textCharacters / 10_000]);
  const fit = (value: (page: PageProfile) => number) => fitLinear(predictors, profiles.map(value));
  const bandMean = (value: (page: PageProfile) => number) => mean(band.map(value));
  const median = (values: number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  console.log(
    `\nCost model: the ${band.length} pages from the 88th to the 92nd percentile of time (${ms1(total(band[0]!))}–${ms1(total(band.at(-1)!))} ms; median ${Math.round(median(band.map((page) => page.elements)))} elements, ${Math.round(median(band.map((page) => page.textCharacters)))} characters of text; all pages: ${Math.round(median(profiles.map((page) => page.elements)))} and ${Math.round(median(profiles.map((page) => page.textCharacters)))}), and each stage's time fitted on the page's elements and text over all pages:\n`,
  );
  console.log(
    '| stage | ms per page around p90 | share there | fixed ms | ms per 1,000 elements | ms per 10,000 characters |',
  );
  console.log('|---|---|---|---|---|---|');
  const bandTotal = bandMean(total);
  for (const stage of [...stages, 'all']) {
    const value = (page: PageProfile): number => (stage === 'all' ? total(page) : (page.stages[stage] ?? 0));
    const [fixed, perThousandElements, perTenThousandCharacters] = fit(value).coefficients;
    const label = stage === 'all' ? '**all**' : stage;
    console.log(
      `| ${label} | ${ms1(bandMean(value))} | ${pct(bandMean(value), bandTotal)} | ${fixed!.toFixed(2)} | ${perThousandElements!.toFixed(2)} | ${perTenThousandCharacters!.toFixed(2)} |`,
    );
  }
  console.log(
    `\nThe fit of the total explains ${pct(fit(total).rSquared, 1)} of its variance over the pages.`,
  );
}

async function pool(pages: readonly Page[], workers: number): Promise<void> {
  const extractor = createContentExtractor({ workers, timeoutMs: 60_000 });
  await Promise.all(pages.slice(0, workers).map((page) => extractor.extract(asFetchedPage(page), call))); // warm-up
  const start = performance.now();
  await Promise.all(pages.map((page) => extractor.extract(asFetchedPage(page), call)));
  const wall = performance.now() - start;
  await extractor.close?.();
  console.log(
    `\nWorker pool (${workers} workers, all ${pages.length} pages submitted at once): ${Math.round(wall)} ms wall, ${ms1(wall / pages.length)} ms/page amortised`,
  );
}

// The profile runs first, on its own, so that nothing else runs beside it.
if (values.profile) {
  const source = sets.has('wcxb') ? datasetDir('wcxb-dev') : datasetDir('article-extraction-benchmark');
  const pages: Page[] = sets.has('wcxb') ? wcxbPages(source.dir) : loadBenchmarkPages(source.dir);
  await profile(pages);
  const workers = Number(values.pool);
  if (workers > 0) await pool(pages, workers);
}
if (sets.has('wcxb')) {
  const wcxb = datasetDir('wcxb-dev');
  await benchWcxb(wcxb.dir);
}
if (sets.has('articles')) {
  const articles = datasetDir('article-extraction-benchmark');
  await benchArticles(articles.dir);
}
if (values.dump) writeFileSync(values.dump, JSON.stringify(dump, null, 1));
await worker?.close?.();
