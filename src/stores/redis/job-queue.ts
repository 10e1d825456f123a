/**
 * The Redis {@link JobQueue} on BullMQ: several instances (`citewise serve`, `citewise worker`) share one
 * queue. BullMQ delivers jobs (`getNextJob`), holds a lock per running job that the worker's heartbeat
 * extends (`extendLock`), and its stalled-job checker puts back in the queue a job whose worker died (its
 * lock lapsed), for another worker to take. The job records and their events live in Redis hashes and lists
 * beside BullMQ's keys, changed by Lua scripts (redis-scripts.ts), so a claim, an end and its event are each
 * atomic, and a worker that lost its job can change nothing.
 *
 * `bullmq` (and `ioredis`) are optional peer dependencies, loaded when the queue is first used.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';
import type { Job as BullJob, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import type * as IoRedis from 'ioredis';
import { openRedisConnection, type RedisConnection } from './connection.ts';
import { positiveInteger } from '../../options.ts';
import {
  endersOf,
  eventRange,
  isAfterPosition,
  pageOf,
  positionOf,
  withChecks,
} from '../job-queue-common.ts';
import { STORE_DEFAULTS } from '../defaults.ts';
import { JOB_SCRIPTS } from './job-scripts.ts';
import {
  JobQueueFullError,
  type JobError,
  type JobEvent,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from '../job-queue.ts';

/** The claim script's "no cap on an account's running jobs". */
const NO_CAP = 0;

/** Options of {@link createRedisJobQueue}. */
export interface RedisJobQueueOptions {
  /** `redis://host:6379/0` or `rediss://…`. */
  readonly url: string;
  /** Prefix of every key (as the stores'). @default 'citewise:' */
  readonly prefix?: string;
  /**
   * Name of the BullMQ queue (instances working the same jobs use the same). The default, and the
   * `research:` of the keys, are the names jobs were stored under when the queue served research jobs only.
   * @default 'research'
   */
  readonly name?: string;
  /** How often BullMQ looks for jobs whose worker died (lock lapsed), in ms. @default 5_000 */
  readonly stalledCheckMs?: number;
  /** How long a job delivered while its account is at its cap waits before it is offered again, in ms. @default 1_000 */
  readonly capRetryMs?: number;
}

