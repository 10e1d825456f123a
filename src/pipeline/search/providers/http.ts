/**
 * What every HTTP search provider shares: option checks, one request with a timeout combined with the
 * caller's signal, a size-capped body read, HTTP error → {@link SearchProviderError} mapping, and small
 * helpers to turn provider fields into {@link SearchHit}s.
 */
import { fetch as undiciFetch } from 'undici';
import { parseHTML } from 'linkedom';
import type { SearchFilters, SearchHit } from '../../types.ts';
import { SearchProviderError } from './errors.ts';
import { applyDomainFilters } from '../filters.ts';
import { USER_AGENT } from '../../../package-info.ts';

/** The `fetch` function providers call; undici's by default. Inject one to add a proxy dispatcher or tracing. */
export type FetchFunction = typeof undiciFetch;

/** Options shared by every HTTP search provider. */
export interface HttpProviderOptions {
  /**
   * Per-request time limit in milliseconds, combined with the caller's `AbortSignal` (whichever fires first).
   * @default 10000
   */
  readonly timeoutMs?: number;
  /**
   * `fetch` implementation.
   * @default undici's fetch
   */
  readonly fetch?: FetchFunction;
  /**
   * Largest response body accepted, in bytes; a bigger one fails as `bad_response`.
   * @default 5242880 (5 MiB)
   */
  readonly maxResponseBytes?: number;
}

/** Default per-request timeout of every provider. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** Default User-Agent: citewise's one {@link USER_AGENT}. Wikimedia asks operators to add contact details. */
export const DEFAULT_USER_AGENT = USER_AGENT;

/** Resolved common options. */
export interface ResolvedHttpOptions {
  readonly timeoutMs: number;
  readonly fetch: FetchFunction;
  readonly maxResponseBytes: number;
}

/** Validates and fills the common options; throws TypeError/RangeError naming the provider. */
export function resolveHttpOptions(providerName: string, options: HttpProviderOptions): ResolvedHttpOptions {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`${providerName}: timeoutMs must be a positive number of milliseconds`);
  }
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isInteger(maxResponseBytes) || maxResponseBytes <= 0) {
    throw new RangeError(`${providerName}: maxResponseBytes must be a positive integer`);
  }
  const fetchFunction = options.fetch ?? undiciFetch;
  if (typeof fetchFunction !== 'function') throw new TypeError(`${providerName}: fetch must be a function`);
  return { timeoutMs, fetch: fetchFunction, maxResponseBytes };
}

/** Checks a required API key option. */
export function requireApiKey(providerName: string, apiKey: unknown): string {
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new TypeError(`${providerName}: apiKey is required (a non-empty string)`);
  }
  return apiKey.trim();
}

/**
 * Checks a base URL option: absolute http(s), no credentials (fetch refuses them; use headers instead),
 * no query or fragment. Returns it without trailing slashes.
 */
export function requireBaseUrl(providerName: string, optionName: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`${providerName}: ${optionName} is required (an http(s) URL)`);
  }
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw new TypeError(`${providerName}: ${optionName} is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${providerName}: ${optionName} must use http or https`);
  }
  if (parsed.username || parsed.password) {
    throw new TypeError(
      `${providerName}: ${optionName} must not contain credentials; pass an Authorization header instead`,
    );
  }
  if (parsed.search || parsed.hash) {
    throw new TypeError(`${providerName}: ${optionName} must not contain a query string or fragment`);
  }
  return parsed.href.replace(/\/+$/, '');
}

/** Options of a provider behind an API key with an overridable base URL. */
export interface KeyedProviderOptions extends HttpProviderOptions {
  readonly apiKey: string;
  readonly baseUrl?: string;
}

/** What {@link resolveKeyedProvider} checked: the common options, the trimmed key and the base URL. */
export interface ResolvedKeyedProvider {
  readonly http: ResolvedHttpOptions;
  readonly apiKey: string;
  readonly baseUrl: string;
}

/**
 * Checks the options every keyed provider has (common HTTP options, `apiKey`, `baseUrl` falling back to
 * `defaultBaseUrl`), in that order; throws TypeError/RangeError naming the provider.
 */
