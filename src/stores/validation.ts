/**
 * Argument checks shared by every store, so that memory, SQLite, Redis and PostgreSQL reject the same
 * inputs with the same errors: `TypeError` for a wrong type, `RangeError` for a value out of range.
 */
import { positiveInteger } from '../options.ts';
import type { CreateKeyInput, RateLimitOptions, ReserveInput } from './types.ts';
import { STORE_DEFAULTS } from './defaults.ts';
import { assertBudgetCharge, normalizeKeyBudget, type KeyBudget } from './budgets.ts';

/** Longest accepted account id, reservation id, rate-limit key or key name. */
export const MAX_ID_LENGTH = 512;
/** Latest representable time (the largest `Date` value), so every time fits a 64-bit integer column. */
export const MAX_TIME_MS = 8.64e15;

/** Throws `TypeError` unless `value` is a non-empty string of at most {@link MAX_ID_LENGTH} characters. */
export function assertId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${what} must be a non-empty string`);
  }
  if (value.length > MAX_ID_LENGTH)
    throw new RangeError(`${what} must be at most ${MAX_ID_LENGTH} characters`);
}

/** Throws unless `value` is a non-negative safe integer (`TypeError` if not a number, else `RangeError`). */
export function assertAmount(value: unknown, what: string): asserts value is number {
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative safe integer, got ${value}`);
  }
}

/** Throws unless `value` is a positive finite number of milliseconds. */
export function assertPositiveMs(value: unknown, what: string): asserts value is number {
  if (typeof value !== 'number') throw new TypeError(`${what} must be a number`);
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIME_MS) {
    throw new RangeError(`${what} must be a positive number of ms up to ${MAX_TIME_MS}`);
  }
}

/** Validates {@link ReserveInput}. */
export function assertReserveInput(input: ReserveInput): void {
  if (typeof input !== 'object' || input === null) throw new TypeError('reserve input must be an object');
  assertId(input.account, 'account');
  assertId(input.id, 'reservation id');
  assertAmount(input.amount, 'amount');
  assertPositiveMs(input.ttlMs, 'ttlMs');
  if (input.budget !== undefined) assertBudgetCharge(input.budget);
}

/** Validates {@link CreateKeyInput} and returns it normalized (`name`/`expiresAt` as `null` when absent). */
export function normalizeCreateKeyInput(input: CreateKeyInput): {
  accountId: string;
  name: string | null;
  expiresAt: number | null;
  budget: KeyBudget | null;
} {
  if (typeof input !== 'object' || input === null) throw new TypeError('key input must be an object');
  assertId(input.accountId, 'accountId');
  const name = input.name ?? null;
  if (name !== null) {
    if (typeof name !== 'string') throw new TypeError('name must be a string or null');
    if (name.length > MAX_ID_LENGTH) throw new RangeError(`name must be at most ${MAX_ID_LENGTH} characters`);
  }
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null) {
    if (typeof expiresAt !== 'number') throw new TypeError('expiresAt must be a number (epoch ms) or null');
    if (!Number.isFinite(expiresAt) || Math.abs(expiresAt) > MAX_TIME_MS) {
      throw new RangeError(`expiresAt must be a finite time within ±${MAX_TIME_MS} ms`);
    }
  }
  return { accountId: input.accountId, name, expiresAt, budget: normalizeKeyBudget(input.budget) };
}

/**
 * Validates rate-limit options: `limit` a positive safe integer, `windowMs` a positive finite number.
 * Missing fields take the documented defaults (60 per 60 000 ms).
 */
export function normalizeRateLimitOptions(options: Partial<RateLimitOptions> | undefined): RateLimitOptions {
  const limit = positiveInteger('limit', options?.limit, STORE_DEFAULTS.rateLimit.limit);
  const windowMs = options?.windowMs ?? STORE_DEFAULTS.rateLimit.windowMs;
  assertPositiveMs(windowMs, 'windowMs');
  return { limit, windowMs };
}

/** Validates an injectable clock option. */
export function normalizeClock(now: unknown): () => number {
  if (now === undefined) return Date.now;
  if (typeof now !== 'function') throw new TypeError('now must be a function returning epoch ms');
  return now as () => number;
}
