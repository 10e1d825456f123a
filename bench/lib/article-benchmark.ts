/** Loads the article-extraction benchmark pages from /work/shared/datasets (read in place). */
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** One benchmark page. */
export interface BenchmarkPage {
  readonly id: string;
  readonly url: string;
  readonly html: Uint8Array;
  readonly truth: string;
}

/** Default dataset location: `../shared/datasets/article-extraction-benchmark` next to the checkout. */
export const DEFAULT_BENCHMARK_DIR = fileURLToPath(
  new URL('../../../shared/datasets/article-extraction-benchmark', import.meta.url),
);

/** Reads every page (sorted by id), or only `ids` when given. */
export function loadBenchmarkPages(
  directory = DEFAULT_BENCHMARK_DIR,
  ids?: readonly string[],
): BenchmarkPage[] {
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
