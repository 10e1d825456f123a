/**
 * Opens the stores the CLI runs on, from a `--store` URL: `redis://…` (keys, credits, Idempotency-Key
 * requests and limits in Redis), `postgres://…` (keys, credits and Idempotency-Key requests in PostgreSQL; limits per instance in memory unless `--limits-store`
 * names a Redis), `sqlite:PATH`, or nothing (SQLite in the data directory, the single-machine default).
 * `postgres://…?schema=NAME` picks the schema (default `citewise`); `redis://…?prefix=P` the key prefix.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createMemoryRateLimiter } from '../stores/memory/rate-limiter.ts';
import { createPostgresStores } from '../stores/postgres/index.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import { createSqliteStores } from '../stores/sqlite/index.ts';
import type {
  CreditStore,
  IdempotencyStore,
  KeyStore,
  RateLimiter,
  RateLimitOptions,
} from '../stores/types.ts';
import { databasePath } from './config.ts';
import type { ResearchJobQueue } from '../jobs/records.ts';
import { createSqliteJobQueue } from '../stores/sqlite/job-queue.ts';
import { createRedisJobQueue } from '../stores/redis/job-queue.ts';
import { createPostgresJobQueue } from '../stores/postgres/job-queue.ts';
import { storeKindOf, type StoreKind } from './settings.ts';

/** The stores of one CLI process. */
export interface CliStores {
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  /** Requests sent with an Idempotency-Key, on the same backend as keys and credits. */
  readonly idempotency: IdempotencyStore;
  /** A rate limiter on the limits store. */
  rateLimiter(options: RateLimitOptions): RateLimiter;
  /**
   * The queue of research jobs on the same backend (SQLite table, BullMQ on Redis, pg-boss on PostgreSQL),
   * opened on first call and closed with the stores.
   */
  jobQueue(settings: JobQueueSettings): ResearchJobQueue;
  /** Where keys and credits live, for logs (credentials removed). */
  readonly description: string;
  /** Whether keys and credits are in a local SQLite file that did not exist before this process. */
  readonly createdLocalDatabase: boolean;
  /** That local SQLite file, when keys and credits are in one. */
  readonly localDatabase: string | undefined;
  /** Applies pending schema migrations (PostgreSQL); returns what it did, for printing. */
  migrate(): Promise<string>;
  close(): Promise<void>;
}

/** How the queue of research jobs notices a dead worker. */
export interface JobQueueSettings {
  /** The workers' lease: BullMQ checks for stalled jobs twice a lease, pg-boss expects a heartbeat each. */
  readonly leaseMs: number;
}

/** Where the stores live. */
export interface CliStoreSettings {
  /** `redis://…`, `rediss://…`, `postgres://…`, `postgresql://…`, `sqlite:PATH`; absent = SQLite in dataDir. */
  readonly store?: string | undefined;
  /** Where rate limits live when not in `store`: `redis://…` or `memory:`. @default the store, else memory */
  readonly limitsStore?: string | undefined;
  /** Data directory of the default SQLite store. */
  readonly dataDir: string;
}

/** The kind of store a URL names; throws a readable Error for anything else. */
export function storeKind(url: string): StoreKind {
  const kind = storeKindOf(url);
  if (kind) return kind;
  throw new Error(
    `unsupported store "${redact(url)}": use redis://…, postgres://…, sqlite:PATH (or memory: for --limits-store)`,
  );
}

