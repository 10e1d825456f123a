/**
 * The `Retry-After` header (RFC 9110 §10.2.3), read the same way wherever citewise meets it: from a search
 * provider, and in the typed client reading the service's answers.
 */

/**
 * Parses `Retry-After` (delay in seconds, or an HTTP date) into milliseconds from `now`; `undefined` when
 * absent or unreadable. A fractional delay (`"1.5"`), which some servers send, is read as such; a date in
 * the past is 0.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
