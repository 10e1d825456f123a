/**
 * A node:http server on a loopback address (port 0) that counts TCP connections and requests, and tears
 * down every socket on close — for tests that must prove a connection did (or did not) happen.
 */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A server listening on 127.0.0.1. */
export interface ListeningServer {
  /** `http://127.0.0.1:<port>` followed by the mount path, if any. */
  readonly baseUrl: string;
  /** Closes open connections and stops listening. */
  close(): Promise<void>;
}

/**
 * Makes an already created server listen on 127.0.0.1 at `port` (0: any free port; a port in use rejects);
 * `mountPath` is appended to its base URL.
 */
export async function listenOnLoopback(server: Server, mountPath = '', port = 0): Promise<ListeningServer> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${bound}${mountPath}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface LoopbackServer {
  /** Address listened on, e.g. `127.0.0.1` or `::1`. */
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (IPv6 in brackets). */
  readonly origin: string;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Request paths received so far, in order. */
  readonly requests: readonly string[];
  /** Destroys open sockets and stops listening. */
  close(): Promise<void>;
}

/** Starts a server; the handler sees every request (the counters are updated before it runs). */
export async function startLoopbackServer(
  handler: RequestListener,
  host = '127.0.0.1',
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const requests: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    host,
    port,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get connections() {
      return connections;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
