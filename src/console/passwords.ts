/**
 * Password hashing with `node:crypto` scrypt (memory-hard, no native build). The stored string carries
 * its parameters, so they can be raised later without breaking existing hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Shortest accepted password, in characters. */
export const PASSWORD_MIN_LENGTH = 10;
/** Longest accepted password (scrypt's cost does not depend on it, but a bound keeps bodies small). */
export const PASSWORD_MAX_LENGTH = 200;

// N = 2^15, r = 8: 32 MiB and roughly 50–100 ms per hash on one core (OWASP's scrypt minimum is 2^17 with
// r = 8 at p = 1, or an equivalent; we take 2^15 with p = 4 to keep the memory use of parallel sign-ins bounded).
const PARAMS = { N: 32_768, r: 8, p: 4 } as const;
const KEY_LENGTH = 32;

function scryptAsync(
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      length,
      { ...options, maxmem: 128 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
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
  dummy ??= hashPassword(randomBytes(18).toString('base64url'));
  return dummy;
}
