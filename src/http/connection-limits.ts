/**
 * A cap on open connections, in total and per client address, for a `node:http` server.
 *
 * A connection that is not serving a request (idle keep-alive, or still sending its headers: a slow
 * client) is the first to go: at a cap, the oldest such connection is closed to make room for the new
 * one, and near a cap idle connections are cut after a short idle time instead of the keep-alive timeout.
 * Next to go are connections holding a stream that yields its connection (a research event stream, which its
 * client resumes after `Last-Event-ID` and which costs nothing): the oldest one of the address with the most
 * of them. Only when every connection under the cap serves a request is a new connection refused (closed at
 * once). So neither a flood of idle or slow connections nor one of event streams can keep a real request,
 * such as another tenant's `GET /v1/balance`, out, nor exhaust the process's file descriptors.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Options of {@link limitConnections}. */
export interface ConnectionLimitOptions {
  /** Most open connections in total (keep it below the process's file-descriptor limit). @default 1024 */
  readonly maxConnections?: number;
  /** Most open connections from one client address. @default 128 */
  readonly maxConnectionsPerAddress?: number;
  /** Share of a cap from which idle connections are cut after {@link idleTimeoutNearCapMs}. @default 0.8 */
  readonly nearCapShare?: number;
  /** Idle time after which a connection is cut while a cap is near, in ms. @default 1_000 */
  readonly idleTimeoutNearCapMs?: number;
}

/** Defaults of {@link ConnectionLimitOptions}, written once (the CLI's flags use them too). */
export const CONNECTION_LIMIT_DEFAULTS = {
  maxConnections: 1024,
  maxConnectionsPerAddress: 128,
  nearCapShare: 0.8,
  idleTimeoutNearCapMs: 1_000,
} as const;

/** Connections serving a stream that may be closed to make room (see {@link yieldConnectionWhileStreaming}). */
const yielding = new WeakSet<Socket>();

/**
 * Marks `socket` as serving a stream that may be closed when a cap is reached (before any request is
 * refused); returns the function that unmarks it once the stream ends.
 */
export function yieldConnectionWhileStreaming(socket: Socket | null): () => void {
  if (!socket) return () => {};
  yielding.add(socket);
  return () => yielding.delete(socket);
}

/** Counters of a limited server (for tests, logs and metrics). */
export interface ConnectionLimiter {
  /** Connections open now. */
  readonly open: number;
  /** Connections closed at once because every connection under a cap was busy. */
  readonly refused: number;
  /** Idle or slow connections closed to make room, or cut sooner near a cap. */
  readonly evicted: number;
  /** Connections serving a yielding stream (research events) closed to make room. */
  readonly streamsClosed: number;
  /** Stops the periodic idle sweep (also stopped when the server closes). */
  stop(): void;
}