export function resolveKeyedProvider(
  providerName: string,
  options: KeyedProviderOptions,
  defaultBaseUrl: string,
): ResolvedKeyedProvider {
  const http = resolveHttpOptions(providerName, options);
  const apiKey = requireApiKey(providerName, options.apiKey);
  const baseUrl = requireBaseUrl(providerName, 'baseUrl', options.baseUrl ?? defaultBaseUrl);
  return { http, apiKey, baseUrl };
}

/**
 * Checks that an enumerated option is one of `allowed` (undefined passes: the caller's default applies);
 * the RangeError lists the choices, e.g. `safesearch must be 'off', 'moderate' or 'strict'`.
 */
export function requireOneOf<T extends string | number>(
  providerName: string,
  optionName: string,
  value: T | undefined,
  allowed: readonly T[],
): void {
  if (value === undefined || allowed.includes(value)) return;
  const choices = allowed.map((choice) => (typeof choice === 'string' ? `'${choice}'` : String(choice)));
  const list = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  throw new RangeError(`${providerName}: ${optionName} must be ${list}`);
}

/** Joins a base URL (no trailing slash) and a path. */
export function joinUrl(baseUrl: string, path: string): URL {
  return new URL(`${baseUrl}/${path.replace(/^\/+/, '')}`);
}

/** Replaces every occurrence of a secret with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Parses `Retry-After` (delta-seconds or HTTP-date) into milliseconds from now. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** A provider's answer as text, with its status and headers. */
export interface ProviderResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Turns a non-2xx answer into the provider's specific error; return undefined to use the generic mapping. */
export type ErrorDescriber = (response: ProviderResponse) => SearchProviderError | undefined;

/** One HTTP request to a provider. */
export interface ProviderRequest {
  readonly providerId: string;
  /** Human name used in messages, e.g. `Brave Search`. */
  readonly label: string;
  readonly url: URL;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The caller's signal (request deadline / client disconnect). */
  readonly signal: AbortSignal;
  /** Values that must never appear in error messages (API keys). */
  readonly secrets?: readonly string[];
  /** Provider-specific error mapping for non-2xx answers. */
  readonly describeError?: ErrorDescriber;
}

/**
 * The method, headers and body of a JSON `POST`: `content-type` and `accept` are JSON, `headers` adds the
 * provider's own (authentication). Spread it into a {@link ProviderRequest}.
 */
export function jsonPost(
  body: unknown,
  headers: Readonly<Record<string, string>>,
): Pick<ProviderRequest, 'method' | 'headers' | 'body'> {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * Sends one request and returns the answer when its status is 2xx; otherwise throws a
 * {@link SearchProviderError}. A caller abort is re-thrown as the caller's abort reason (not a provider
 * failure), so that fallback chains stop instead of trying the next provider.
 */
export async function sendProviderRequest(
  http: ResolvedHttpOptions,
  request: ProviderRequest,
): Promise<ProviderResponse> {
  const { providerId, label, signal } = request;
  const secrets = request.secrets ?? [];
  signal.throwIfAborted();
  const timeoutSignal = AbortSignal.timeout(http.timeoutMs);
  const combined = AbortSignal.any([signal, timeoutSignal]);
  let response: ProviderResponse;
  try {
    const answer = await http.fetch(request.url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
      signal: combined,
      redirect: 'follow',
    });
    const text = await readCappedText(answer.body, http.maxResponseBytes, providerId, label);
    response = { status: answer.status, headers: answer.headers as unknown as Headers, text };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof SearchProviderError) throw error;
    if (timeoutSignal.aborted) {
      throw new SearchProviderError(
        providerId,
        'timeout',
        `${label} did not answer within ${http.timeoutMs} ms`,
        {
          cause: error,
        },
      );
    }
    throw new SearchProviderError(
      providerId,
      'network',
      redact(`${label} could not be reached (${describeNetworkError(error)})`, secrets),
      { cause: error },
    );
  }
  if (response.status >= 200 && response.status < 300) return response;
  const specific = request.describeError?.(response);
  throw specific ?? httpStatusError(providerId, label, response, extractErrorDetail(response.text), secrets);
}

