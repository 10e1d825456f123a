/**
 * Option checks shared by every factory (the engine, the fetcher, the extractor, the answerer, the index
 * builder, resilience and the SQLite, Redis and PostgreSQL stores), in the manner of p-queue and lru-cache: each takes the option's name, the value the
 * caller gave (or `undefined`) and the default, and returns the value to use. A value of the wrong type throws
 * `TypeError`, a number out of range throws `RangeError`; every factory words the same mistake the same way.
 */

/** How a rejected value is shown in a message: numbers and strings as themselves, others by their type. */
function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}

function numberOption(name: string, value: unknown, fallback: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number') throw new TypeError(`${name} must be a number, got ${shown(resolved)}`);
  return resolved;
}

/** An integer option of at least `min` (a safe integer: no NaN, no Infinity, no fraction). */
export function integerOption(name: string, value: unknown, fallback: number, min: number): number {
  const resolved = numberOption(name, value, fallback);
  if (!Number.isSafeInteger(resolved) || resolved < min) {
    const wanted =
      min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : `an integer ≥ ${min}`;
    throw new RangeError(`${name} must be ${wanted}, got ${shown(resolved)}`);
  }
  return resolved;
}

/** An integer option ≥ 1. */
export function positiveInteger(name: string, value: unknown, fallback: number): number {
  return integerOption(name, value, fallback, 1);
}

/** An integer option ≥ 0. */
export function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  return integerOption(name, value, fallback, 0);
}

/** A finite number option > 0. */
export function positiveNumber(name: string, value: unknown, fallback: number): number {
  const resolved = numberOption(name, value, fallback);
  if (!Number.isFinite(resolved) || resolved <= 0) {
    throw new RangeError(`${name} must be a positive number, got ${shown(resolved)}`);
  }
  return resolved;
}

/** A finite number option ≥ 0. */
export function nonNegativeNumber(name: string, value: unknown, fallback: number): number {
  const resolved = numberOption(name, value, fallback);
  if (!Number.isFinite(resolved) || resolved < 0) {
    throw new RangeError(`${name} must be a non-negative number, got ${shown(resolved)}`);
  }
  return resolved;
}

/** A number option from 0 to 1 inclusive. */
export function fraction(name: string, value: unknown, fallback: number): number {
  const resolved = numberOption(name, value, fallback);
  if (!(resolved >= 0 && resolved <= 1)) {
    throw new RangeError(`${name} must be between 0 and 1, got ${shown(resolved)}`);
  }
  return resolved;
}

/** One of the checks above: `(name, value, fallback) → value to use`. */
export type NumberCheck = (name: string, value: unknown, fallback: number) => number;

/**
 * Checks several numeric options at once against their `*_DEFAULTS` table, in the order of `checks`:
 * `numberOptions(options, TABLE, { maxSentences: positiveInteger, minCoverage: fraction })`. Each option is
 * named by its key in errors, as the single checks name it.
 */
export function numberOptions<K extends string>(
  options: NoInfer<Partial<Record<K, unknown>>>,
  defaults: Readonly<Record<K, number>>,
  checks: Readonly<Record<K, NumberCheck>>,
): Record<K, number> {
  const resolved = {} as Record<K, number>;
  for (const name of Object.keys(checks) as K[]) {
    resolved[name] = checks[name](name, options[name], defaults[name]);
  }
  return resolved;
}
