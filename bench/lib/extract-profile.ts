/**
 * The stage profile of `bench:extract --profile`, run in a thread of its own set up as the extraction workers
 * are, so that it shows how the service spends its time. Besides the time per stage it records each page's size,
 * so that the benchmark can fit how each stage's time grows with the page: what the slow pages are made of.
 */
import { Worker } from 'node:worker_threads';
import { decodeBytes } from '../../src/pipeline/extract/decode.ts';
import { parseDocument, SHOW } from '../../src/pipeline/extract/dom.ts';
import { withoutInertMarkup } from '../../src/pipeline/extract/inert-markup.ts';
import { extractHtml, type StageTimes } from '../../src/pipeline/extract/html.ts';

/** A page to profile. */
export interface ProfilePage {
  readonly url: string;
  readonly html: Uint8Array;
}

/** One page's stage times and its size after the pre-parse pruning. */
export interface PageProfile {
  /** Milliseconds per stage (`decode` included). */
  readonly stages: StageTimes;
  /** Elements of the document the stages work on (the page after pruning inert markup). */
  readonly elements: number;
  /** Characters of text in that document. */
  readonly textCharacters: number;
}

/** The profile of every page, and the thread's heap after garbage collection at the start and per quarter. */
export interface ProfileResult {
  readonly pages: PageProfile[];
  readonly heapMiB: number[];
}

/** Counts the elements and text characters of the document the stages parse (not timed). */
async function pageSize(html: string): Promise<{ elements: number; textCharacters: number }> {
  const { document } = parseDocument(withoutInertMarkup(html));
  let elements = 0;
  let textCharacters = 0;
  const walker = document.createTreeWalker(document, SHOW.ELEMENT | SHOW.TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === 1) elements++;
    else textCharacters += (node as Text).data.length;
  }
  return { elements, textCharacters };
}

/**
 * Profiles the pages in the calling thread, one after another, then measures their sizes in a second pass (so
 * that the garbage of the size count is not collected while a page is timed).
 */
export async function profilePages(
  pages: readonly ProfilePage[],
  heapMiB: () => number,
): Promise<ProfileResult> {
  const timings: StageTimes[] = [];
  const heap = [heapMiB()];
  const quarter = Math.max(1, Math.ceil(pages.length / 4));
  for (const [index, page] of pages.entries()) {
    if (index > 0 && index % quarter === 0) heap.push(heapMiB());
    const stages: StageTimes = {};
    const start = performance.now();
    const html = decodeBytes(page.html, { sniffMeta: true }).text;
    stages.decode = performance.now() - start;
    await extractHtml(html, { url: page.url, stageTimes: stages });
    timings.push(stages);
  }
  heap.push(heapMiB());
  const profiles: PageProfile[] = [];
  for (const [index, page] of pages.entries()) {
    profiles.push({
      stages: timings[index]!,
      ...(await pageSize(decodeBytes(page.html, { sniffMeta: true }).text)),
    });
  }
  return { pages: profiles, heapMiB: heap };
}

/** Runs {@link profilePages} in a new worker thread, as extraction workers run. */
export function profileInWorker(pages: readonly ProfilePage[]): Promise<ProfileResult> {
  const worker = new Worker(new URL('./extract-profile-worker.ts', import.meta.url), {
    workerData: pages.map(({ url, html }) => ({ url, html })),
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: ProfileResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', reject);
  });
}
