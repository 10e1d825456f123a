/** `createContentExtractor`: the pipeline's ContentExtractor, running extraction on a worker pool. */
import { availableParallelism } from 'node:os';
import { CitewiseError } from '../../errors.ts';
import type { CallOptions, ContentExtractor, ExtractedContent, FetchedPage } from '../types.ts';
import { extractContent, type ExtractContentOptions } from './extract.ts';
import { EXTRACTION_LIMIT_DEFAULTS } from './limits.ts';
import { createWorkerPool, type WorkerPool } from '../../scheduling/worker-pool.ts';
import type { ExtractTaskPayload } from './worker.ts';
import { nonNegativeInteger, positiveInteger } from '../../options.ts';

/** The worker entry beside this module: `.ts` when run from source, `.js` in the compiled build. */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * Defaults of {@link createContentExtractor}: at most `maxWorkers` worker threads (fewer on a machine with
 * fewer cores), the queue, a time limit per page, the largest body extracted, each account's share of the
 * workers, a worker's memory, and the bounds of one extraction (`maxPdfDecodedBytes`, `maxTextChars`).
 */
export const EXTRACTOR_DEFAULTS = {
  maxWorkers: 2,
  maxQueue: 256,
  timeoutMs: 10_000,
  maxInputBytes: 10 * 1024 * 1024,
  maxAccountShare: 0.5,
  maxWorkerMemoryMb: 512,
  ...EXTRACTION_LIMIT_DEFAULTS,
} as const;

/** Options of {@link createContentExtractor}. */
export interface ContentExtractorOptions {
  /**
   * Worker threads running extraction off the main thread; `0` extracts in the calling thread.
   * @default Math.min(2, availableParallelism()) (`EXTRACTOR_DEFAULTS.maxWorkers`)
   */
  readonly workers?: number;
  /** Extractions allowed to wait for a worker before calls are refused (`service_unavailable`). @default 256 */
  readonly maxQueue?: number;
  /**
   * Time limit per page, on top of the call's signal, counted from when its extraction starts on a worker
   * (waiting for a worker does not count). @default 10_000 (`EXTRACTOR_DEFAULTS.timeoutMs`)
   */
  readonly timeoutMs?: number;
  /** Larger bodies are refused with `payload_too_large`. @default 10 MiB (`EXTRACTOR_DEFAULTS.maxInputBytes`) */
  readonly maxInputBytes?: number;
  /**
   * Largest share (0–1] of the workers, and of the extractions waiting for one, that one account (the
   * call's `account`) may hold, as searches share their slots: with 2 workers, one account extracts on
   * one, and the other stays free for everybody else. 1 lets one account use every worker. @default 0.5
   */
  readonly maxAccountShare?: number;
  /**
   * Most memory of one worker in MiB (heap limit, and heap plus buffers checked while it works); a worker
   * past it is terminated and replaced, and only its page fails. @default 512
   */
  readonly maxWorkerMemoryMb?: number;
  /** See `ExtractContentOptions.maxPdfDecodedBytes`. @default 64 MiB */
  readonly maxPdfDecodedBytes?: number;
  /** See `ExtractContentOptions.maxTextChars`. @default 2_000_000 */
  readonly maxTextChars?: number;
  /** Remove share/related/caption/byline blocks left inside Readability's output. @default true */
  readonly cleanBoilerplate?: boolean;
}

const WARM_UP_PAGE =
  '<!doctype html><html><head><title>Warm-up</title></head><body><main><article><h1>Warm-up</h1>' +
  '<p>This page is extracted once per worker when the service starts, so that the first search does ' +
  'not wait for the extraction modules to load.</p></article></main></body></html>';

/**
 * Creates the content extractor used by the pipeline. HTML, XHTML, PDF, Markdown and plain text are
 * handled; other media types give `null`. Rejects with the signal's reason when aborted or timed out
 * (`CitewiseError` code `timeout`), and with `payload_too_large` for oversized bodies.
 */
export function createContentExtractor(options: ContentExtractorOptions = {}): ContentExtractor {
  const defaults = EXTRACTOR_DEFAULTS;
  const workers = nonNegativeInteger(
    'workers',
    options.workers,
    Math.min(defaults.maxWorkers, availableParallelism()),
  );
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, defaults.timeoutMs);
  const maxInputBytes = positiveInteger('maxInputBytes', options.maxInputBytes, defaults.maxInputBytes);
  const limits = {
    maxPdfDecodedBytes: positiveInteger(
      'maxPdfDecodedBytes',
      options.maxPdfDecodedBytes,
      defaults.maxPdfDecodedBytes,
    ),
    maxTextChars: positiveInteger('maxTextChars', options.maxTextChars, defaults.maxTextChars),
  };
  const pool: WorkerPool<ExtractTaskPayload, ExtractedContent | null> | undefined =
    workers > 0
      ? createWorkerPool({
          workerUrl: WORKER_URL,
          size: workers,
          maxQueue: options.maxQueue ?? defaults.maxQueue,
          maxAccountShare: options.maxAccountShare ?? defaults.maxAccountShare,
          taskTimeoutMs: timeoutMs,
          signalsReady: true,
          maxWorkerMemoryMb: positiveInteger(
            'maxWorkerMemoryMb',
            options.maxWorkerMemoryMb,
            defaults.maxWorkerMemoryMb,
          ),
        })
      : undefined;

  return {
    async extract(page: FetchedPage, call: CallOptions): Promise<ExtractedContent | null> {
      if (page.body.byteLength > maxInputBytes) {
        throw new CitewiseError(
          'payload_too_large',
          `page body of ${page.body.byteLength} bytes exceeds ${maxInputBytes}`,
        );
      }
      const extractOptions: ExtractContentOptions = {
        url: page.url,
        contentType: page.contentType,
        ...limits,
        ...(page.charset ? { charset: page.charset } : {}),
        ...(options.cleanBoilerplate === undefined ? {} : { cleanBoilerplate: options.cleanBoilerplate }),
      };
      // In the calling thread the limit starts now; on the pool it starts when a worker takes the page.
      const timeout = pool ? undefined : AbortSignal.timeout(timeoutMs);
      try {
        if (!pool) {
          const signal = AbortSignal.any([call.signal, timeout!]);
          signal.throwIfAborted();
          const result = await extractContent(page.body, extractOptions);
          signal.throwIfAborted();
          return result;
        }
        return await pool.run(
          { input: page.body, options: extractOptions },
          { signal: call.signal, ...(call.account === undefined ? {} : { account: call.account }) },
        );
      } catch (error) {
        const timedOut =
          error instanceof CitewiseError ? error.code === 'timeout' : timeout?.aborted === true;
        if (timedOut && !call.signal.aborted) {
          throw new CitewiseError('timeout', `extraction of ${page.url} took over ${timeoutMs} ms`, {
            cause: error,
          });
        }
        throw error;
      }
    },
    async warm() {
      // A small page through the whole HTML path loads the DOM, Readability and Markdown modules.
      await pool?.warm({
        input: WARM_UP_PAGE,
        options: { url: 'https://warm-up.invalid/', contentType: 'text/html' },
      });
    },
    async close() {
      await pool?.close();
    },
  };
}