interface Held {
  readonly job: BullJob;
  readonly token: string;
}

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** Creates a {@link JobQueue} on Redis with BullMQ. Connects on first use. */
export function createRedisJobQueue<Input = unknown, Result = unknown>(
  options: RedisJobQueueOptions,
): JobQueue<Input, Result> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const prefix = options.prefix ?? 'citewise:';
  const name = options.name ?? 'research';
  if (!/^[\w.-]{1,100}$/.test(name)) throw new TypeError('name must be 1–100 letters, digits, _ . or -');
  const stalledCheckMs = positiveInteger(
    'stalledCheckMs',
    options.stalledCheckMs,
    STORE_DEFAULTS.stalledCheckMs,
  );
  const capRetryMs = positiveInteger('capRetryMs', options.capRetryMs, STORE_DEFAULTS.capRetryMs);
  const connection: RedisConnection = openRedisConnection({ url: options.url, prefix });
  for (const [command, definition] of Object.entries(JOB_SCRIPTS)) {
    const registered = connection.client as unknown as Record<string, unknown>;
    if (typeof registered[command] !== 'function') connection.client.defineCommand(command, definition);
  }
  const scripts = connection.client as unknown as Record<keyof typeof JOB_SCRIPTS, ScriptCall>;
  const ns = `${prefix}research:${name}:`;
  const k = {
    job: (id: string) => `${ns}job:${id}`,
    events: (id: string) => `${ns}events:${id}`,
    acct: (account: string) => `${ns}acct:${account}`,
    queued: `${ns}queued`,
    running: `${ns}running`,
    idem: `${ns}idem`,
    pending: `${ns}pending`,
    ended: `${ns}ended`,
  };
  const held = new Map<string, Held>();
  let bull: Promise<{ queue: BullQueue; worker: BullWorker; clients: IoRedis.Redis[] }> | undefined;
  let closed = false;
  let lastOrphanSweep = 0;

  /** BullMQ's queue and a manual worker (no processor), with the stalled-job checker running. */
  function bullmq() {
    bull ??= (async () => {
      const { Queue, Worker } = await loadBullmq();
      const { Redis } = loadIoredis();
      // BullMQ's connections wait for Redis instead of failing (its blocking commands need that).
      const clients = [0, 1].map(() => new Redis(options.url, { maxRetriesPerRequest: null }));
      for (const client of clients) client.on('error', () => {});
      const bullPrefix = `${prefix}bull`;
      const queue = new Queue(name, { connection: clients[0]!, prefix: bullPrefix });
      const worker = new Worker(name, null, {
        connection: clients[1]!,
        prefix: bullPrefix,
        autorun: false,
        lockDuration: 30_000,
        stalledInterval: stalledCheckMs,
        // A job interrupted by dead workers is ours to fail (maxAttempts), never BullMQ's.
        maxStalledCount: 1_000_000,
      });
      worker.on('error', () => {});
      queue.on('error', () => {});
      await worker.startStalledCheckTimer();
      return { queue, worker, clients };
    })();
    return bull;
  }

  const run = (script: keyof typeof JOB_SCRIPTS, ...args: (string | number)[]) =>
    connection.call(() => scripts[script](...args));

  async function record(id: string): Promise<JobRecord | null> {
    const fields = await connection.call((client) => client.hgetall(k.job(id)));
    return fields['id'] === undefined ? null : toRecord(fields);
  }

  async function offer(id: string, delayMs = 0): Promise<void> {
    const { queue } = await bullmq();
    await queue.add('job', { id }, { jobId: id, delay: delayMs, removeOnComplete: true, removeOnFail: true });
  }

  /** Offers again queued jobs whose offer was lost (the process died between storing and offering). */
  async function sweepOrphans(): Promise<void> {
    if (Date.now() - lastOrphanSweep < 60_000) return;
    lastOrphanSweep = Date.now();
    const ids = await connection.call((client) =>
      client.zrangebyscore(k.pending, '-inf', Date.now() - 60_000, 'LIMIT', 0, 100),
    );
    // BullMQ ignores an add whose jobId it still holds: only lost offers are made again.
    for (const id of ids) await offer(id);
  }

  async function end(
    id: string,
    token: string,
    status: JobStatus,
    values: { result?: unknown; error?: JobError; credits?: number },
  ): Promise<JobRecord | null> {
    const ended = await run(
      'citewiseJobEnd',
      k.job(id),
      k.events(id),
      k.queued,
      k.running,
      k.pending,
      k.ended,
      token,
      status,
      values.result === undefined ? '' : JSON.stringify(values.result),
      values.error === undefined ? '' : JSON.stringify(values.error),
      values.credits ?? 0,
    );
    if (Number(ended) === 1) return record(id);
    return null;
  }

  /** Lets BullMQ forget a job we are done with (its lock may be gone: then there is nothing to do). */
  async function release(token: string): Promise<void> {
    const entry = held.get(token);
    held.delete(token);
    await entry?.job.moveToCompleted(null, token, false).catch(() => {});
  }

  return withChecks<Input, Result>({
    ...endersOf(end, release),

    async enqueue(input) {
      const [outcome, id] = (await run(
        'citewiseJobEnqueue',
        k.job(input.id),
        k.events(input.id),
        k.queued,
        k.idem,
        k.acct(input.account),
        k.pending,
        input.id,
        input.account,
        input.keyId ?? '',
        JSON.stringify(input.input ?? null),
        input.idempotencyKey ?? '',
        input.fingerprint ?? '',
        input.maxQueued ?? -1,
      )) as [string, string];
      if (outcome === 'full') throw new JobQueueFullError(input.account, input.maxQueued ?? 0);
      if (outcome === 'exists') return { job: (await record(id))!, created: false };
      await offer(input.id);
      return { job: (await record(input.id))!, created: true };
    },

    async claim(claimOptions) {
      const { worker } = await bullmq();
      await sweepOrphans();
      // Deliveries that cannot run now (account at its cap, or still leased) go back; try a few more.
      for (let tries = 0; tries < 20; tries++) {
        const token = randomUUID();
        const delivered = (await worker.getNextJob(token, { block: false })) as BullJob | undefined;
        if (!delivered) return null;
        const id = (delivered.data as { id: string }).id;
        const [verdict, until] = (await run(
          'citewiseJobClaim',
          k.job(id),
          k.events(id),
          k.queued,
          k.running,
          k.pending,
          token,
          claimOptions.leaseMs,
          claimOptions.maxRunningPerAccount ?? NO_CAP,
        )) as [string, string?];
        if (verdict === 'ok') {
          held.set(token, { job: delivered, token });
          await delivered.extendLock(token, claimOptions.leaseMs).catch(() => {});
          return { job: (await record(id))!, lease: { jobId: id, token } };
        }
        if (verdict === 'ended' || verdict === 'gone') {
          await delivered.moveToCompleted(null, token, false).catch(() => {});
        } else {
          const at = verdict === 'leased' ? Number(until) + 1 : Date.now() + capRetryMs;
          await delivered.moveToDelayed(at, token).catch(() => {});
        }
      }
      return null;
    },

    async heartbeat(lease, leaseMs) {
      const state = (await run('citewiseJobHeartbeat', k.job(lease.jobId), lease.token, leaseMs)) as
        'ok' | 'lost' | 'cancelled';
      if (state === 'ok')
        await held
          .get(lease.token)
          ?.job.extendLock(lease.token, leaseMs)
          .catch(() => {});
      else await release(lease.token);
      return state;
    },

    async appendEvent(lease, type, data) {
      const id = Number(
        await run(
          'citewiseJobAppend',
          k.job(lease.jobId),
          k.events(lease.jobId),
          lease.token,
          type,
          JSON.stringify(data ?? null),
        ),
      );
      return id < 0 ? null : { id, type, data: data ?? null, at: Date.now() };
    },

    async cancel(id) {
      const ended = await end(id, '', 'cancelled', {});
      if (ended) {
        // A queued job leaves BullMQ now; a running one when its worker's heartbeat learns it.
        await (await bullmq()).queue.remove(id).catch(() => {});
        return ended;
      }
      return record(id);
    },

    get: record,

    async findByIdempotencyKey(account, key) {
      const id = await connection.call((client) => client.hget(k.idem, `${account}\n${key}`));
      return id === null ? null : record(id);
    },

    async list(listOptions) {
      const after = positionOf(listOptions);
      const found: JobRecord[] = [];
      const max: string = after === null ? '+inf' : String(after.createdAt);
      // Pages of the account's ids, newest first, read until a page of matching jobs and one more is found.
      for (let offset = 0; found.length <= listOptions.limit; offset += 200) {
        const ids = await connection.call((client) =>
          client.zrevrangebyscore(k.acct(listOptions.account), max, '-inf', 'LIMIT', offset, 200),
        );
        for (const id of ids) {
          const job = await record(id);
          if (!job || (after !== null && !isAfterPosition(job, after))) continue;
          if (listOptions.status !== undefined && job.status !== listOptions.status) continue;
          found.push(job);
          if (found.length > listOptions.limit) break;
        }
        if (ids.length < 200) break;
      }
      return pageOf(found, listOptions.limit);
    },

    async events(id, range = {}) {
      const { after, limit } = eventRange(range);
      // Event n is at list index n - 1.
      const items = await connection.call((client) => client.lrange(k.events(id), after, after + limit - 1));
      return items.map((item) => JSON.parse(item) as JobEvent);
    },

    async unfinalized({ endedBefore, limit }) {
      const ids = await connection.call((client) =>
        client.zrangebyscore(k.ended, '-inf', `(${endedBefore}`, 'LIMIT', 0, limit),
      );
      const jobs = await Promise.all(ids.map(record));
      return jobs.filter((job): job is JobRecord => job !== null);
    },

    async markFinalized(id) {
      await run('citewiseJobFinalize', k.job(id), k.ended, id);
    },

    ping: () => connection.ping(),

    async close() {
      if (closed) return;
      closed = true;
      if (bull) {
        const { queue, worker, clients } = await bull.catch(() => ({
          queue: null,
          worker: null,
          clients: [],
        }));
        await worker?.close(true).catch(() => {});
        await queue?.close().catch(() => {});
        for (const client of clients) client.disconnect();
      }
      await connection.close();
    },
  });
}

