/**
 * Password hashing with `node:crypto` scrypt (memory-hard, no native build). The stored string carries
 * its parameters, so they can be raised later without breaking existing hashes.
 *
 * Each hash holds one of libuv's threads (4 unless `UV_THREADPOOL_SIZE` says otherwise) for tens to
 * hundreds of milliseconds, and those threads also serve DNS lookups, file reads and zlib. So hashes are
 * bounded process-wide: at most {@link PASSWORD_HASHING_DEFAULTS}`.maxConcurrent` run at once and a few
 * wait; past that, hashing throws {@link PasswordHashingBusyError} (the console answers 429 with
 * `Retry-After`), so a flood of sign-ins can never take the whole thread pool.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

/** Shortest accepted password, in characters. */
export const PASSWORD_MIN_LENGTH = 10;
/** Longest accepted password (scrypt's cost does not depend on it, but a bound keeps bodies small). */
export const PASSWORD_MAX_LENGTH = 200;

// N = 2^15, r = 8: 32 MiB and roughly 50–100 ms per hash on one core (OWASP's scrypt minimum is 2^17 with
// r = 8 at p = 1, or an equivalent; we take 2^15 with p = 4 to keep the memory use of parallel sign-ins bounded).
const PARAMS = { N: 32_768, r: 8, p: 4 } as const;
const KEY_LENGTH = 32;

/**
 * Bounds on password hashing, process-wide: hashes running at once (half of libuv's 4 threads, and one
 * core less than the machine has: a hash keeps a core busy), and hashes waiting for one of them.
 */
export const PASSWORD_HASHING_DEFAULTS = {
  maxConcurrent: Math.max(1, Math.min(2, availableParallelism() - 1)),
  maxWaiting: 8,
  retryAfterMs: 1_000,
} as const;

/** Thrown when {@link PASSWORD_HASHING_DEFAULTS}`.maxConcurrent` hashes run and the waiting line is full. */
export class PasswordHashingBusyError extends Error {
  /** When to try again, in ms. */
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number) {
    super('too many password hashes in progress');
    this.name = 'PasswordHashingBusyError';
    this.retryAfterMs = retryAfterMs;
  }
}

let limits: { maxConcurrent: number; maxWaiting: number } = { ...PASSWORD_HASHING_DEFAULTS };
let running = 0;
const waiting: (() => void)[] = [];

/**
 * Sets the process-wide bounds on password hashing (for benchmarks and tests; the defaults suit a libuv
 * pool of 4 threads). `maxConcurrent: Infinity` turns the bound off.
 */
export function setPasswordHashingLimits(next: { maxConcurrent: number; maxWaiting: number }): void {
  if (!(next.maxConcurrent >= 1) || !(next.maxWaiting >= 0))
    throw new RangeError('maxConcurrent must be at least 1 and maxWaiting at least 0');
  limits = { maxConcurrent: next.maxConcurrent, maxWaiting: next.maxWaiting };
}

/** Runs `work` in one of the hashing slots, waiting in line for one; throws when the line is full. */
async function inHashingSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < limits.maxConcurrent) running++;
  else if (waiting.length < limits.maxWaiting) await new Promise<void>((resolve) => waiting.push(resolve));
  else throw new PasswordHashingBusyError(PASSWORD_HASHING_DEFAULTS.retryAfterMs);
  try {
    return await work();
  } finally {
    // The slot passes to the next in line, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function scryptAsync(
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return inHashingSlot(
    () =>
      new Promise((resolve, reject) =>
        scrypt(
          password.normalize('NFKC'),
          salt,
          length,
          { ...options, maxmem: 128 * 1024 * 1024 },
          (error, key) => (error ? reject(error) : resolve(key)),
        ),
      ),
  );
}

/**
 * The password hash of a user created by single sign-on: it matches no password, so such a user signs
 * in through the provider (or sets a password with a reset link).
 */
export const NO_PASSWORD = 'none:sso';

/** Whether a stored hash is a password's (not {@link NO_PASSWORD}). */
export function hasPassword(stored: string): boolean {
  return stored.startsWith('scrypt$');
}

/** Why a password is refused, or `null` when it is acceptable. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    return `Use a password of at least ${PASSWORD_MIN_LENGTH} characters.`;
  }
  if (password.length > PASSWORD_MAX_LENGTH)
    return `Use a password of at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

/** Hashes a password: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Checks a password against a stored hash in constant time; `false` for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (!Number.isSafeInteger(N) || expected.length === 0) return false;
  const actual = await scryptAsync(password, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random password, checked when the email is unknown so that both paths cost the same. Made on
 * first use (scrypt costs 32 MiB and tens of milliseconds: not at every CLI start).
 */
export function dummyPasswordHash(): Promise<string> {
  // Not kept when it failed (hashing was busy): the next sign-in makes it.
  dummy ??= hashPassword(randomBytes(18).toString('base64url')).catch((error: unknown) => {
    dummy = undefined;
    throw error;
  });
  return dummy;
}
