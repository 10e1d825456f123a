import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore, StoredResponse } from '../stores/types.ts';
import { attempt, openedPerTest, sleep } from './helpers.ts';

/** Makes a fresh store for one test. The suite closes it after the test. */
export type MakeIdempotencyStore = () => Promise<IdempotencyStore> | IdempotencyStore;

const LEASE_MS = 600_000;
const TTL_MS = 600_000;

const RESPONSE: StoredResponse = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' },
  body: JSON.stringify({
    answer: 'Le thé vert 🍵 vient de Camellia sinensis [1].',
    sources: ['https://a.test/'],
  }),
};

/**
 * Runs the {@link IdempotencyStore} conformance suite (vitest) against `makeStore`. Call it at the top level
 * of a test file. Scopes are random per test, so a shared server needs no cleanup between runs. Uses the
 * real clock; waits are lower bounds only, so a slow machine cannot make it fail.
 */
export function describeIdempotencyStore(name: string, makeStore: MakeIdempotencyStore): void {
  describe(`IdempotencyStore conformance: ${name}`, () => {
    const open = openedPerTest(makeStore);
    const scope = (label: string) => `key_${randomBytes(6).toString('hex')}:${label}`;

    it('claims a new scope once; later begins see it in progress with the first fingerprint', async () => {
      const store = await open();
      const s = scope('a');
      expect(await store.begin(s, 'fp-1', LEASE_MS)).toEqual({ state: 'new' });
      expect(await store.begin(s, 'fp-1', LEASE_MS)).toEqual({ state: 'in_progress', fingerprint: 'fp-1' });
      expect(await store.begin(s, 'fp-2', LEASE_MS)).toEqual({ state: 'in_progress', fingerprint: 'fp-1' });
    });

    it('replays a completed response exactly (status, headers, body)', async () => {
      const store = await open();
      const s = scope('b');
      await store.begin(s, 'fp', LEASE_MS);
      await store.complete(s, RESPONSE, TTL_MS);
      expect(await store.begin(s, 'fp', LEASE_MS)).toEqual({
        state: 'done',
        fingerprint: 'fp',
        response: RESPONSE,
      });
      // Another body under the same key still sees the first fingerprint (the caller answers 422).
      expect(await store.begin(s, 'other', LEASE_MS)).toMatchObject({ state: 'done', fingerprint: 'fp' });
    });

    it('abandon forgets a claim in progress, never a completed response', async () => {
      const store = await open();
      const failed = scope('c');
      await store.begin(failed, 'fp', LEASE_MS);
      await store.abandon(failed);
      expect(await store.begin(failed, 'fp', LEASE_MS)).toEqual({ state: 'new' });
      const done = scope('d');
      await store.begin(done, 'fp', LEASE_MS);
      await store.complete(done, RESPONSE, TTL_MS);
      await store.abandon(done);
      expect(await store.begin(done, 'fp', LEASE_MS)).toMatchObject({ state: 'done' });
      await store.abandon(scope('never-begun'));
    });

    it('is atomic: of 30 concurrent begins for one scope, exactly one is new', async () => {
      const store = await open();
      const s = scope('race');
      const results = await Promise.all(Array.from({ length: 30 }, () => store.begin(s, 'fp', LEASE_MS)));
      expect(results.filter((result) => result.state === 'new')).toHaveLength(1);
      expect(results.filter((result) => result.state === 'in_progress')).toHaveLength(29);
    });

    it('keeps scopes independent', async () => {
      const store = await open();
      const one = scope('one');
      const two = scope('two');
      await store.begin(one, 'fp', LEASE_MS);
      await store.complete(one, RESPONSE, TTL_MS);
      expect(await store.begin(two, 'fp', LEASE_MS)).toEqual({ state: 'new' });
    });

    it('a claim lapses after its lease (its instance died), and a response after its ttl', async () => {
      const store = await open();
      const claimed = scope('lease');
      await store.begin(claimed, 'fp', 200);
      const replayed = scope('ttl');
      await store.begin(replayed, 'fp', LEASE_MS);
      await store.complete(replayed, RESPONSE, 200);
      await sleep(450);
      expect(await store.begin(claimed, 'fp', LEASE_MS)).toEqual({ state: 'new' });
      expect(await store.begin(replayed, 'fp', LEASE_MS)).toEqual({ state: 'new' });
    });

    it('rejects a lease or ttl that is not a positive number of ms', async () => {
      const store = await open();
      await expect(attempt(() => store.begin(scope('x'), 'fp', 0))).rejects.toThrow();
      await expect(attempt(() => store.begin(scope('x'), 'fp', Number.NaN))).rejects.toThrow();
      const s = scope('y');
      await store.begin(s, 'fp', LEASE_MS);
      await expect(attempt(() => store.complete(s, RESPONSE, -1))).rejects.toThrow();
    });
  });
}
