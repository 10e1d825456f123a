/** `Idempotency-Key` on the POST routes of /v1: one run per key, replayed to its retries ({@link replayable}). */
import { CitewiseError } from '../errors.ts';
import { fingerprintBody, isReplayable } from '../contract/idempotency.ts';
import type { IdempotencySettings, ProtocolResponse } from '../contract/protocol.ts';

/**
 * Runs a search once per Idempotency-Key, across every instance sharing the store: a retry with the same
 * body replays the stored 200 (no second charge), or, while the first request still runs (here or on
 * another instance), waits for its response; the same key with another body is a 422. A retry that waited
 * `waitMs` in vain gets a 409. Failed searches are forgotten, so a retry runs them again.
 */
export async function replayable(
  settings: IdempotencySettings,
  scope: string,
  body: unknown,
  signal: AbortSignal,
  run: () => Promise<ProtocolResponse>,
): Promise<ProtocolResponse> {
  const { store } = settings;
  const fingerprint = fingerprintBody(body);
  const giveUpAt = Date.now() + settings.waitMs;
  for (let pause = IDEMPOTENCY_FIRST_POLL_MS; ; pause = Math.min(pause * 2, IDEMPOTENCY_MAX_POLL_MS)) {
    const found = await store.begin(scope, fingerprint, settings.leaseMs);
    if (found.state === 'new') break;
    if (found.fingerprint !== fingerprint) throw new CitewiseError('idempotency_mismatch');
    if (found.state === 'done') {
      return { ...found.response, headers: { ...found.response.headers, 'idempotent-replayed': 'true' } };
    }
    if (signal.aborted || Date.now() + pause > giveUpAt) {
      throw new CitewiseError('idempotency_in_progress', undefined, { retryAfterMs: 1_000 });
    }
    await waitOrAbort(pause, signal);
  }
  try {
    const response = await run();
    if (isReplayable(response)) await store.complete(scope, response, settings.ttlMs);
    return response;
  } catch (error) {
    await store.abandon(scope);
    throw error;
  }
}

/** First and longest pause between two looks at a request that is still running elsewhere, in ms. */
const IDEMPOTENCY_FIRST_POLL_MS = 50;
const IDEMPOTENCY_MAX_POLL_MS = 500;

/** Waits `ms`, or less if `signal` fires first (never rejects). */
function waitOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The `Idempotency-Key` header's value, or a 400 for one that is not 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(value: string): string {
  if (value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw new CitewiseError('invalid_request', 'bad idempotency key', {
      description: 'Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters',
    });
  }
  return value;
}
