/**
 * `POST /v1/extract` (and the Tavily-compatible extract): a hold for every URL, then every URL fetched (SSRF
 * guard, robots.txt, limits: the engine's fetcher) and extracted in parallel, each bounded by the page
 * timeout; a page that fails is reported with its error code, never failing the others, and costs a share
 * of a page read when it was requested from its server ({@link extractCharge}).
 */
import { CitewiseError } from '../errors.ts';
import type { RequestInfo } from '../http/handler.ts';
import type {
  ExtractedPage,
  ExtractResponse,
  FailedPage,
  NormalizedExtractRequest,
} from '../contract/extract.ts';
import { isFetchError, type FetchErrorCode } from '../pipeline/fetch/errors.ts';
import type { CallOptions, ContentExtractor, PageFetcher } from '../pipeline/types.ts';
import type { KeyRecord } from '../stores/types.ts';
import { chargeTarget } from './billing.ts';
import { pipelineError } from './response.ts';
import type { SearchRuntime } from './search.ts';

/** Reads the pages of an extract request as `key` (already admitted), charging each page read. */
export async function runExtract(
  runtime: SearchRuntime,
  key: KeyRecord,
  request: NormalizedExtractRequest,
  info: RequestInfo,
): Promise<ExtractResponse> {
  const { fetcher, extractor } = runtime.stages;
  if (!fetcher || !extractor) {
    throw new CitewiseError('not_found', 'page fetching is off', {
      description: 'Not Found: this service does not fetch pages (its fetcher or extractor is turned off)',
    });
  }
  const charge = (read: readonly (ExtractedPage | FailedPage)[]) =>
    extractCharge(read, runtime.extractCreditCost, runtime.extractFailedShare);
  let signal = info.signal;
  let results: Awaited<ReturnType<typeof readPages>>;
  try {
    results = await runtime.moneyPath.run(
      chargeTarget(key, info, request.urls.length * runtime.extractCreditCost),
      (call) => {
        signal = call.signal;
        return readPages(request, { fetcher, extractor }, call, runtime.settings.pageTimeoutMs);
      },
      charge,
    );
  } catch (thrown) {
    throw pipelineError(thrown, signal);
  }
  return {
    results,
    credits_charged: charge(results),
    response_time: Math.round(performance.now() - info.startedAt),
  };
}

/** Failures of `POST /v1/extract` that come before any request to the page's server: those pages are free. */
const REFUSED_BEFORE_REQUEST: ReadonlySet<string> = new Set([
  'bad_url',
  'blocked_address',
  'robots_disallowed',
  'aborted',
]);

/**
 * What a `POST /v1/extract` costs: `cost` per page read, and `failedShare` of it per page requested from
 * its server but not read (summed, rounded up), so that a fan-out of failing fetches is not free.
 */
export function extractCharge(
  results: readonly (ExtractedPage | FailedPage)[],
  cost: number,
  failedShare: number,
): number {
  const read = results.filter(isExtracted).length;
  const failed = results.filter(
    (result) => 'error' in result && !REFUSED_BEFORE_REQUEST.has(result.error.code),
  ).length;
  // Rounded to 1e-9 first, so that 4 × 0.25 is 1, not a float above it rounded up to 2.
  return read * cost + Math.ceil(Math.round(failed * cost * failedShare * 1e9) / 1e9);
}

/**
 * How long before the request's deadline the pages of an extract stop (at most a quarter of the time
 * left): enough to answer and charge the pages read before the deadline would cut the request.
 */
export const EXTRACT_DEADLINE_MARGIN_MS = 500;

/** Reads the pages of an extract request, in request order. */
export async function readPages(
  request: NormalizedExtractRequest,
  stages: { readonly fetcher: PageFetcher; readonly extractor: ContentExtractor },
  call: CallOptions,
  pageTimeoutMs: number,
): Promise<(ExtractedPage | FailedPage)[]> {
  // Pages end a little before the request's deadline, so that a page still being read then fails on its own
  // (`timeout`, charged like any page requested from its server) and the pages read are answered, instead
  // of the deadline cutting the whole request (a 500 that would cost nothing after all that work).
  const margin =
    call.deadline === undefined
      ? 0
      : Math.min(EXTRACT_DEADLINE_MARGIN_MS, Math.max(0, call.deadline - Date.now()) / 4);
  return Promise.all(
    request.urls.map(async (url): Promise<ExtractedPage | FailedPage> => {
      const deadline = Math.min((call.deadline ?? Infinity) - margin, Date.now() + pageTimeoutMs);
      const pageDeadline = new AbortController();
      const timer = setTimeout(
        () => pageDeadline.abort(new DOMException('page deadline passed', 'TimeoutError')),
        Math.max(0, deadline - Date.now()),
      );
      const pageCall: CallOptions = {
        ...call,
        signal: AbortSignal.any([call.signal, pageDeadline.signal]),
        deadline,
      };
      try {
        const page = await stages.fetcher.fetch(new URL(url), pageCall);
        const content = await stages.extractor.extract(page, pageCall);
        if (!content || !content.text.trim())
          return failed(url, 'no_content', 'the page has no main content');
        return {
          url,
          title: content.title,
          content: request.format === 'text' ? content.text : content.markdown,
          published_at: content.publishedAt ?? null,
          page_type: content.pageType ?? null,
        };
      } catch (error) {
        if (call.signal.aborted) throw error;
        if (pageDeadline.signal.aborted) return failed(url, 'timeout', FETCH_FAILURES.timeout);
        // Fixed texts: a fetch error's own message is for logs (it may name resolved addresses).
        if (isFetchError(error)) return failed(url, error.code, FETCH_FAILURES[error.code]);
        return failed(url, 'extract_failed', 'the page could not be extracted');
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** What a caller is told of each fetch failure. */
const FETCH_FAILURES: Readonly<Record<FetchErrorCode, string>> = {
  bad_url: 'the URL cannot be fetched',
  blocked_address: 'the host is, or resolves to, a private or reserved address',
  robots_disallowed: "the site's robots.txt disallows it",
  too_many_redirects: 'too many redirects',
  bad_status: 'the server did not answer with the page (not a 2xx status)',
  unsupported_type: 'the content type is not one the service reads',
  bad_encoding: 'the body is corrupt or in an unknown encoding',
  too_large: 'the page is larger than the fetch limit',
  timeout: 'the page did not arrive in time',
  aborted: 'the request was cancelled',
  network_error: 'the server could not be reached',
};

/** Whether an entry of the results is a page that was read (and is charged). */
export function isExtracted(result: ExtractedPage | FailedPage): result is ExtractedPage {
  return !('error' in result);
}

function failed(url: string, code: string, message: string): FailedPage {
  return { url, error: { code, message } };
}
