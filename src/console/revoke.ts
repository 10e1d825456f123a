/** The words around revoking an API key in the console: the question before, the notice after. */
import type { KeyRecord } from '../stores/types.ts';

const keyName = (record: Pick<KeyRecord, 'name' | 'prefix'>) =>
  record.name ? `“${record.name}” (${record.prefix}…)` : `${record.prefix}…`;

/** Asked before a key is revoked (the form's `data-confirm`, shown by console.js). */
export function revokeQuestion(record: Pick<KeyRecord, 'name' | 'prefix'>): string {
  return `Revoke the key ${keyName(record)}? Every program using it gets 401 from the next request on. This cannot be undone.`;
}

/** Shown once the key is revoked. */
export function revokedNotice(record: Pick<KeyRecord, 'name' | 'prefix'>): string {
  return `The key ${keyName(record)} was revoked: it stops working at once.`;
}
