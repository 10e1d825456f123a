/**
 * This checkout's extractor against another checkout's (an older commit), in one process, alternating page by
 * page, so that a shared machine's changing speed hits both alike: the firm way to measure a speed change
 * here, where the machine's speed moves by a quarter within minutes and two runs of `bench:extract` minutes
 * apart cannot be compared. Both run with the extraction workers' linkedom settings, as the service runs
 * them, on every WCXB page (`--every N` for one in N), each page `--reps` times per side, with the side that
 * goes first swapped from page to page.
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node bench/extract-versus.ts --before /tmp/before [--data DIR] [--every N] [--reps 2]
 *
 * Prints, per side, the median and p90 milliseconds per page (each page's mean over its repetitions), the
 * pages over 25 ms, and the ratio of the totals (after / before).
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeBytes } from '../src/pipeline/extract/decode.ts';
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
  },
});

if (!values.before || !existsSync(join(values.before, 'src/pipeline/extract/html.ts'))) {
  console.error('Pass --before <dir>: another checkout of citewise (see the usage at the top of this file).');
  process.exit(2);
}
const reps = Number(values.reps);
const every = Number(values.every);
if (!Number.isInteger(reps) || reps < 1 || !Number.isInteger(every) || every < 1) {
  console.error('--reps and --every take whole numbers from 1.');
  process.exit(2);
}

/** One checkout's extractor, with the workers' linkedom settings applied. */
async function loadExtractor(root: string): Promise<ExtractHtml> {
  const module = (path: string): string => pathToFileURL(join(resolve(root), path)).href;
  const workerDom = (await import(module('src/pipeline/extract/worker-dom.ts'))) as {
    tuneLinkedomForWorkers(): boolean;
  };
  workerDom.tuneLinkedomForWorkers();
  const html = (await import(module('src/pipeline/extract/html.ts'))) as { extractHtml: ExtractHtml };
  return html.extractHtml;
}

const directory = join(resolveDatasetsDir(values.data, ['wcxb-dev']), 'wcxb-dev');
const pages = loadWcxbPages(directory, every).map((page) => ({
  url: page.url,
  html: decodeBytes(page.html, { sniffMeta: true }).text,
}));
const sides = [
  { name: `before (${values.before})`, extract: await loadExtractor(values.before) },
  { name: 'after (this checkout)', extract: await loadExtractor('.') },
];

// Warm-up: both sides' code compiled and optimized before timing.
for (const page of pages.slice(0, 30)) for (const side of sides) await side.extract(page.html, page);

const times = sides.map(() => new Array<number>(pages.length).fill(0));
for (let rep = 0; rep < reps; rep++) {
  for (const [index, page] of pages.entries()) {
    const order = (index + rep) % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      const start = performance.now();
      await sides[side]!.extract(page.html, page);
      times[side]![index]! += performance.now() - start;
    }
  }
  process.stderr.write(`  ${rep + 1}/${reps}`);
}
process.stderr.write('\n');

const totals = times.map((perPage) => perPage.reduce((sum, ms) => sum + ms, 0));
console.log(`WCXB dev, ${pages.length} pages, ${reps} run(s) per side, alternating page by page\n`);
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
