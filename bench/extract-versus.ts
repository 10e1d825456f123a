/**
 * This checkout's extractor against another checkout's (an older commit), in one process, alternating page by
 * page, so that a shared machine's changing speed hits both alike: the firm way to measure a speed change
 * here, where the machine's speed moves by a quarter within minutes and two runs of `bench:extract` minutes
 * apart cannot be compared. Both run as the service's extraction workers run them (an older checkout that
 * tuned linkedom in its workers, `src/pipeline/extract/worker-dom.ts`, with those settings), on every WCXB
 * page (`--every N` for one in N), each page `--reps` times per side, with the side that goes first swapped
 * from page to page.
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node bench/extract-versus.ts --before /tmp/before [--data DIR] [--every N] [--reps 2]
 *
 * Prints, per side, the median and p90 milliseconds per page (each page's mean over its repetitions), the
 * pages over 25 ms, and the ratio of the totals (after / before).
 *
 * With `--workers`, each side runs in an extraction worker thread of its own (that checkout's
 * `src/pipeline/extract/worker.ts`, given the page's bytes, as the service's pool does), taking turns over
 * blocks of `--block` pages (default 20), the side that goes first swapped from block to block; a page is
 * timed around its round trip. Each side then has a heap of its own, so a change to what the garbage
 * collector has to do is measured where it happens (in one process, one side's garbage is collected while
 * the other is timed).
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeBytes } from '../src/pipeline/extract/decode.ts';
import { createWorkerPool } from '../src/scheduling/worker-pool.ts';
import type { ExtractTaskPayload } from '../src/pipeline/extract/worker.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import { loadWcxbPages } from './lib/wcxb.ts';
import { percentile } from './qa/metrics.ts';

/** The p90 target of the extraction issue: pages over it are counted. */
const SLOW_PAGE_MS = 25;

type ExtractHtml = (html: string, options: { readonly url: string }) => Promise<unknown>;

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    before: { type: 'string' },
    every: { type: 'string', default: '1' },
    reps: { type: 'string', default: '2' },
    workers: { type: 'boolean', default: false },
    block: { type: 'string', default: '20' },
  },
});

if (!values.before || !existsSync(join(values.before, 'src/pipeline/extract/html.ts'))) {
  console.error('Pass --before <dir>: another checkout of citewise (see the usage at the top of this file).');
  process.exit(2);
}
const reps = Number(values.reps);
const every = Number(values.every);
const block = Number(values.block);
if ([reps, every, block].some((value) => !Number.isInteger(value) || value < 1)) {
  console.error('--reps, --every and --block take whole numbers from 1.');
  process.exit(2);
}

/**
 * One checkout's extractor, as its workers run it: a checkout from before linkedom left production tunes
 * linkedom there (worker-dom.ts), and that is applied too.
 */
async function loadExtractor(root: string): Promise<ExtractHtml> {
  const module = (path: string): string => pathToFileURL(join(resolve(root), path)).href;
  if (existsSync(join(root, 'src/pipeline/extract/worker-dom.ts'))) {
    const workerDom = (await import(module('src/pipeline/extract/worker-dom.ts'))) as {
      tuneLinkedomForWorkers(): boolean;
    };
    workerDom.tuneLinkedomForWorkers();
  }
  const html = (await import(module('src/pipeline/extract/html.ts'))) as { extractHtml: ExtractHtml };
  return html.extractHtml;
}

/** Extracts one page; the time of each call is what is compared. */
type Extract = (page: Page) => Promise<unknown>;

/** A page as bytes (for the workers, which decode it as the service does) and decoded (for this thread). */
interface Page {
  readonly url: string;
  readonly html: Uint8Array;
  readonly text: string;
}

/** One checkout's extractor in this thread, as its workers run it. */
async function inThisThread(root: string): Promise<Extract> {
  const extractHtml = await loadExtractor(root);
  return (page) => extractHtml(page.text, page);
}

/**
 * One checkout's extractor in an extraction worker of its own (that checkout's worker, run by this checkout's
 * pool): the page's bytes there and the result back.
 */
function inWorker(root: string): { extract: Extract; close: () => Promise<void> } {
  const pool = createWorkerPool<ExtractTaskPayload, unknown>({
    workerUrl: pathToFileURL(join(resolve(root), 'src/pipeline/extract/worker.ts')),
    size: 1,
  });
  return {
    extract: (page) => pool.run({ input: page.html, options: { url: page.url, contentType: 'text/html' } }),
    close: () => pool.close(),
  };
}

const directory = join(resolveDatasetsDir(values.data, ['wcxb-dev']), 'wcxb-dev');
const pages: Page[] = loadWcxbPages(directory, every).map(({ url, html }) => ({
  url,
  html,
  text: values.workers ? '' : decodeBytes(html, { sniffMeta: true }).text,
}));
const roots = [values.before, '.'];
const workers = values.workers ? roots.map(inWorker) : [];
const sides = [
  { name: `before (${values.before})`, extract: workers[0]?.extract ?? (await inThisThread(roots[0]!)) },
  { name: 'after (this checkout)', extract: workers[1]?.extract ?? (await inThisThread(roots[1]!)) },
];

// Warm-up: both sides' code compiled and optimized before timing.
for (const page of pages.slice(0, 30)) for (const side of sides) await side.extract(page);

const times = sides.map(() => new Array<number>(pages.length).fill(0));
/** Pages each side extracts before the other takes its turn: one page in one process, `--block` in workers. */
const turn = values.workers ? block : 1;
for (let rep = 0; rep < reps; rep++) {
  for (let start = 0; start < pages.length; start += turn) {
    const order = (start / turn + rep) % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      for (let index = start; index < Math.min(pages.length, start + turn); index++) {
        const begin = performance.now();
        await sides[side]!.extract(pages[index]!);
        times[side]![index]! += performance.now() - begin;
      }
    }
  }
  process.stderr.write(`  ${rep + 1}/${reps}`);
}
process.stderr.write('\n');
await Promise.all(workers.map((worker) => worker.close()));

const totals = times.map((perPage) => perPage.reduce((sum, ms) => sum + ms, 0));
console.log(
  values.workers
    ? `WCXB dev, ${pages.length} pages, ${reps} run(s) per side, each side in an extraction worker, taking turns over blocks of ${block} pages\n`
    : `WCXB dev, ${pages.length} pages, ${reps} run(s) per side, in this thread, alternating page by page\n`,
);
console.log('| code | median ms | p90 ms | pages over 25 ms | total ms |');
console.log('|---|---|---|---|---|');
for (const [side, perPage] of times.entries()) {
  const pageMeans = perPage.map((ms) => ms / reps);
  const slow = pageMeans.filter((ms) => ms > SLOW_PAGE_MS).length;
  console.log(
    `| ${sides[side]!.name} | ${percentile(pageMeans, 50).toFixed(1)} | ${percentile(pageMeans, 90).toFixed(1)} | ${slow} | ${Math.round(totals[side]! / reps)} |`,
  );
}
console.log(`\nTotal after / before: ${(totals[1]! / totals[0]!).toFixed(3)}`);
