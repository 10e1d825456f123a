/** What every idempotency store answers for a scope already claimed (see `IdempotencyStore.begin`). */
import type { IdempotencyState, StoredResponse } from './types.ts';

/** The state of a claimed scope: `done` with its response once one is stored, else `in_progress`. */
export function claimedState(
  fingerprint: string,
  response: StoredResponse | null | undefined,
): IdempotencyState {
  return response ? { state: 'done', fingerprint, response } : { state: 'in_progress', fingerprint };
}

/** {@link claimedState} for a backend that keeps the response as JSON text (null while in progress). */
export function claimedStateFromJson(fingerprint: string, response: string | null): IdempotencyState {
  return claimedState(fingerprint, response === null ? null : (JSON.parse(response) as StoredResponse));
}
