/**
 * `POST /v1/extract` (extension): the clean content of up to {@link MAX_EXTRACT_URLS} pages, read by the
 * same SSRF-safe fetcher and extractor as a search, metered per page that was read.
 */
import { z } from 'zod';
import type { PageType } from '../pipeline/types.ts';
import { parseBody } from './search.ts';

/** Most URLs in one extract request. */
export const MAX_EXTRACT_URLS = 20;

/** Longest URL in an extract request, in characters. */
export const MAX_EXTRACT_URL_CHARS = 2_048;

const urlsMessage = `must be an array of 1 to ${MAX_EXTRACT_URLS} http(s) URLs`;

/**
 * Why a URL cannot be asked for, or `null`: longer than {@link MAX_EXTRACT_URL_CHARS}, or not an http(s)
 * URL. The one check of `POST /v1/extract` and of the Tavily-compatible extract route.
 */
export function extractUrlProblem(url: string): 'too long' | 'not http' | null {
  if (url.length > MAX_EXTRACT_URL_CHARS) return 'too long';
  return /^https?:\/\//i.test(url) && URL.canParse(url) ? null : 'not http';
}

export const extractRequestSchema = z.object(
  {
    /** The pages to read, in the order the results come back. */
    urls: z
      .array(
        z
          .string({ error: 'entries must be http(s) URLs' })
          .max(MAX_EXTRACT_URL_CHARS, `entries must be at most ${MAX_EXTRACT_URL_CHARS} characters`)
          .refine((value) => extractUrlProblem(value) !== 'not http', 'entries must be http(s) URLs'),
        { error: urlsMessage },
      )
      .min(1, urlsMessage)
      .max(MAX_EXTRACT_URLS, urlsMessage),
    /** `markdown` (default) keeps headings, lists, tables and links; `text` is plain text. */
    format: z.enum(['markdown', 'text'], { error: 'must be markdown or text' }).optional(),
  },
  { error: 'must be a JSON object' },
);

/** An extract request as sent by a client. */
export type ExtractRequest = z.input<typeof extractRequestSchema>;

/** A validated extract request with its defaults. */
export interface NormalizedExtractRequest {
  readonly urls: readonly string[];
  readonly format: 'markdown' | 'text';
}

/** Validates an extract body; throws a 400 `invalid_request` naming the first offending field. */
export function parseExtractRequest(body: unknown): NormalizedExtractRequest {
  const data = parseBody(extractRequestSchema, body);
  return { urls: data.urls, format: data.format ?? 'markdown' };
}

/** One page read. */
export interface ExtractedPage {
  readonly url: string;
  readonly title: string;
  /** The main content, in the request's `format`. */
  readonly content: string;
  /** ISO 8601 date when the page states one, else `null`. */
  readonly published_at: string | null;
  /** What kind of page it is (HTML pages), else `null`. */
  readonly page_type: PageType | null;
}

/** One page that could not be read, and why. */
export interface FailedPage {
  readonly url: string;
  readonly error: {
    /**
     * `blocked_address` (private or reserved address), `robots_disallowed`, `bad_status` (not 2xx),
     * `timeout`, `too_large`, `unsupported_type`, `no_content` (nothing worth reading), or another fetch
     * error code (see the fetching guide).
     */
    readonly code: string;
    readonly message: string;
  };
}

/** The body of a 200 from `POST /v1/extract`: one entry per requested URL, in request order. */
export interface ExtractResponse {
  readonly results: readonly (ExtractedPage | FailedPage)[];
  /**
   * Credits charged: one `extractCreditCost` per page read, and `extractFailedShare` of one per page
   * requested from its server but not read (summed, rounded up).
   */
  readonly credits_charged: number;
  /** Milliseconds from the request's arrival to the response. */
  readonly response_time: number;
}
