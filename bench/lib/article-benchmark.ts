/** Loads the article-extraction benchmark pages from the datasets folder (read in place, never copied). */
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

/** Reads every page (sorted by id), or only `ids` when given. */
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
