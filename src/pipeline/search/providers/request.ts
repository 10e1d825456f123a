/**
 * One HTTP call to a search provider: a request with a time limit combined with the caller's signal, a
 * size-capped body read, network and HTTP failures as {@link SearchProviderError}s, and the JSON body read.
 */
import { SearchProviderError } from './errors.ts';
import type { ResolvedHttpOptions } from './http-options.ts';
import { expectObject } from './results.ts';
import { extractErrorDetail, httpStatusError, redact } from './http-errors.ts';

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
