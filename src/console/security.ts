/**
 * Cookies, CSRF checks and security headers of the console. `/v1` never sees any of this: it stays
 * bearer-only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'cw_session';
/** Name of the cookie remembering the organization being viewed (not a secret; membership is checked). */
export const ORGANIZATION_COOKIE = 'cw_org';

/**
 * The console's Content-Security-Policy: scripts and styles only from our own files (no inline script),
 * images only from ourselves (web pages' images would leak the viewer's address), no framing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers sent with every console response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Invitation and setup links carry a token in the path: never send it to another site.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** Parses a `Cookie` header. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 1) continue;
    const name = part.slice(0, index).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(index + 1).trim());
  }
  return cookies;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, and Secure when the browser reached us over https. */
export function cookie(
  name: string,
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** The CSRF token of a session: derived from the session secret, so nothing more is stored. */
export function csrfToken(sessionToken: string): string {
  return createHash('sha256').update(`citewise-csrf:${sessionToken}`).digest('base64url');
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfTokenMatches(sessionToken: string, submitted: string | undefined): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfToken(sessionToken));
  const actual = Buffer.from(submitted);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Whether a state-changing request comes from our own pages: `Sec-Fetch-Site: same-origin` when the
 * browser sends it, else an `Origin` equal to ours. Requests with neither (not from a browser) pass here;
 * signed-in requests also need the CSRF token.
 */
export function isSameOrigin(header: (name: string) => string | undefined, expectedOrigin: string): boolean {
  const site = header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = header('origin');
  if (origin !== undefined) return origin === expectedOrigin;
  return true;
}
