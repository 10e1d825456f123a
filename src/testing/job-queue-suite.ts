import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { JobQueueFullError, type ClaimedJob, type JobQueue } from '../stores/job-queue.ts';
import { attempt, sleep } from './helpers.ts';

/**
 * Opens a {@link JobQueue} on `scope`, a name unique to one test: two calls with the same scope are two
 * handles on the same jobs (as two processes would open them), calls with other scopes never see them.
 * The suite closes every handle after its test.
 */
export type MakeJobQueue = (scope: string) => Promise<JobQueue> | JobQueue;

/** Options of {@link describeJobQueue}. */
export interface JobQueueSuiteOptions {
  /**
   * The shortest lease the queue honours, in ms (a backend may need a few seconds to notice a dead
   * worker, e.g. pg-boss's heartbeat of at least 10 s). @default 200
   */
  readonly leaseMs?: number;
  /** How long a lapsed lease may take to be claimable again, in ms. @default leaseMs * 10 + 2000 */
  readonly recoveryMs?: number;
}

const LONG_LEASE_MS = 60_000;

/** Defaults of {@link JobQueueSuiteOptions}. */
export const JOB_QUEUE_SUITE_DEFAULTS = { leaseMs: 200 } as const;

/**
 * Runs the {@link JobQueue} conformance suite (vitest) against `makeQueue`. Call it at the top level of a
 * test file. Accounts and scopes are random per test, so a shared server needs no cleanup between runs.
 * A "killed" worker is one that stops renewing its lease mid-job: another claims the job and finishes it,
 * and nothing the dead one does afterwards counts.
 */
