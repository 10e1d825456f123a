/**
 * Helpers shared by the account and usage stores: ids, tokens (stored as SHA-256 hashes), input checks
 * and the UTC day of a time, so that memory, SQLite and PostgreSQL behave alike.
 */
import { createHash, randomBytes } from 'node:crypto';
import { assertId } from './validation.ts';
import {
  ROLES,
  type AccountStore,
  type InvitationRecord,
  type Role,
  type UsageRecord,
} from './account-types.ts';

/** A new random id with a readable prefix, e.g. `org_3f9c1a2b7d4e5f60`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** A new secret token (256 bits, base64url): session cookies and invitation links. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the stores keep of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a string can be a token made by {@link newToken} (cheap refusal of garbage). */
export function looksLikeToken(token: unknown): token is string {
  return typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** Emails are compared lower-cased and trimmed. */
export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string') throw new TypeError('email must be a string');
  const normalized = email.trim().toLowerCase();
  if (normalized.length === 0 || normalized.length > 320)
    throw new RangeError('email must be 1–320 characters');
  return normalized;
}

export function assertRole(role: unknown): asserts role is Role {
  if (!ROLES.includes(role as Role)) throw new TypeError(`role must be one of ${ROLES.join(', ')}`);
}

export function assertTime(value: unknown, what: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${what} must be a number`);
}

/** Validates usage records before any is written. */
export function assertUsageRecords(records: readonly UsageRecord[]): void {
  if (!Array.isArray(records)) throw new TypeError('records must be an array');
  for (const record of records as readonly UsageRecord[]) {
    assertId(record.accountId, 'accountId');
    if (record.keyId !== null) assertId(record.keyId, 'keyId');
    if (!['charge', 'refund', 'grant'].includes(record.kind))
      throw new TypeError('kind must be charge, refund or grant');
    if (!Number.isSafeInteger(record.credits) || record.credits < 0) {
      throw new RangeError('credits must be a non-negative safe integer');
    }
    assertTime(record.at, 'at');
  }
}

/** The more powerful of two roles. */
export function higherRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) <= ROLES.indexOf(b) ? a : b;
}

/** `YYYY-MM-DD` of a time, in UTC. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * Checks the input of {@link AccountStore.createInvitation} and mints the invitation: its raw `token` (for
 * the link, returned once), the `tokenHash` a store keeps, and the `invitation` record (expiry rounded up to
 * a whole ms, as every backend stores it).
 */
export function mintInvitation(
  input: Parameters<AccountStore['createInvitation']>[0],
  createdAt: number,
): { token: string; tokenHash: string; invitation: InvitationRecord } {
  const { organizationId, role, createdBy, expiresAt } = input;
  assertId(organizationId, 'organization id');
  assertId(createdBy, 'createdBy');
  assertRole(role);
  assertTime(expiresAt, 'expiresAt');
  const token = newToken();
  return {
    token,
    tokenHash: hashToken(token),
    invitation: {
      id: newId('inv'),
      organizationId,
      role,
      createdBy,
      createdAt,
      expiresAt: Math.ceil(expiresAt),
      acceptedAt: null,
    },
  };
}
