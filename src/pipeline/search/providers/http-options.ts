/**
 * The options every HTTP search provider shares (time limit, `fetch`, body cap), and the checks of a
 * provider's own options: API key, base URL, enumerated choices.
 */
import { fetch as undiciFetch } from 'undici';
import { USER_AGENT } from '../../../package-info.ts';

/** The `fetch` function providers call; undici's by default. Inject one to add a proxy dispatcher or tracing. */
export type FetchFunction = typeof undiciFetch;

/** Options shared by every HTTP search provider. */
export interface HttpProviderOptions {
  /**
   * Per-request time limit in milliseconds, combined with the caller's `AbortSignal` (whichever fires first).
   * @default 10000 (`HTTP_PROVIDER_DEFAULTS.timeoutMs`)
   */
  readonly timeoutMs?: number;
  /**
   * `fetch` implementation.
   * @default undici's fetch
   */
  readonly fetch?: FetchFunction;
  /**
   * Largest response body accepted, in bytes; a bigger one fails as `bad_response`.
   * @default 5242880 (5 MiB, `HTTP_PROVIDER_DEFAULTS.maxResponseBytes`)
   */
  readonly maxResponseBytes?: number;
}

/** Defaults of the options every HTTP search provider shares ({@link HttpProviderOptions}). */
export const HTTP_PROVIDER_DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 5 * 1024 * 1024 } as const;

/** Default per-request timeout of every provider ({@link HTTP_PROVIDER_DEFAULTS}). */
export const DEFAULT_PROVIDER_TIMEOUT_MS = HTTP_PROVIDER_DEFAULTS.timeoutMs;

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
  const maxResponseBytes = options.maxResponseBytes ?? HTTP_PROVIDER_DEFAULTS.maxResponseBytes;
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
