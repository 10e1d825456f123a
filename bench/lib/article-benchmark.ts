/** Loads the article-extraction benchmark pages from the benchmarks' data folder (read in place). */
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';

/** One benchmark page. */
export interface BenchmarkPage {
  readonly id: string;
  readonly url: string;
  readonly html: Uint8Array;
  readonly truth: string;
}

/** The benchmark's folder inside the data folder (see `bench/lib/datasets.ts`). */
export const ARTICLE_BENCHMARK_DIR = 'article-extraction-benchmark';

/** Reads every page of `directory` (the benchmark's own folder), sorted by id, or only `ids` when given. */
export function loadBenchmarkPages(directory: string, ids?: readonly string[]): BenchmarkPage[] {
  const truth = JSON.parse(readFileSync(join(directory, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody: string; url: string }
  >;
  const wanted = ids ?? readdirSync(join(directory, 'html')).map((name) => name.replace(/\.html\.gz$/, ''));
  return [...wanted].sort().map((id) => {
    const entry = truth[id];
    if (!entry) throw new Error(`no ground truth for ${id}`);
    const html = gunzipSync(readFileSync(join(directory, 'html', `${id}.html.gz`)));
    return { id, url: entry.url, html: new Uint8Array(html), truth: entry.articleBody };
  });
}