/** A URL without its password, safe to print. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Opens the stores for `settings`. */
export function openCliStores(settings: CliStoreSettings): CliStores {
  const kind = settings.store ? storeKind(settings.store) : 'sqlite';
  if (kind === 'memory')
    throw new Error('--store memory: would lose keys and credits on exit; use it only for --limits-store');
  const limitsKind = settings.limitsStore ? storeKind(settings.limitsStore) : undefined;
  if (limitsKind === 'postgres' || limitsKind === 'sqlite') {
    throw new Error('--limits-store must be redis://… or memory:');
  }

  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };

  let keys: KeyStore;
  let credits: CreditStore;
  let idempotency: IdempotencyStore;
  let ownLimiter: ((options: RateLimitOptions) => RateLimiter) | undefined;
  let openJobQueue: (settings: JobQueueSettings) => ResearchJobQueue;
  let migrate: () => Promise<string> = async () => 'nothing to migrate';
  let createdLocalDatabase = false;
  let localDatabase: string | undefined;
  let description: string;

  if (kind === 'redis') {
    const { url, option: prefix } = takeParameter(settings.store!, 'prefix');
    const stores = createRedisStores({ url, ...(prefix ? { prefix } : {}) });
    closers.push(() => stores.close());
    ({ keys, credits, idempotency } = stores);
    ownLimiter = (options) => stores.rateLimiter(options);
    openJobQueue = ({ leaseMs }) =>
      createRedisJobQueue({
        url,
        ...(prefix ? { prefix } : {}),
        stalledCheckMs: Math.max(100, Math.floor(leaseMs / 2)),
      });
    description = redact(settings.store!);
  } else if (kind === 'postgres') {
    const { url, option: schema } = takeParameter(settings.store!, 'schema');
    const stores = createPostgresStores({ connectionString: url, ...(schema ? { schema } : {}) });
    closers.push(() => stores.close());
    ({ keys, credits, idempotency } = stores);
    migrate = async () => {
      const applied = await stores.migrate();
      return applied.length ? `applied migrations ${applied.join(', ')}` : 'schema up to date';
    };
    openJobQueue = ({ leaseMs }) =>
      createPostgresJobQueue({
        connectionString: url,
        ...(schema ? { schema } : {}),
        // pg-boss wants a heartbeat at least every 10 s; its monitor looks twice per heartbeat.
        heartbeatSeconds: Math.max(10, Math.ceil(leaseMs / 1_000)),
        monitorSeconds: Math.max(1, Math.min(5, Math.ceil(leaseMs / 2_000))),
      });
    description = redact(settings.store!);
  } else {
    const path = settings.store
      ? resolve(settings.store.replace(/^sqlite:(\/\/)?/i, ''))
      : databasePath(settings.dataDir);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    createdLocalDatabase = !existsSync(path);
    localDatabase = path;
    const stores = createSqliteStores({ path });
    closers.push(() => stores.close());
    ({ keys, credits, idempotency } = stores);
    ownLimiter = (options) => stores.rateLimiter(options);
    openJobQueue = () => createSqliteJobQueue({ database: stores.database });
    description = `sqlite:${path}`;
  }

  let limiter: (options: RateLimitOptions) => RateLimiter;
  if (limitsKind === 'redis') {
    const { url, option: prefix } = takeParameter(settings.limitsStore!, 'prefix');
    const limits = createRedisStores({ url, ...(prefix ? { prefix } : {}) });
    closers.push(() => limits.close());
    limiter = (options) => limits.rateLimiter(options);
  } else if (limitsKind === 'memory' || !ownLimiter) {
    limiter = (options) => createMemoryRateLimiter(options);
  } else {
    limiter = ownLimiter;
  }

  let jobQueue: ResearchJobQueue | undefined;
  return {
    keys,
    credits,
    idempotency,
    rateLimiter: limiter,
    jobQueue(jobSettings) {
      if (!jobQueue) {
        const queue = openJobQueue(jobSettings);
        // Closed before the stores whose connection it may share.
        closers.push(async () => queue.close?.());
        jobQueue = queue;
      }
      return jobQueue;
    },
    description,
    createdLocalDatabase,
    localDatabase,
    migrate,
    close: closeAll,
  };
}

/** Removes our own query parameter (`?schema=` for PostgreSQL, `?prefix=` for Redis) from a store URL. */
export function takeParameter(url: string, name: string): { url: string; option: string | undefined } {
  const parsed = new URL(url);
  const option = parsed.searchParams.get(name) ?? undefined;
  if (option === undefined) return { url, option };
  parsed.searchParams.delete(name);
  return { url: parsed.toString(), option };
}
