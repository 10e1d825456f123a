/**
 * A provider's HTTP answer turned into a {@link SearchProviderError}: the generic status mapping, the quota
 * and rate-limit errors, the wait a `Retry-After` asks for, the provider's own message read from its JSON
 * body, and secrets redacted from all of it.
 */
import { SearchProviderError } from './errors.ts';
import type { ProviderResponse } from './request.ts';
import { parseRetryAfter } from '../../../text/retry-after.ts';

/** Replaces every occurrence of a secret with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
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

/** The most characters of a provider's own message that ours quotes. */
const MAX_DETAIL_CHARACTERS = 200;

/** Shortens a provider message for inclusion in ours. */
function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARACTERS ? `${flat.slice(0, MAX_DETAIL_CHARACTERS - 1)}…` : flat;
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
