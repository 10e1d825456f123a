/**
 * The Redis connection shared by the Redis stores: client options that fail fast instead of queueing when
 * Redis is away, the Lua scripts registered with `defineCommand` (EVALSHA, re-sent with EVAL on NOSCRIPT)
 * and the mapping of connection failures to a 503 {@link CitewiseError}.
 */
import { createRequire } from 'node:module';
import type * as IoRedis from 'ioredis';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { CitewiseError } from '../../errors.ts';
import { positiveNumber } from '../../options.ts';
import { SCRIPTS, type ScriptName } from './scripts.ts';
import { STORE_DEFAULTS } from '../defaults.ts';

/** A Redis client: a single node or a cluster (every multi-key script touches keys of one hash slot). */
export type RedisClient = Redis | Cluster;

/** Connection options shared by the Redis store factories. */
export interface RedisConnectionOptions {
  /** An ioredis client to use (never closed by the stores). Give `client` or `url`. */
  readonly client?: RedisClient;
  /** A Redis URL (`redis://host:6379/0`, `rediss://…`); the stores create and own the client. */
  readonly url?: string;
  /**
   * Prefix of every key the stores write. Must not contain `{` or `}` (they delimit Cluster hash tags).
   * @default 'citewise:'
   */
  readonly prefix?: string;
  /** Per-command deadline for a client created from `url`, in ms. @default 2_000 */
  readonly commandTimeoutMs?: number;
}

/** Options of clients created from a URL: fail fast (no offline queue, no retry of sent commands), reconnect forever. */
export function clientOptionsFor(commandTimeoutMs: number): RedisOptions {
  return {
    // Commands sent while disconnected fail at once instead of waiting: the service answers 503 at once.
    enableOfflineQueue: false,
    // A command whose connection dropped is not re-sent: a script may have run already (e.g. a reservation).
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(commandTimeoutMs, 1_000),
    // Keep reconnecting (at most every second) so the service recovers by itself when Redis is back.
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1_000),
    lazyConnect: false,
  };
}

type ScriptMethod = (...args: (string | number)[]) => Promise<unknown>;

/** A client with the citewise scripts defined on it. */
export interface RedisConnection {
  readonly client: RedisClient;
  readonly prefix: string;
  /** Runs a registered script (EVALSHA, with EVAL on NOSCRIPT); failures to reach Redis become 503. */
  run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** Runs any client call, mapping failures to reach Redis to 503. */
  call<T>(work: (client: RedisClient) => Promise<T>): Promise<T>;
  /** Sends PING; rejects (503) when Redis cannot be reached. */
  ping(): Promise<void>;
  /** Closes the client if the connection created it. */
  close(): Promise<void>;
}

/** How long a call waits for the first connection (or a reconnection) before answering 503. */
const READY_WAIT_MS = 1_000;

/** Validates the options and opens (or adopts) the client. */
export function openRedisConnection(options: RedisConnectionOptions): RedisConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { client: given, url } = options;
  if ((given === undefined) === (url === undefined)) throw new TypeError('give exactly one of client or url');
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    throw new TypeError('url must be a redis:// or rediss:// URL');
  }
  const prefix = options.prefix ?? 'citewise:';
  if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
  if (/[{}]/.test(prefix)) throw new RangeError('prefix must not contain { or } (Cluster hash tags)');
  const commandTimeoutMs = positiveNumber(
    'commandTimeoutMs',
    options.commandTimeoutMs,
    STORE_DEFAULTS.redisCommandTimeoutMs,
  );

  const owned = given === undefined;
  const client: RedisClient = given ?? new (loadIoredis().Redis)(url!, clientOptionsFor(commandTimeoutMs));
  // An owned client reports connection errors through our 503s; without a listener ioredis would log them.
  if (owned) client.on('error', () => {});
  for (const [name, definition] of Object.entries(SCRIPTS)) {
    // defineCommand is idempotent per name; several stores may share one client.
    const registered = client as unknown as Record<string, unknown>;
    if (typeof registered[name] !== 'function') client.defineCommand(name, definition);
  }
  const scripts = client as unknown as Record<ScriptName, ScriptMethod>;
  let closed = false;

  // One shared wait for "ready", so a burst of calls during a reconnection adds one listener, not thousands.
  let readyWait: Promise<void> | null = null;
  function whenReady(): Promise<void> | undefined {
    if (client.status === 'ready') return undefined;
    if (closed || client.status === 'end')
      return Promise.reject(unavailable(new Error('the Redis client is closed')));
    readyWait ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', onReady);
        readyWait = null;
        reject(unavailable(new Error(`Redis not ready (status ${client.status})`)));
      }, READY_WAIT_MS);
      const onReady = () => {
        clearTimeout(timer);
        readyWait = null;
        resolve();
      };
      client.once('ready', onReady);
    });
    return readyWait;
  }

  async function call<T>(work: (c: RedisClient) => Promise<T>): Promise<T> {
    const waiting = whenReady();
    if (waiting) await waiting;
    try {
      return await work(client);
    } catch (error) {
      throw toRedisError(error);
    }
  }

  return {
    client,
    prefix,
    run: (name, keys, args) => call(() => scripts[name](...keys, ...args)),
    call,
    async ping() {
      await call((c) => c.ping());
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) {
        try {
          await client.quit();
        } catch {
          client.disconnect();
        }
      }
    },
  };
}

/**
 * ioredis is an optional peer dependency: it is loaded only when a Redis store is created from a URL, so
 * the rest of citewise (and its CLI) works without it.
 */
function loadIoredis(): typeof IoRedis {
  try {
    return createRequire(import.meta.url)('ioredis') as typeof IoRedis;
  } catch (error) {
    throw new Error('the Redis stores need the ioredis package: npm install ioredis', { cause: error });
  }
}

/** A 503 that says Redis could not be reached (details stay in `message`/`cause`, never sent to clients). */
export function unavailable(cause: unknown): CitewiseError {
  return new CitewiseError('service_unavailable', `Redis unavailable: ${describe(cause)}`, {
    cause,
    retryAfterMs: 1_000,
  });
}

/** Script errors (a bug) stay errors; everything else (connection, timeout) is a 503. */
function toRedisError(error: unknown): unknown {
  if (error instanceof CitewiseError) return error;
  if (
    error instanceof Error &&
    error.name === 'ReplyError' &&
    !/LOADING|BUSY|READONLY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN/.test(error.message)
  ) {
    return error;
  }
  return unavailable(error);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A Redis Cluster hash tag: every key with the same tag lives in the same slot. The value is
 * percent-encoded so that a `}` inside it cannot end the tag early (and the encoding stays injective).
 */
export function hashTag(value: string): string {
  return `{${encodeURIComponent(value)}}`;
}
