/** `createContentExtractor`: the pipeline's ContentExtractor, running extraction on a worker pool. */
import { availableParallelism } from 'node:os';
import { CitewiseError } from '../../errors.ts';
import type { CallOptions, ContentExtractor, ExtractedContent, FetchedPage } from '../types.ts';
import { extractContent, type ExtractContentOptions } from './extract.ts';
import { createWorkerPool, type WorkerPool } from './pool.ts';
import type { ExtractTaskPayload } from './worker.ts';
import { nonNegativeInteger, positiveInteger } from '../../options.ts';

/** The worker entry beside this module: `.ts` when run from source, `.js` in the compiled build. */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * Defaults of {@link createContentExtractor}: at most `maxWorkers` worker threads (fewer on a machine with
 * fewer cores), a time limit per page, and the largest body extracted.
 */
export const EXTRACTOR_DEFAULTS = {
  maxWorkers: 2,
  timeoutMs: 10_000,
  maxInputBytes: 10 * 1024 * 1024,
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
  /** Time limit per page, on top of the call's signal. @default 10_000 (`EXTRACTOR_DEFAULTS.timeoutMs`) */
  readonly timeoutMs?: number;
  /** Larger bodies are refused with `payload_too_large`. @default 10 MiB (`EXTRACTOR_DEFAULTS.maxInputBytes`) */
  readonly maxInputBytes?: number;
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
  const workers = nonNegativeInteger(
    'workers',
    options.workers,
    Math.min(EXTRACTOR_DEFAULTS.maxWorkers, availableParallelism()),
  );
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, EXTRACTOR_DEFAULTS.timeoutMs);
  const maxInputBytes = positiveInteger(
    'maxInputBytes',
    options.maxInputBytes,
    EXTRACTOR_DEFAULTS.maxInputBytes,
  );
  const pool: WorkerPool<ExtractTaskPayload, ExtractedContent | null> | undefined =
    workers > 0
      ? createWorkerPool({
          workerUrl: WORKER_URL,
          size: workers,
          ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
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
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([call.signal, timeout]);
      const extractOptions: ExtractContentOptions = {
        url: page.url,
        contentType: page.contentType,
        ...(page.charset ? { charset: page.charset } : {}),
        ...(options.cleanBoilerplate === undefined ? {} : { cleanBoilerplate: options.cleanBoilerplate }),
      };
      try {
        if (!pool) {
          signal.throwIfAborted();
          const result = await extractContent(page.body, extractOptions);
          signal.throwIfAborted();
          return result;
        }
        return await pool.run({ input: page.body, options: extractOptions }, { signal });
      } catch (error) {
        if (timeout.aborted && !call.signal.aborted) {
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
