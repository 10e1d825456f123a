/**
 * Reading result pages within a latency budget: every page is fetched and extracted in parallel, and the
 * pipeline waits for them by one rule instead of for the slowest.
 *
 * - A page has *arrived* once its bytes are in (or its fetch failed: the snippet stands in).
 * - Once {@link ARRIVED_SHARE} of the pages being waited for have arrived, the others (stragglers) get at
 *   most `stragglerGraceMs` more, counted from that arrival (for pages read ahead, often before the wait
 *   for them began). Pages that arrived are always extracted and used: only the network wait is cut,
 *   never work already paid for.
 * - The first {@link PATIENT_RESULTS} result is not a straggler: it is waited for until `answerBy`.
 * - At `answerBy` (the request's `max_latency_ms`) the wait for the web stops: pages still being fetched
 *   are answered from their search snippets; pages that arrived are still extracted (milliseconds of CPU).
 *
 * A page is not aborted when the wait for it ends, not even at `answerBy`: one that arrives while pages
 * that arrived before it are still extracted (or while the pipeline reads deeper) is used, since the answer
 * has not started yet. {@link PageReader.stop} stops the rest when the answer starts.
 */
import type {
  CallOptions,
  ContentExtractor,
  ExtractedContent,
  FetchedPage,
  PageFetcher,
  SearchHit,
} from './types.ts';
import { SPECULATIVE_PRIORITY } from './types.ts';
import { raceSignal } from './abort.ts';

/**
 * Share (0–1) of the pages waited for that must have arrived before the others get only the grace period.
 * With the default 5 first pages, 4 must be in; one hung page then costs the grace, not the fetch deadline.
 */
export const ARRIVED_SHARE = 0.8;

/**
 * Search results at the top of the list waited for until the answer time, never cut by the stragglers'
 * grace: the first result is the likeliest to hold the answer (on the QA benchmark the gold page is the
 * first result for about three questions in four), so a slow first page is worth the wait.
 */
export const PATIENT_RESULTS = 1;

/** Where one page is. `fetched`: its bytes are in and it waits for the go to extract (read-ahead). */
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
   * {@link release} lets them be extracted. A page that `admit` refuses once fetched is not extracted
   * (its snippet stands in): extraction is the expensive step.
   */
  read(
    hits: readonly SearchHit[],
    options?: {
      readonly extract?: boolean;
      readonly admit?: (page: FetchedPage) => boolean;
      /** The first this many hits are waited for until `answerBy`, not cut by the grace. @default 0 */
      readonly patient?: number;
    },
  ): PageRead[];
  /** Lets fetched-only pages be extracted. */
  release(reads: readonly PageRead[]): void;
  /**
   * Resolves when every read is done, or once the stragglers' grace is over or `answerBy` passed and the
   * pages that arrived are extracted (a page arriving meanwhile is extracted too). Stops nothing. Never
   * rejects. `graceMs` replaces the reader's `stragglerGraceMs` for this wait.
   */
  settle(reads: readonly PageRead[], options?: { readonly graceMs?: number }): Promise<void>;
  /** Stops every read not done yet (their snippets stand in). */
  stop(): void;
  /** The documents of `reads`, in order, without the hits that have none. */
  documents(reads: readonly PageRead[]): ExtractedContent[];
}

interface MutableRead {
  /** The hit's position among the search's results (0 first): the fetcher serves a host's pages in this order. */
  readonly position: number;
  /** When the page's fetch ended (epoch ms), for the stragglers' grace. */
  arrivedAt?: number;
  /** Waited for until the answer time, never cut by the stragglers' grace. */
  readonly patient: boolean;
  readonly hit: SearchHit;
  state: PageReadState;
  document: ExtractedContent | null;
  readonly stopper: AbortController;
  readonly go: { readonly promise: Promise<void>; open(): void };
  /** Its extraction is wanted (not only read ahead): its fetch is then needed, not speculative. */
  wanted: boolean;
  readonly admit: ((page: FetchedPage) => boolean) | undefined;
}

/** Defaults of {@link PageReader.read}'s options: no hit waited for past the grace. */
export const READ_DEFAULTS = { patient: 0 } as const;

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

  async function readPage(read: MutableRead): Promise<void> {
    const deadline = Math.min(call.deadline ?? Infinity, Date.now() + options.pageTimeoutMs);
    // A timer cleared when the page is done, not AbortSignal.timeout(), which fake clocks cannot drive.
    const timer = setTimeout(
      () => read.stopper.abort(new DOMException('page timeout', 'TimeoutError')),
      Math.max(0, deadline - Date.now()),
    );
    const signal = AbortSignal.any([call.signal, read.stopper.signal]);
    // A page read ahead is a speculative fetch until its extraction is wanted: the fetcher sends it only
    // when its host has room to spare, and any needed page goes first (read when the host picks).
    const pageCall = {
      ...call,
      signal,
      deadline,
      get priority() {
        return read.wanted ? read.position : SPECULATIVE_PRIORITY + read.position;
      },
    };
    try {
      // Every step races the signal, so even a stage that ignores its signal cannot hold the search.
      const page = await raceSignal(fetcher!.fetch(new URL(read.hit.url), pageCall), signal);
      changed(read, 'fetched');
      await raceSignal(read.go.promise, signal);
      // Checked only once extraction is wanted: pages read ahead and never used are not scanned.
      if (read.admit && !read.admit(page)) return;
      changed(read, 'extracting');
      const content = await raceSignal(extractor!.extract(page, pageCall), signal);
      // The extractor's object is kept as it is when it has a title: a cached extraction is then the same
      // object in every search, and the ranker's passages and tokens of it (kept by object) are reused.
      if (content && content.text.trim())
        read.document = content.title ? content : { ...content, title: read.hit.title };
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
      return hits.map((hit, index) => {
        const read: MutableRead = {
          position: all.length,
          patient: index < (readOptions.patient ?? READ_DEFAULTS.patient),
          hit,
          state: 'waiting',
          document: hit.content ? providerDocument(hit, hit.content) : snippetDocument(hit),
          stopper: new AbortController(),
          go: latch(),
          wanted: readOptions.extract !== false,
          admit: readOptions.admit,
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
      for (const read of reads as MutableRead[]) {
        read.wanted = true;
        read.go.open();
      }
    },
    settle(reads, settleOptions = {}) {
      const graceMs = settleOptions.graceMs ?? options.stragglerGraceMs;
      const mine = reads as readonly MutableRead[];
      const quorum = Math.max(1, Math.ceil(mine.length * ARRIVED_SHARE));
      return new Promise<void>((resolve) => {
        let graceTimer: NodeJS.Timeout | undefined;
        // Past the grace period, only pages that arrived and patient pages are waited for; past the answer
        // time, only pages that arrived.
        let graceOver = false;
        let answerTime = false;
        const finish = (): void => {
          clearTimeout(graceTimer);
          clearTimeout(answerTimer);
          listeners.delete(check);
          resolve();
        };
        const answerTimer = setTimeout(
          () => {
            answerTime = true;
            check();
          },
          Math.max(0, options.answerBy - Date.now()),
        );
        function check(): void {
          let waiting = 0;
          let waitingPatient = 0;
          let working = 0;
          for (const read of mine) {
            if (read.state === 'waiting') {
              waiting++;
              if (read.patient) waitingPatient++;
            } else if (read.state !== 'done') working++;
          }
          if (working === 0 && (waiting === 0 || answerTime || (graceOver && waitingPatient === 0))) {
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
                graceOver = true;
                check();
              },
              Math.max(0, quorumAt + graceMs - Date.now()),
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