function toRecord(fields: Record<string, string>): JobRecord {
  const number = (name: string) => (fields[name] ? Number(fields[name]) : null);
  const text = (name: string) => (fields[name] ? fields[name] : null);
  return {
    id: fields['id']!,
    account: fields['account']!,
    keyId: text('key_id'),
    status: fields['status'] as JobStatus,
    input: JSON.parse(fields['input'] ?? 'null') as unknown,
    createdAt: Number(fields['created_at']),
    startedAt: number('started_at'),
    completedAt: number('completed_at'),
    attempts: Number(fields['attempts'] ?? 0),
    result: fields['result'] ? (JSON.parse(fields['result']) as unknown) : null,
    error: fields['error'] ? (JSON.parse(fields['error']) as JobError) : null,
    creditsUsed: Number(fields['credits_used'] ?? 0),
    idempotencyKey: text('idempotency_key'),
    fingerprint: text('fingerprint'),
    finalized: fields['finalized'] === '1',
  };
}

async function loadBullmq(): Promise<typeof BullMQ> {
  try {
    return await import('bullmq');
  } catch (error) {
    throw new Error('the Redis job queue needs the bullmq package: npm install bullmq', { cause: error });
  }
}

function loadIoredis(): typeof IoRedis {
  try {
    return createRequire(import.meta.url)('ioredis') as typeof IoRedis;
  } catch (error) {
    throw new Error('the Redis job queue needs the ioredis package: npm install ioredis', { cause: error });
  }
}
