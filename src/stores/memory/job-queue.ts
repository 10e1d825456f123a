/**
 * The in-process {@link JobQueue}: the library's default. Jobs live as long as the process (use the SQLite,
 * Redis or PostgreSQL queue for jobs that must survive a restart).
 */
import { randomUUID } from 'node:crypto';
import {
  eventRange,
  isAfterPosition,
  pageOf,
  positionOf,
  statusEventData,
  terminalEventData,
  underCap,
  withChecks,
} from '../job-queue-common.ts';
import {
  isTerminal,
  JobQueueFullError,
  type JobError,
  type JobEvent,
  type JobLease,
  type JobQueue,
  type JobRecord,
  type JobStatus,
} from '../job-queue.ts';

/** Options of {@link createMemoryJobQueue}. */
export interface MemoryJobQueueOptions {
  /** Clock in epoch ms, injectable for tests. @default Date.now */
  readonly now?: () => number;
}

interface Entry {
  job: JobRecord;
  token: string | null;
  leaseUntil: number;
  events: JobEvent[];
}

/** Creates an in-process {@link JobQueue}. */
export function createMemoryJobQueue<Input = unknown, Result = unknown>(
  options: MemoryJobQueueOptions = {},
): JobQueue<Input, Result> {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const byIdempotencyKey = new Map<string, string>();

  function append(entry: Entry, type: string, data: unknown): JobEvent {
    const event = { id: entry.events.length + 1, type, data, at: now() };
    entry.events.push(event);
    return event;
  }

  function held(lease: JobLease): Entry | null {
    const entry = entries.get(lease.jobId);
    return entry && entry.token === lease.token && entry.job.status === 'running' ? entry : null;
  }

  function end(entry: Entry, status: JobStatus, changes: Partial<JobRecord>, error?: JobError): JobRecord {
    entry.job = { ...entry.job, ...changes, status, completedAt: now(), ...(error ? { error } : {}) };
    append(entry, status, terminalEventData(status, error));
    return entry.job;
  }

  const runningOf = (account: string) =>
    [...entries.values()].filter((e) => e.job.account === account && e.job.status === 'running').length;

  return withChecks<Input, Result>({
    async enqueue(input) {
      const scope =
        input.idempotencyKey === undefined ? undefined : `${input.account}\n${input.idempotencyKey}`;
      const existing = scope === undefined ? undefined : byIdempotencyKey.get(scope);
      if (existing !== undefined) return { job: entries.get(existing)!.job, created: false };
      if (entries.has(input.id)) throw new TypeError(`a job with id ${input.id} exists`);
      if (input.maxQueued !== undefined) {
        const queued = [...entries.values()].filter(
          (e) => e.job.account === input.account && e.job.status === 'queued',
        ).length;
        if (queued >= input.maxQueued) throw new JobQueueFullError(input.account, input.maxQueued);
      }
      const job: JobRecord = {
        id: input.id,
        account: input.account,
        keyId: input.keyId ?? null,
        status: 'queued',
        input: structuredClone(input.input),
        createdAt: now(),
        startedAt: null,
        completedAt: null,
        attempts: 0,
        result: null,
        error: null,
        creditsUsed: 0,
        idempotencyKey: input.idempotencyKey ?? null,
        fingerprint: input.fingerprint ?? null,
        finalized: false,
      };
      const entry: Entry = { job, token: null, leaseUntil: 0, events: [] };
      entries.set(job.id, entry);
      if (scope !== undefined) byIdempotencyKey.set(scope, job.id);
      append(entry, 'status', statusEventData('queued'));
      return { job, created: true };
    },

    async claim(claimOptions) {
      const at = now();
      let best: Entry | undefined;
      let bestRunning = Infinity;
      for (const entry of entries.values()) {
        const { status, account } = entry.job;
        const claimable = status === 'queued' || (status === 'running' && entry.leaseUntil <= at);
        if (!claimable) continue;
        // A stalled job of the account still counts as running until it is taken over.
        const running = runningOf(account) - (status === 'running' ? 1 : 0);
        if (!underCap(running, claimOptions.maxRunningPerAccount)) continue;
        // The account running the fewest goes first; among equals, the oldest job (insertion order).
        if (running < bestRunning) {
          best = entry;
          bestRunning = running;
        }
      }
      if (!best) return null;
      const token = randomUUID();
      best.token = token;
      best.leaseUntil = at + claimOptions.leaseMs;
      best.job = {
        ...best.job,
        status: 'running',
        attempts: best.job.attempts + 1,
        startedAt: best.job.startedAt ?? at,
      };
      append(best, 'status', statusEventData('running', best.job.attempts));
      return { job: best.job, lease: { jobId: best.job.id, token } };
    },

    async heartbeat(lease, leaseMs) {
      const entry = entries.get(lease.jobId);
      if (!entry || entry.token !== lease.token) return 'lost';
      if (entry.job.status === 'cancelled') return 'cancelled';
      if (entry.job.status !== 'running') return 'lost';
      entry.leaseUntil = now() + leaseMs;
      return 'ok';
    },

    async appendEvent(lease, type, data) {
      const entry = held(lease);
      return entry ? append(entry, type, structuredClone(data)) : null;
    },

    async complete(lease, outcome) {
      const entry = held(lease);
      if (!entry) return null;
      return end(entry, 'completed', {
        result: structuredClone(outcome.result),
        creditsUsed: outcome.creditsUsed,
      });
    },

    async fail(lease, error) {
      const entry = held(lease);
      return entry ? end(entry, 'failed', {}, error) : null;
    },

    async cancel(id) {
      const entry = entries.get(id);
      if (!entry) return null;
      if (isTerminal(entry.job.status)) return entry.job;
      return end(entry, 'cancelled', {});
    },

    async get(id) {
      return entries.get(id)?.job ?? null;
    },

    async findByIdempotencyKey(account, key) {
      const id = byIdempotencyKey.get(`${account}\n${key}`);
      return id === undefined ? null : (entries.get(id)?.job ?? null);
    },

    async list(listOptions) {
      const after = positionOf(listOptions);
      const matching = [...entries.values()]
        .map((entry) => entry.job)
        .filter((job) => job.account === listOptions.account)
        .filter((job) => listOptions.status === undefined || job.status === listOptions.status)
        .filter((job) => after === null || isAfterPosition(job, after))
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      return pageOf(matching, listOptions.limit);
    },

    async events(id, range = {}) {
      const { after, limit } = eventRange(range);
      return (entries.get(id)?.events ?? []).filter((event) => event.id > after).slice(0, limit);
    },

    async unfinalized({ endedBefore, limit }) {
      return [...entries.values()]
        .map((entry) => entry.job)
        .filter((job) => isTerminal(job.status) && !job.finalized && (job.completedAt ?? 0) < endedBefore)
        .slice(0, limit);
    },

    async markFinalized(id) {
      const entry = entries.get(id);
      if (entry && isTerminal(entry.job.status)) entry.job = { ...entry.job, finalized: true };
    },

    async ping() {},
    async close() {},
  });
}