async function readCappedText(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  providerId: string,
  label: string,
): Promise<string> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw new SearchProviderError(
        providerId,
        'bad_response',
        `${label} answered more than ${maxBytes} bytes`,
      );
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
    if (cause && typeof cause.code === 'string') return cause.code;
    if (cause && typeof cause.message === 'string') return cause.message;
    return error.message;
  }
  return String(error);
}

/** Parses a 2xx JSON body; malformed JSON is a `bad_response`. */
export function parseJsonBody(providerId: string, label: string, response: ProviderResponse): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch (error) {
    throw new SearchProviderError(providerId, 'bad_response', `${label} answered malformed JSON`, {
      httpStatus: response.status,
      cause: error,
    });
  }
}

/** Parses a 2xx JSON body that must be an object (see {@link parseJsonBody} and {@link expectObject}). */
export function parseJsonObject(
  providerId: string,
  label: string,
  response: ProviderResponse,
): Record<string, unknown> {
  return expectObject(providerId, label, parseJsonBody(providerId, label, response));
}

/** Reads a human message out of common JSON error shapes (`{error}`, `{message}`, `{detail}`, ...). */
export function extractErrorDetail(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  return findMessage(body, 0);
}

function findMessage(value: unknown, depth: number): string | undefined {
  if (depth > 3 || value == null) return undefined;
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) return findMessage(value[0], depth + 1);
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['detail', 'error', 'message', 'info', 'msg']) {
      const found = findMessage(record[key], depth + 1);
      if (found) return found;
    }
    if (Array.isArray(record.errors)) return findMessage(record.errors[0], depth + 1);
  }
  return undefined;
}

/** Characters of a provider's message kept in ours. */
const CLIPPED_MESSAGE_CHARS = 200;

/** Shortens a provider message for inclusion in ours. */
function clip(text: string, max: number = CLIPPED_MESSAGE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Generic HTTP status → error mapping: 401/403 key rejected, 402 quota, 429 rate limited (with
 * Retry-After), 5xx server error, other 4xx bad request.
 */
export function httpStatusError(
  providerId: string,
  label: string,
  response: Pick<ProviderResponse, 'status' | 'headers'>,
  detail: string | undefined,
  secrets: readonly string[] = [],
): SearchProviderError {
  const { status } = response;
  const suffix = detail ? `: ${clip(redact(detail, secrets))}` : '';
  if (status === 401 || status === 403) {
    return new SearchProviderError(providerId, 'auth', `${label} rejected the API key (${status})${suffix}`, {
      httpStatus: status,
    });
  }
  if (status === 402) {
    return quotaError(
      providerId,
      label,
      'credits exhausted',
      status,
      detail && clip(redact(detail, secrets)),
    );
  }
  if (status === 429) return rateLimitedError(providerId, label, response, suffix);
  if (status >= 500) {
    return new SearchProviderError(
      providerId,
      'server',
      `${label} failed with a server error (${status})${suffix}`,
      {
        httpStatus: status,
      },
    );
  }
  return new SearchProviderError(
    providerId,
    'bad_request',
    `${label} refused the request (${status})${suffix}`,
    {
      httpStatus: status,
    },
  );
}

/**
 * A `quota` error: `<label> refused the request: <reason> (<status>)[: <detail>]`. The caller redacts
 * `detail`.
 */
export function quotaError(
  providerId: string,
  label: string,
  reason: string,
  httpStatus: number,
  detail?: string,
  retryAfterMs?: number,
): SearchProviderError {
  return new SearchProviderError(
    providerId,
    'quota',
    `${label} refused the request: ${reason} (${httpStatus})${detail ? `: ${detail}` : ''}`,
    { httpStatus, retryAfterMs },
  );
}

/** A 429 with the wait time from `Retry-After` (or an explicit value). */
export function rateLimitedError(
  providerId: string,
  label: string,
  response: Pick<ProviderResponse, 'status' | 'headers'>,
  suffix = '',
  retryAfterMs = parseRetryAfter(response.headers.get('retry-after')),
): SearchProviderError {
  const wait = retryAfterMs === undefined ? '' : `; retry after ${Math.ceil(retryAfterMs / 1000)} s`;
  return new SearchProviderError(
    providerId,
    'rate_limited',
    `${label} rate limited the request (${response.status})${wait}${suffix}`,
    { httpStatus: response.status, retryAfterMs },
  );
}

/** Throws `bad_response` unless `value` is an object; returns it as a record. */
export function expectObject(providerId: string, label: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SearchProviderError(
      providerId,
      'bad_response',
      `${label} answered JSON of an unexpected shape`,
    );
  }
  return value as Record<string, unknown>;
}

