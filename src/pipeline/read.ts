/**
 * Reading result pages within a latency budget: every page is fetched and extracted in parallel, and the
 * pipeline waits for them by one rule instead of for the slowest.
 *
 * - A page has *arrived* once its bytes are in (or its fetch failed: the snippet stands in).
 * - Once {@link ARRIVED_SHARE} of the pages being waited for have arrived, the others (stragglers) get at
 *   most `stragglerGraceMs` more, counted from that arrival (for pages read ahead, often before the wait
 *   for them began). Pages that arrived before that are extracted and used: only the network
 *   wait is cut, never work already paid for.
 * - A search extracts at most {@link EXTRACTIONS_PER_SEARCH} pages at a time, best search position first:
 *   extraction is the costly step, and one search reading 40 pages must not queue every other search's
 *   first pages behind its own on the shared worker pool.
 * - At `answerBy` (the request's `max_latency_ms`) the wait for the web stops: pages still being fetched
 *   are answered from their search snippets; pages that arrived are still extracted, in the order above.
 *
 * A straggler is not aborted when its wait ends: the pipeline can still use it when it reads deeper, and
 * stops it with {@link PageReader.stop} when the answer starts. An extraction that is running when its
 * page is stopped finishes in the background (stopping it would cost a worker restart) unless the request
 * itself is aborted.
 */
import type {
  CallOptions,
  ContentExtractor,
  ExtractedContent,
  FetchedPage,
  PageFetcher,
  SearchHit,
} from './types.ts';
import PQueue from 'p-queue';

/**
 * Share (0–1) of the pages waited for that must have arrived before the others get only the grace period.
 * With the default 5 first pages, 4 must be in; one hung page then costs the grace, not the fetch deadline.
 */
export const ARRIVED_SHARE = 0.8;

/**
 * Pages one search extracts at the same time (the default extraction worker pool has 2 workers). The others
 * wait in the search's own queue, the most promising first, so that one search reading 40 pages does not
 * queue other searches' first pages behind its own.
 */
export const EXTRACTIONS_PER_SEARCH = 2;

/**
 * Where one page is. `fetched`: its bytes are in and it waits for the go to extract (read-ahead) or for its
 * turn among the search's extractions.
 */
export type PageReadState = 'waiting' | 'fetched' | 'extracting' | 'done';

/** One page being read. */
export interface PageRead {
  readonly hit: SearchHit;
  readonly state: PageReadState;
  /**
   * What the pipeline ranks for this hit: the extracted page once done, else the hit's snippet (or its
   * provider text); `null` when there is neither.
   */
  readonly document: ExtractedContent | null;
}

/** Options of {@link createPageReader}. */
export interface PageReaderOptions {
  /** Without a fetcher (or extractor), hits are read from their snippets at once. */
  readonly fetcher?: PageFetcher | undefined;
  readonly extractor?: ContentExtractor | undefined;
  /** Time allowed to fetch and extract one page, in ms; never past `call.deadline`. */
  readonly pageTimeoutMs: number;
  /** Most time stragglers are waited for once {@link ARRIVED_SHARE} of the pages arrived, in ms. */
  readonly stragglerGraceMs: number;
  /** Epoch ms after which nothing is waited for any more (the answer starts). */
  readonly answerBy: number;
  readonly call: CallOptions;
}

/** Reads the pages of one search. */
export interface PageReader {
  /** True when pages are fetched (a fetcher and an extractor are set). */
  readonly fetches: boolean;
  /**
   * Starts reading `hits`. With `extract: false` the pages are only fetched (read-ahead) until
   * {@link release} lets them be extracted. `weigh` judges a page once fetched, before the expensive
   * extraction: `false` keeps its snippet; a number (0–1, higher is better) places it among the search's
   * pages waiting to be extracted, after the pages read without `weigh` (which go in search order).
   */
  read(
    hits: readonly SearchHit[],
    options?: {
      readonly extract?: boolean;
      readonly weigh?: (page: FetchedPage) => number | false;
    },
  ): PageRead[];
  /** Lets fetched-only pages be extracted. */
  release(reads: readonly PageRead[]): void;
  /**
   * Resolves when every read is done, or once the stragglers' grace is over or `answerBy` passed and the
   * pages that arrived are extracted (at `answerBy` the pages still being fetched are stopped). Never
   * rejects.
   */
  settle(reads: readonly PageRead[]): Promise<void>;
  /** Stops every read not done yet (their snippets stand in). */
  stop(): void;
  /** The documents of `reads`, in order, without the hits that have none. */
  documents(reads: readonly PageRead[]): ExtractedContent[];
}

interface MutableRead {
  /** Order of the read in the search (search position): earlier reads are extracted first. */
  readonly order: number;
  /** When the page's fetch ended (epoch ms), for the straggler grace. */
  arrivedAt?: number;
  readonly hit: SearchHit;
  state: PageReadState;
  document: ExtractedContent | null;
  readonly stopper: AbortController;
  readonly go: { readonly promise: Promise<void>; open(): void };
  readonly weigh: ((page: FetchedPage) => number | false) | undefined;
}

