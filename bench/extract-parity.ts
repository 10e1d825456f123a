/**
 * Whether two DOMs give the same extraction: every page of both extraction datasets (WCXB dev and the article
 * benchmark) through `extractHtml` on each, the results compared field by field. The small DOM
 * (src/pipeline/extract/lite-dom.ts), the only one extraction uses, reproduces the tree and the quirks of
 * linkedom that the results depend on; linkedom and jsdom are dev dependencies, kept as references
 * (bench/lib/reference-doms.ts). This is how a change to the small DOM or to a stage is checked against the
 * whole of both sets.
 *
 *   node bench/extract-parity.ts [--data DIR] [--every N] [--doms lite,linkedom] [--show K]
 *
 * Prints the number of pages whose results differ and, for the first K of them (default 5), each differing
 * field around its first difference. Exits with status 1 when any page differs.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { decodeBytes } from '../src/pipeline/extract/decode.ts';
import { extractHtml } from '../src/pipeline/extract/html.ts';
import { loadBenchmarkPages } from './lib/article-benchmark.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import { DOMS, parserOf, type DomName } from './lib/reference-doms.ts';
import { loadWcxbPages } from './lib/wcxb.ts';

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    every: { type: 'string', default: '1' },
    doms: { type: 'string', default: 'lite,linkedom' },
    show: { type: 'string', default: '5' },
  },
});

function fail(sentence: string): never {
  console.error(sentence);
  process.exit(2);
}

const every = Number(values.every);
if (!Number.isInteger(every) || every < 1) fail('--every must be a positive integer.');
const show = Number(values.show);
if (!Number.isInteger(show) || show < 0) fail('--show must be a whole number.');
const doms = values.doms.split(',').map((name) => name.trim());
if (doms.length !== 2 || !doms.every((name) => (DOMS as readonly string[]).includes(name))) {
  fail(`--doms must name two of ${DOMS.join(', ')}.`);
}
const [first, second] = doms as [DomName, DomName];

const datasets = resolveDatasetsDir(values.data, ['wcxb-dev', 'article-extraction-benchmark']);
const pages = [
  ...loadWcxbPages(join(datasets, 'wcxb-dev'), every).map((page) => ({ ...page, id: `wcxb ${page.id}` })),
  ...loadBenchmarkPages(join(datasets, 'article-extraction-benchmark'))
    .filter((_, index) => index % every === 0)
    .map((page) => ({ ...page, id: `article ${page.id}` })),
];

/** The text around the first character where two strings differ. */
function around(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - 60), at + 100));
}

let differing = 0;
for (const page of pages) {
  const html = decodeBytes(page.html, { sniffMeta: true }).text;
  // One after the other: each DOM's extraction is synchronous work.
  const a = (await extractHtml(html, { url: page.url, parser: parserOf(first) })) as Record<
    string,
    unknown
  > | null;
  const b = (await extractHtml(html, { url: page.url, parser: parserOf(second) })) as Record<
    string,
    unknown
  > | null;
  if (JSON.stringify(a) === JSON.stringify(b)) continue;
  differing++;
  if (differing > show) continue;
  console.log(`${page.id} differs:`);
  for (const field of new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])) {
    const x = JSON.stringify(a?.[field]) ?? 'undefined';
    const y = JSON.stringify(b?.[field]) ?? 'undefined';
    if (x === y) continue;
    let at = 0;
    while (at < x.length && x[at] === y[at]) at++;
    console.log(`  ${field}\n    ${first}:  ${around(x, at)}\n    ${second}: ${around(y, at)}`);
  }
}
console.log(`${pages.length} pages, ${differing} with different results (${first} against ${second}).`);
process.exitCode = differing === 0 ? 0 : 1;