export function describeJobQueue(
  name: string,
  makeQueue: MakeJobQueue,
  options: JobQueueSuiteOptions = {},
): void {
  const leaseMs = options.leaseMs ?? JOB_QUEUE_SUITE_DEFAULTS.leaseMs;
  const recoveryMs = options.recoveryMs ?? leaseMs * 10 + 2_000;
  describe(`JobQueue conformance: ${name}`, () => {
    const opened: JobQueue[] = [];
    const open = async (scope: string): Promise<JobQueue> => {
      const queue = await makeQueue(scope);
      opened.push(queue);
      return queue;
    };
    afterEach(async () => {
      for (const queue of opened.splice(0)) await queue.close?.();
    });
    const random = (label: string) => `${label}_${randomBytes(6).toString('hex')}`;
    const fresh = () => open(random('scope'));
    const claimOne = async (queue: JobQueue, extra: { maxRunningPerAccount?: number } = {}) =>
      waitForClaim(queue, { workerId: 'w1', leaseMs: LONG_LEASE_MS, ...extra }, 2_000);

    it('enqueues a job as queued with a first status event, and finds it by id', async () => {
      const queue = await fresh();
      const account = random('acct');
      const { job, created } = await queue.enqueue({
        id: random('job'),
        account,
        keyId: 'key_1',
        input: { prompt: 'Qu’est-ce que le thé ? 🍵', n: [1, 2] },
      });
      expect(created).toBe(true);
      expect(job).toMatchObject({ account, keyId: 'key_1', status: 'queued', attempts: 0, finalized: false });
      expect(job.input).toEqual({ prompt: 'Qu’est-ce que le thé ? 🍵', n: [1, 2] });
      expect(await queue.get(job.id)).toEqual(job);
      expect(await queue.get(random('missing'))).toBeNull();
      const events = await queue.events(job.id);
      expect(events.map((e) => [e.id, e.type, e.data])).toEqual([[1, 'status', { status: 'queued' }]]);
    });

    it('returns the first job for a repeated idempotency key of the same account only', async () => {
      const queue = await fresh();
      const account = random('acct');
      const first = await queue.enqueue({
        id: random('job'),
        account,
        input: {},
        idempotencyKey: 'k1',
        fingerprint: 'f',
      });
      const again = await queue.enqueue({ id: random('job'), account, input: {}, idempotencyKey: 'k1' });
      expect(again).toEqual({ job: first.job, created: false });
      expect((await queue.findByIdempotencyKey(account, 'k1'))?.id).toBe(first.job.id);
      expect((await queue.findByIdempotencyKey(account, 'k1'))?.fingerprint).toBe('f');
      const other = await queue.enqueue({
        id: random('job'),
        account: random('acct'),
        input: {},
        idempotencyKey: 'k1',
      });
      expect(other.created).toBe(true);
      expect(await queue.findByIdempotencyKey(account, 'k2')).toBeNull();
    });

    it('refuses a job past the account’s cap of waiting jobs, storing nothing', async () => {
      const queue = await fresh();
      const account = random('acct');
      for (let i = 0; i < 2; i++)
        await queue.enqueue({ id: random('job'), account, input: {}, maxQueued: 2 });
      const refused = random('job');
      await expect(
        attempt(() => queue.enqueue({ id: refused, account, input: {}, maxQueued: 2 })),
      ).rejects.toBeInstanceOf(JobQueueFullError);
      expect(await queue.get(refused)).toBeNull();
      // Another account has its own cap.
      expect(
        (await queue.enqueue({ id: random('job'), account: random('acct'), input: {}, maxQueued: 2 }))
          .created,
      ).toBe(true);
    });

    it('leases a job to one claimer: running, one attempt, a running event; nothing left to claim', async () => {
      const scope = random('scope');
      const [a, b] = [await open(scope), await open(scope)];
      const { job } = await a.enqueue({ id: random('job'), account: random('acct'), input: { x: 1 } });
      const claimed = await claimOne(a);
      expect(claimed?.job).toMatchObject({ id: job.id, status: 'running', attempts: 1, input: { x: 1 } });
      expect(claimed?.job.startedAt).toEqual(expect.any(Number));
      expect(await b.claim({ workerId: 'w2', leaseMs: LONG_LEASE_MS })).toBeNull();
      const events = await a.events(job.id);
      expect(events.at(-1)).toMatchObject({ type: 'status', data: { status: 'running', attempt: 1 } });
    });

    it('never gives one job to two concurrent claimers', async () => {
      const scope = random('scope');
      const handles = await Promise.all([open(scope), open(scope), open(scope)]);
      const account = random('acct');
      const ids = new Set<string>();
      for (let i = 0; i < 4; i++)
        ids.add((await handles[0].enqueue({ id: random('job'), account, input: { i } })).job.id);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          handles[i % 3]!.claim({ workerId: `w${i}`, leaseMs: LONG_LEASE_MS }),
        ),
      );
      let got = claims.filter((c): c is ClaimedJob => c !== null).map((c) => c.job.id);
      // A backend may deliver some of them a moment later: claim until every job is taken.
      for (let tries = 0; got.length < ids.size && tries < 40; tries++) {
        const more = await handles[tries % 3]!.claim({ workerId: 'late', leaseMs: LONG_LEASE_MS });
        if (more) got = [...got, more.job.id];
        else await sleep(50);
      }
      expect(got.sort()).toEqual([...ids].sort());
    });

    it('completes a job with its result and credits once; the lease holder alone can end it', async () => {
      const queue = await fresh();
      const { job } = await queue.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const claimed = (await claimOne(queue))!;
      expect(await queue.heartbeat(claimed.lease, LONG_LEASE_MS)).toBe('ok');
      expect(
        await queue.complete({ jobId: job.id, token: 'not-the-lease' }, { result: 1, creditsUsed: 1 }),
      ).toBeNull();
      const done = await queue.complete(claimed.lease, {
        result: { answer: 'Oui [1].', sources: ['https://a.test/'] },
        creditsUsed: 3,
      });
      expect(done).toMatchObject({ status: 'completed', creditsUsed: 3, result: { answer: 'Oui [1].' } });
      expect(done?.completedAt).toEqual(expect.any(Number));
      expect(await queue.get(job.id)).toEqual(done);
      expect(await queue.complete(claimed.lease, { result: 2, creditsUsed: 9 })).toBeNull();
      expect(await queue.fail(claimed.lease, { description: 'late' })).toBeNull();
      expect(await queue.heartbeat(claimed.lease, LONG_LEASE_MS)).toBe('lost');
      expect((await queue.events(job.id)).at(-1)).toMatchObject({
        type: 'completed',
        data: { status: 'completed' },
      });
    });

    it('fails a job with its error', async () => {
      const queue = await fresh();
      const { job } = await queue.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const claimed = (await claimOne(queue))!;
      const failed = await queue.fail(claimed.lease, { description: 'Server Error', code: 'upstream_error' });
      expect(failed).toMatchObject({
        status: 'failed',
        error: { description: 'Server Error', code: 'upstream_error' },
      });
      expect((await queue.events(job.id)).at(-1)).toMatchObject({
        type: 'failed',
        data: { status: 'failed', error: { description: 'Server Error' } },
      });
    });

    it('cancels queued and running jobs (the worker learns it at its heartbeat), never ended ones', async () => {
      const queue = await fresh();
      const account = random('acct');
      const queued = (await queue.enqueue({ id: random('job'), account, input: {} })).job;
      const cancelledQueued = await queue.cancel(queued.id);
      expect(cancelledQueued).toMatchObject({ status: 'cancelled' });
      expect(await queue.claim({ workerId: 'w', leaseMs: LONG_LEASE_MS })).toBeNull();

      const running = (await queue.enqueue({ id: random('job'), account, input: {} })).job;
      const claimed = (await claimOne(queue))!;
      expect(claimed.job.id).toBe(running.id);
      expect(await queue.cancel(running.id)).toMatchObject({ status: 'cancelled' });
      expect(await queue.heartbeat(claimed.lease, LONG_LEASE_MS)).toBe('cancelled');
      expect(await queue.complete(claimed.lease, { result: 1, creditsUsed: 1 })).toBeNull();
      expect(await queue.appendEvent(claimed.lease, 'step', {})).toBeNull();
      expect((await queue.get(running.id))?.status).toBe('cancelled');
      expect((await queue.events(running.id)).at(-1)).toMatchObject({ type: 'cancelled' });

      const ended = (await queue.enqueue({ id: random('job'), account, input: {} })).job;
      const lease = (await claimOne(queue))!.lease;
      await queue.complete(lease, { result: 'x', creditsUsed: 0 });
      expect(await queue.cancel(ended.id)).toMatchObject({ status: 'completed' });
      expect(await queue.cancel(random('missing'))).toBeNull();
    });

    it('appends events with increasing ids for the lease holder, and reads them after an id', async () => {
      const queue = await fresh();
      const { job } = await queue.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const claimed = (await claimOne(queue))!;
      const first = await queue.appendEvent(claimed.lease, 'step', { index: 0, queries: ['thé vert'] });
      const second = await queue.appendEvent(claimed.lease, 'step', { index: 1 });
      expect(first?.id).toBe(3);
      expect(second?.id).toBe(4);
      expect(await queue.appendEvent({ jobId: job.id, token: 'other' }, 'step', {})).toBeNull();
      const after = await queue.events(job.id, { after: 2 });
      expect(after.map((e) => [e.id, e.type, e.data])).toEqual([
        [3, 'step', { index: 0, queries: ['thé vert'] }],
        [4, 'step', { index: 1 }],
      ]);
      expect(await queue.events(job.id, { after: 3, limit: 1 })).toHaveLength(1);
      expect(await queue.events(job.id, { after: 99 })).toEqual([]);
    });

    it('gives the job of a killed worker to another, which finishes it; the dead one’s lease counts for nothing', async () => {
      const scope = random('scope');
      const [a, b] = [await open(scope), await open(scope)];
      const { job } = await a.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const dead = await waitForClaim(a, { workerId: 'dies', leaseMs }, 2_000);
      expect(dead?.job.id).toBe(job.id);
      // The worker is killed: it never renews its lease. Another worker takes the job once it lapsed.
      const taken = await waitForClaim(b, { workerId: 'survivor', leaseMs: LONG_LEASE_MS }, recoveryMs);
      expect(taken?.job).toMatchObject({ id: job.id, status: 'running', attempts: 2 });
      expect(await a.heartbeat(dead!.lease, LONG_LEASE_MS)).toBe('lost');
      expect(await a.appendEvent(dead!.lease, 'step', { stale: true })).toBeNull();
      expect(await a.complete(dead!.lease, { result: 'stale', creditsUsed: 5 })).toBeNull();
      const done = await b.complete(taken!.lease, { result: 'fresh', creditsUsed: 1 });
      expect(done).toMatchObject({ status: 'completed', result: 'fresh', creditsUsed: 1, attempts: 2 });
      const statuses = (await b.events(job.id)).filter((e) => e.type === 'status').map((e) => e.data);
      expect(statuses).toEqual([
        { status: 'queued' },
        { status: 'running', attempt: 1 },
        { status: 'running', attempt: 2 },
      ]);
    });

    it('keeps a renewed lease: a worker that heartbeats is never taken over', async () => {
      const scope = random('scope');
      const [a, b] = [await open(scope), await open(scope)];
      await a.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const alive = (await waitForClaim(a, { workerId: 'alive', leaseMs }, 2_000))!;
      const until = Date.now() + leaseMs * 3;
      while (Date.now() < until) {
        expect(await a.heartbeat(alive.lease, leaseMs)).toBe('ok');
        expect(await b.claim({ workerId: 'thief', leaseMs })).toBeNull();
        await sleep(leaseMs / 4);
      }
    });

    it('runs at most the cap of one account’s jobs at once, letting other accounts through', async () => {
      const queue = await fresh();
      const [busy, other] = [random('busy'), random('other')];
      for (let i = 0; i < 3; i++) await queue.enqueue({ id: random('job'), account: busy, input: { i } });
      await queue.enqueue({ id: random('job'), account: other, input: {} });
      const first = await claimOne(queue, { maxRunningPerAccount: 1 });
      const second = await claimOne(queue, { maxRunningPerAccount: 1 });
      expect([first?.job.account, second?.job.account].sort()).toEqual([busy, other].sort());
      expect(
        await queue.claim({ workerId: 'w', leaseMs: LONG_LEASE_MS, maxRunningPerAccount: 1 }),
      ).toBeNull();
      const busyLease = [first, second].find((c) => c?.job.account === busy)!.lease;
      await queue.complete(busyLease, { result: null, creditsUsed: 0 });
      expect((await claimOne(queue, { maxRunningPerAccount: 1 }))?.job.account).toBe(busy);
    });

    it('lists an account’s jobs newest first, by status, a page at a time', async () => {
      const queue = await fresh();
      const account = random('acct');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await queue.enqueue({ id: `job_${i}_${random('x')}`, account, input: { i } })).job.id);
        await sleep(2);
      }
      await queue.enqueue({ id: random('job'), account: random('stranger'), input: {} });
      await queue.cancel(ids[1]!);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await queue.list({ account, limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...result.jobs.map((job) => job.id));
        if (!result.nextCursor) break;
        cursor = result.nextCursor;
      }
      expect(seen).toEqual([...ids].reverse());
      const cancelled = await queue.list({ account, limit: 10, status: 'cancelled' });
      expect(cancelled.jobs.map((job) => job.id)).toEqual([ids[1]]);
      expect(cancelled.nextCursor).toBeNull();
    });

    it('lists ended jobs that were not finalized until they are', async () => {
      const queue = await fresh();
      const { job } = await queue.enqueue({ id: random('job'), account: random('acct'), input: {} });
      const claimed = (await claimOne(queue))!;
      await queue.complete(claimed.lease, { result: 'r', creditsUsed: 2 });
      const mine = async () =>
        (await queue.unfinalized({ endedBefore: Date.now() + 1_000, limit: 1_000 })).filter(
          (j) => j.id === job.id,
        );
      expect(await mine()).toHaveLength(1);
      expect(await queue.unfinalized({ endedBefore: 0, limit: 10 })).toEqual([]);
      await queue.markFinalized(job.id);
      expect(await mine()).toEqual([]);
      expect((await queue.get(job.id))?.finalized).toBe(true);
    });
  });
}

/** Claims until a job comes or `withinMs` passed (a backend may deliver a job a moment later). */
async function waitForClaim(
  queue: JobQueue,
  options: Parameters<JobQueue['claim']>[0],
  withinMs: number,
): Promise<ClaimedJob | null> {
  const giveUpAt = Date.now() + withinMs;
  for (;;) {
    const claimed = await queue.claim(options);
    if (claimed || Date.now() > giveUpAt) return claimed;
    await sleep(25);
  }
}
