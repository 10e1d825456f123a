/** Dates as providers give and take them: ISO forms of their dates, and the coarse recency windows. */

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