interface Tracked {
  readonly address: string;
  /** Requests in progress on this connection. */
  active: number;
  /** When it last became idle (accepted, or its last response ended), `performance.now()`. */
  idleSince: number;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** Applies the caps to `server` (call before it listens). */
export function limitConnections(server: Server, options: ConnectionLimitOptions = {}): ConnectionLimiter {
  const maxTotal = positiveInteger(
    'maxConnections',
    options.maxConnections ?? CONNECTION_LIMIT_DEFAULTS.maxConnections,
  );
  const maxPerAddress = positiveInteger(
    'maxConnectionsPerAddress',
    options.maxConnectionsPerAddress ?? CONNECTION_LIMIT_DEFAULTS.maxConnectionsPerAddress,
  );
  const nearCapShare = options.nearCapShare ?? CONNECTION_LIMIT_DEFAULTS.nearCapShare;
  if (!(nearCapShare > 0 && nearCapShare <= 1)) throw new RangeError('nearCapShare must be in (0, 1]');
  const idleTimeoutMs = positiveInteger(
    'idleTimeoutNearCapMs',
    options.idleTimeoutNearCapMs ?? CONNECTION_LIMIT_DEFAULTS.idleTimeoutNearCapMs,
  );

  // Insertion order is accept order, so the first idle socket found is the oldest.
  const sockets = new Map<Socket, Tracked>();
  const byAddress = new Map<string, Set<Socket>>();
  let refused = 0;
  let evicted = 0;
  let streamsClosed = 0;

  const forget = (socket: Socket): void => {
    const tracked = sockets.get(socket);
    if (!tracked) return;
    sockets.delete(socket);
    const group = byAddress.get(tracked.address);
    group?.delete(socket);
    if (group?.size === 0) byAddress.delete(tracked.address);
  };

  const evict = (socket: Socket): void => {
    evicted++;
    forget(socket);
    socket.destroy();
  };

  /** The oldest connection not serving a request, among `candidates`. */
  const oldestIdle = (candidates: Iterable<Socket>): Socket | undefined => {
    for (const socket of candidates) if (sockets.get(socket)?.active === 0) return socket;
    return undefined;
  };

  /** Among `candidates`, the oldest connection serving a yielding stream of the address with the most. */
  const yieldingStream = (candidates: Iterable<Socket>): Socket | undefined => {
    const byOwner = new Map<string, Socket[]>();
    for (const socket of candidates) {
      if (!yielding.has(socket)) continue;
      const address = sockets.get(socket)?.address ?? '';
      const list = byOwner.get(address) ?? [];
      list.push(socket);
      byOwner.set(address, list);
    }
    let most: Socket[] = [];
    for (const list of byOwner.values()) if (list.length > most.length) most = list;
    return most[0];
  };

  /**
   * Makes room under a cap: evicts the oldest idle connection, else a yielding stream's connection, or
   * says there is none (every connection serves a request).
   */
  const makeRoom = (candidates: readonly Socket[]): boolean => {
    const idle = oldestIdle(candidates);
    if (idle) {
      evict(idle);
      return true;
    }
    const stream = yieldingStream(candidates);
    if (!stream) return false;
    streamsClosed++;
    evict(stream);
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const group = byAddress.get(address);
    if (
      (group && group.size >= maxPerAddress && !makeRoom([...group])) ||
      (sockets.size >= maxTotal && !makeRoom([...sockets.keys()]))
    ) {
      refused++;
      socket.destroy();
      return;
    }
    sockets.set(socket, { address, active: 0, idleSince: performance.now() });
    const members = byAddress.get(address) ?? new Set<Socket>();
    members.add(socket);
    byAddress.set(address, members);
    socket.once('close', () => forget(socket));
  });

  server.on('request', (req, res) => {
    const tracked = sockets.get(req.socket);
    if (!tracked) return;
    tracked.active++;
    res.once('close', () => {
      tracked.active = Math.max(0, tracked.active - 1);
      if (tracked.active === 0) tracked.idleSince = performance.now();
    });
  });

  // Near a cap, idle connections go after a short idle time rather than the keep-alive timeout.
  const sweep = (): void => {
    const totalNear = sockets.size >= maxTotal * nearCapShare;
    const cutoff = performance.now() - idleTimeoutMs;
    for (const [socket, tracked] of sockets) {
      if (tracked.active !== 0 || tracked.idleSince > cutoff) continue;
      const addressNear = (byAddress.get(tracked.address)?.size ?? 0) >= maxPerAddress * nearCapShare;
      if (totalNear || addressNear) evict(socket);
    }
  };
  const timer = setInterval(sweep, Math.max(50, Math.floor(idleTimeoutMs / 2)));
  timer.unref();
  const stop = (): void => clearInterval(timer);
  server.once('close', stop);

  return {
    get open() {
      return sockets.size;
    },
    get refused() {
      return refused;
    },
    get evicted() {
      return evicted;
    },
    get streamsClosed() {
      return streamsClosed;
    },
    stop,
  };
}
