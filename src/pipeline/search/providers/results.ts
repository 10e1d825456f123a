/**
 * A provider's answer turned into {@link SearchHit}s: the shape of its JSON checked (a changed API fails as
 * `bad_response`, not as "no results"), fields read, the list mapped, filtered, deduplicated and capped.
 */
import type { SearchFilters, SearchHit } from '../../types.ts';
import { SearchProviderError } from './errors.ts';
import { applyDomainFilters } from '../filters.ts';

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

/** {@link mapResults} for records that name their page's URL in `urlField`; records without one are skipped. */
export function mapResultsWithUrl(
  results: readonly unknown[],
  urlField: string,
  toHit: (record: Record<string, unknown>, url: string) => SearchHit,
): SearchHit[] {
  return mapResults(results, (record) => {
    const url = stringField(record, urlField);
    return url ? toHit(record, url) : undefined;
  });
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
