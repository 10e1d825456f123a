/**
 * The hash of every extraction result: each page of both extraction datasets (WCXB dev and the article
 * benchmark, 1,678 pages) through a checkout's `extractContent`, given the page's bytes as the service gives
 * them, and the SHA-256 of each result's JSON. Two checkouts give the same output on every page when their
 * lists are the same: the check that a change which should change no result changes none.
 *
 *   node bench/extract-hashes.ts [--data DIR] [--root <checkout>] [--workers] [--out FILE]
 *
 * `--root` hashes another checkout's extractor (this one's by default), as `bench:extract:versus` takes
 * `--before`; a checkout from before linkedom left production is run with the settings its workers applied to
 * linkedom. `--workers` extracts in that checkout's extraction worker (`createContentExtractor`) instead of
 * the calling thread. `--out` writes one line a page (`<set> <id>`, a tab, the hash) to compare with `cmp`;
 * the last line printed is the page count and the hash of all the hashes.
 */
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ContentExtractor, ExtractedContent } from '../src/pipeline/types.ts';
import { loadBenchmarkPages } from './lib/article-benchmark.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';
import { asFetchedPage } from './lib/fetched-page.ts';
import { loadWcxbPages } from './lib/wcxb.ts';

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    root: { type: 'string', default: '.' },
    workers: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

const root = resolve(values.root);
if (!existsSync(join(root, 'src/pipeline/extract/extract.ts'))) {
  console.error(`--root ${values.root} is not a checkout of citewise (no src/pipeline/extract/extract.ts).`);
  process.exit(2);
}
const module = (path: string): string => pathToFileURL(join(root, path)).href;

type Extract = (page: {
  readonly url: string;
  readonly html: Uint8Array;
}) => Promise<ExtractedContent | null>;

/** The checkout's extraction, in this thread or in its extraction worker, and how to stop it. */
async function loadExtract(): Promise<{ extract: Extract; close: () => Promise<void> }> {
  if (values.workers) {
    const { createContentExtractor } = (await import(module('src/pipeline/extract/extractor.ts'))) as {
      createContentExtractor: (options: object) => ContentExtractor;
    };
    const extractor = createContentExtractor({ workers: 1, timeoutMs: 600_000 });
    const signal = new AbortController().signal;
    return {
      extract: (page) => extractor.extract(asFetchedPage(page), { signal, requestId: 'hashes' }),
      close: async () => extractor.close?.(),
    };
  }
  const workerSettings = 'src/pipeline/extract/worker-dom.ts';
  if (existsSync(join(root, workerSettings))) {
    const settings = (await import(module(workerSettings))) as { tuneLinkedomForWorkers(): boolean };
    settings.tuneLinkedomForWorkers();
  }
  const { extractContent } = (await import(module('src/pipeline/extract/extract.ts'))) as {
    extractContent: (input: Uint8Array, options: object) => Promise<ExtractedContent | null>;
  };
  return {
    extract: (page) => extractContent(page.html, { url: page.url, contentType: 'text/html' }),
    close: async () => undefined,
  };
}

const datasets = resolveDatasetsDir(values.data, ['wcxb-dev', 'article-extraction-benchmark']);
const pages = [
  ...loadWcxbPages(join(datasets, 'wcxb-dev')).map((page) => ({ ...page, id: `wcxb ${page.id}` })),
  ...loadBenchmarkPages(join(datasets, 'article-extraction-benchmark')).map((page) => ({
    ...page,
    id: `article ${page.id}`,
  })),
];
const { extract, close } = await loadExtract();
const lines: string[] = [];
const all = createHash('sha256');
try {
  for (const page of pages) {
    const hash = createHash('sha256')
      .update(JSON.stringify(await extract(page)))
      .digest('hex');
    all.update(hash);
    lines.push(`${page.id}\t${hash}`);
  }
} finally {
  await close();
}
if (values.out) writeFileSync(values.out, `${lines.join('\n')}\n`);
console.log(`${pages.length} pages, hash of all results ${all.digest('hex')}`);