/** Creates the page reader of one search. */
export function createPageReader(options: PageReaderOptions): PageReader {
  const { fetcher, extractor, call } = options;
  const fetches = fetcher !== undefined && extractor !== undefined;
  const all: MutableRead[] = [];
  const listeners = new Set<() => void>();
  const changed = (read: MutableRead, state: PageReadState): void => {
    if (read.state === 'waiting') read.arrivedAt = Date.now();
    read.state = state;
    for (const listener of [...listeners]) listener();
  };

  const extractions = new PQueue({ concurrency: EXTRACTIONS_PER_SEARCH });

  async function readPage(read: MutableRead): Promise<void> {
    const deadline = Math.min(call.deadline ?? Infinity, Date.now() + options.pageTimeoutMs);
    // A timer cleared when the page is done, not AbortSignal.timeout(), which fake clocks cannot drive.
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException('page timeout', 'TimeoutError')),
      Math.max(0, deadline - Date.now()),
    );
    // The work on the page stops with the request or the page's timeout; the search's wait for it also
    // stops when the page is stopped (then a running extraction is left to finish, unused).
    const workSignal = AbortSignal.any([call.signal, timeout.signal]);
    const signal = AbortSignal.any([workSignal, read.stopper.signal]);
    try {
      // Every step races the signal, so even a stage that ignores its signal cannot hold the search.
      const page = await untilAborted(
        fetcher!.fetch(new URL(read.hit.url), { ...call, signal, deadline }),
        signal,
      );
      const weight = read.weigh?.(page);
      if (weight === false) return;
      changed(read, 'fetched');
      await untilAborted(read.go.promise, signal);
      const content = await extractions.add(
        () => {
          changed(read, 'extracting');
          return untilAborted(extractor!.extract(page, { ...call, signal: workSignal, deadline }), signal);
        },
        { priority: extractionPriority(read.order, weight), signal },
      );
      if (content && content.text.trim())
        read.document = { ...content, title: content.title || read.hit.title };
    } catch {
      // A page that failed, timed out or was stopped is dropped; its snippet stands in.
    } finally {
      clearTimeout(timer);
      changed(read, 'done');
    }
  }

  return {
    fetches,
    read(hits, readOptions = {}) {
      return hits.map((hit) => {
        const read: MutableRead = {
          order: all.length,
          hit,
          state: 'waiting',
          document: hit.content ? providerDocument(hit, hit.content) : snippetDocument(hit),
          stopper: new AbortController(),
          go: latch(),
          weigh: readOptions.weigh,
        };
        if (readOptions.extract !== false) read.go.open();
        all.push(read);
        if (hit.content || !fetches) {
          read.state = 'done';
          read.arrivedAt = Date.now();
        } else void readPage(read);
        return read;
      });
    },
    release(reads) {
      // Held until every released page has joined the queue, so that the best of them, not the first
      // to join, is extracted first.
      extractions.pause();
      for (const read of reads as MutableRead[]) read.go.open();
      setTimeout(() => extractions.start(), 0);
    },
    settle(reads) {
      const mine = reads as readonly MutableRead[];
      const quorum = Math.max(1, Math.ceil(mine.length * ARRIVED_SHARE));
      return new Promise<void>((resolve) => {
        let graceTimer: NodeJS.Timeout | undefined;
        // Past the grace period or the answer time, only pages that arrived are waited for.
        let patienceOver = false;
        const finish = (): void => {
          clearTimeout(graceTimer);
          clearTimeout(answerTimer);
          listeners.delete(check);
          resolve();
        };
        const answerTimer = setTimeout(
          () => {
            patienceOver = true;
            for (const read of mine) {
              // Pages that arrived are still extracted: cutting them shortens the tail but, on a busy
              // machine, costs answers (measured: answer in context 0.956 → 0.942 with instant pages).
              if (read.state === 'waiting') read.stopper.abort(new Error('the answer starts'));
            }
            check();
          },
          Math.max(0, options.answerBy - Date.now()),
        );
        function check(): void {
          let waiting = 0;
          let working = 0;
          for (const read of mine) {
            if (read.state === 'waiting') waiting++;
            else if (read.state !== 'done') working++;
          }
          if (working === 0 && (waiting === 0 || patienceOver)) {
            finish();
            return;
          }
          if (graceTimer === undefined && waiting > 0 && mine.length - waiting >= quorum) {
            // The grace counts from the arrival that made the quorum, which for pages read ahead may be
            // long before this wait began: their stragglers have had their chance already.
            const arrivals = mine
              .map((read) => read.arrivedAt)
              .filter((at): at is number => at !== undefined)
              .sort((a, b) => a - b);
            const quorumAt = arrivals[quorum - 1] ?? Date.now();
            graceTimer = setTimeout(
              () => {
                patienceOver = true;
                check();
              },
              Math.max(0, quorumAt + options.stragglerGraceMs - Date.now()),
            );
          }
        }
        listeners.add(check);
        check();
      });
    },
    stop() {
      for (const read of all) if (read.state !== 'done') read.stopper.abort(new Error('answer started'));
    },
    documents(reads) {
      return reads.map((read) => read.document).filter((doc): doc is ExtractedContent => doc !== null);
    },
  };
}

/**
 * Higher goes first: pages read without a weight (the first results) in search order, then weighed pages
 * best first, ties in search order.
 */
function extractionPriority(order: number, weight: number | undefined): number {
  return weight === undefined ? 1e9 - order : weight * 1e6 - order;
}

function providerDocument(hit: SearchHit, text: string): ExtractedContent {
  return { url: hit.url, title: hit.title, text, markdown: text };
}

function snippetDocument(hit: SearchHit): ExtractedContent | null {
  return hit.snippet ? providerDocument(hit, hit.snippet) : null;
}

function latch(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
