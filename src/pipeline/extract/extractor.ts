/** `createContentExtractor`: the pipeline's ContentExtractor, running extraction on a worker pool. */
import { availableParallelism } from 'node:os';
import { CitewiseError } from '../../errors.ts';
import type { CallOptions, ContentExtractor, ExtractedContent, FetchedPage } from '../types.ts';
import { DOM_IMPLEMENTATIONS, type DomImplementation } from './dom.ts';
import { extractContent, type ExtractContentOptions } from './extract.ts';
import { createWorkerPool, type WorkerPool } from './pool.ts';
import type { ExtractTaskPayload } from './worker.ts';
import { nonNegativeInteger, positiveInteger } from '../../options.ts';

/** The worker entry beside this module: `.ts` when run from source, `.js` in the compiled build. */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/** Time limit per page of {@link createContentExtractor} when `timeoutMs` is not given. */
export const DEFAULT_EXTRACTION_TIMEOUT_MS = 10_000;

/** Largest body {@link createContentExtractor} reads when `maxInputBytes` is not given (10 MiB). */
export const DEFAULT_MAX_INPUT_BYTES = 10 * 1024 * 1024;

/** Options of {@link createContentExtractor}. */
export interface ContentExtractorOptions {
  /**
   * Worker threads running extraction off the main thread; `0` extracts in the calling thread.
   * @default Math.min(2, availableParallelism())
   */
  readonly workers?: number;
  /** Extractions allowed to wait for a worker before calls are refused (`service_unavailable`). @default 256 */
  readonly maxQueue?: number;
  /** Time limit per page, on top of the call's signal. @default 10_000 */
  readonly timeoutMs?: number;
  /** Larger bodies are refused with `payload_too_large`. @default 10 * 1024 * 1024 */
  readonly maxInputBytes?: number;
  /** DOM for HTML pages (see {@link DOM_IMPLEMENTATIONS}). @default 'lite' ({@link DEFAULT_DOM}) */
  readonly dom?: DomImplementation;
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
  const workers = nonNegativeInteger('workers', options.workers, Math.min(2, availableParallelism()));
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, DEFAULT_EXTRACTION_TIMEOUT_MS);
  const maxInputBytes = positiveInteger('maxInputBytes', options.maxInputBytes, DEFAULT_MAX_INPUT_BYTES);
  if (options.dom !== undefined && !(DOM_IMPLEMENTATIONS as readonly string[]).includes(options.dom)) {
    throw new TypeError(
      `createContentExtractor: dom must be one of ${DOM_IMPLEMENTATIONS.map((name) => `'${name}'`).join(', ')}`,
    );
  }
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
        ...(options.dom ? { dom: options.dom } : {}),
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