/** Reads an array field that must be present; a missing list is a changed API, not "no results". */
export function expectArray(providerId: string, label: string, value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new SearchProviderError(
      providerId,
      'bad_response',
      `${label} answered without a result list at ${path}`,
    );
  }
  return value;
}

/** The string value of a field, or undefined. */
export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The finite number value of a field, or undefined. */
export function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

let scratch: { readonly element: { innerHTML: string; textContent: string | null } } | undefined;

/** Plain text of an HTML fragment (highlight markup such as `<strong>` removed, entities decoded). */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return html.replace(/\s+/g, ' ').trim();
  if (!scratch) {
    const { document } = parseHTML('<!doctype html><html><body><div></div></body></html>');
    const element = document.querySelector('div');
    if (!element) throw new Error('linkedom did not create the scratch element');
    scratch = { element };
  }
  scratch.element.innerHTML = html;
  return (scratch.element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** ISO 8601 form of a date string the provider gave, or undefined when it is relative ("3 days ago") or absent. */
export function toIsoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  // A date-time without a zone (Brave's `page_age`) is read as UTC, not as the server's local time.
  const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim());
  const time = Date.parse(zoneless ? `${value.trim()}Z` : value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** A coarse recency window, as engines without date ranges offer them. */
export type Recency = 'day' | 'week' | 'month' | 'year';

/**
 * The narrowest {@link Recency} window that covers `fromDate` until now, or undefined when the date is
 * absent, does not parse or lies more than a year back.
 */
export function recencyOf(fromDate: string | undefined, now = Date.now()): Recency | undefined {
  if (!fromDate) return undefined;
  const from = Date.parse(fromDate);
  if (Number.isNaN(from)) return undefined;
  const days = (now - from) / 86_400_000;
  if (days <= 1) return 'day';
  if (days <= 7) return 'week';
  if (days <= 31) return 'month';
  if (days <= 366) return 'year';
  return undefined;
}

/** `YYYY-MM-DD` of a filter date, or undefined when it does not parse. */
export function toDay(value: string | undefined): string | undefined {
  const iso = toIsoDate(value);
  return iso?.slice(0, 10);
}

/** Keeps hits with an http(s) URL and a title, drops duplicates (same exact URL), caps at `limit`. */
export function finalizeHits(hits: readonly SearchHit[], limit: number): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    if (out.length >= limit) break;
    if (!/^https?:\/\//i.test(hit.url) || seen.has(hit.url)) continue;
    seen.add(hit.url);
    out.push(hit);
  }
  return out;
}

/**
 * Maps a provider's result list to hits: entries that are not objects are skipped, and so are those the
 * mapper rejects by returning undefined (typically: no URL).
 */
export function mapResults(
  results: readonly unknown[],
  toHit: (record: Record<string, unknown>) => SearchHit | undefined,
): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const item of results) {
    if (item === null || typeof item !== 'object') continue;
    const hit = toHit(item as Record<string, unknown>);
    if (hit) hits.push(hit);
  }
  return hits;
}

/** The last step of every provider: {@link applyDomainFilters}, then {@link finalizeHits}. */
export function filterAndFinalizeHits(
  hits: readonly SearchHit[],
  filters: SearchFilters | undefined,
  limit: number,
): SearchHit[] {
  return finalizeHits(applyDomainFilters(hits, filters), limit);
}

/** Checks the query (non-empty text, positive integer limit) and clamps the limit into the provider's range. */
export function clampLimit(
  providerName: string,
  query: { readonly query: string; readonly limit: number },
  max: number,
): number {
  if (typeof query.query !== 'string' || query.query.trim() === '') {
    throw new RangeError(`${providerName}: query.query must be a non-empty string`);
  }
  if (!Number.isInteger(query.limit) || query.limit < 1) {
    throw new RangeError(`${providerName}: query.limit must be a positive integer`);
  }
  return Math.min(query.limit, max);
}
