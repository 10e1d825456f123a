/**
 * A hostile little web on 127.0.0.1 for fetcher tests: slow and silent servers, decompression bombs,
 * stacked encodings, redirect loops and redirects to internal hosts, odd charsets, huge pages, binaries,
 * PDFs and robots.txt. Tests reach it as `http://fixture.test:<port>/…` through a fake resolver, so that
 * only that one host name is allowed to be private.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import type { HostResolver, ResolvedAddress } from '../../src/pipeline/fetch/index.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';

export const FIXTURE_HOST = 'fixture.test';

export const HTML =
  '<!doctype html><html><head><title>Fixture</title></head><body><p>Hello fixture.</p></body></html>';
/** `café` in windows-1252 (é = 0xE9), which is not valid UTF-8. */
export const WINDOWS_1252_BODY = Buffer.from([
  ...Buffer.from('<html><body><p>caf', 'latin1'),
  0xe9,
  ...Buffer.from('</p></body></html>', 'latin1'),
]);
/** `日本` in Shift_JIS. */
export const SHIFT_JIS_BODY = Buffer.from([0x93, 0xfa, 0x96, 0x7b]);
export const PDF_BODY = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
export const PNG_BODY = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48,
]);

/** 64 MiB of zeros, gzip-compressed once (about 64 KiB on the wire). */
let gzipBomb: Buffer | undefined;
function getGzipBomb(): Buffer {
  gzipBomb ??= zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return gzipBomb;
}

export interface FixtureWebOptions {
  /**
   * Body of /robots.txt, or a status to answer with, `{ reset: true }` to drop the connection, or
   * `{ redirect: location }` to redirect. @default 404
   */
  readonly robots?: string | number | { readonly reset: true } | { readonly redirect: string };
}

export interface FixtureWeb {
  readonly server: LoopbackServer;
  readonly port: number;
  /** `http://fixture.test:<port>` */
  readonly origin: string;
  /** Absolute fixture URL for a path. */
  url(path: string): URL;
  /** Requests per path (without query). */
  hits(path: string): number;
  /** Responses the server could not finish because the client went away. */
  readonly abandonedResponses: number;
  /** Requests parked by `/hold/*`, and the most that were parked at once. */
  readonly held: number;
  readonly maxHeld: number;
  /** Answers every parked and future `/hold/*` request. */
  releaseHeld(): void;
  /** Resolves when `count` requests are parked. */
  whenHeld(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fixture web on 127.0.0.1. */
export async function startFixtureWeb(options: FixtureWebOptions = {}): Promise<FixtureWeb> {
  const hitCounts = new Map<string, number>();
  let abandoned = 0;
  let released = false;
  const parked: ServerResponse[] = [];
  let maxHeld = 0;
  let heldWaiters: { count: number; resolve: () => void }[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const trackAbandon = (res: ServerResponse): void => {
    res.once('close', () => {
      if (!res.writableFinished) abandoned++;
    });
  };

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => void> =
    {
      '/robots.txt': (_req, res) => {
        const robots = options.robots ?? 404;
        if (typeof robots === 'object' && 'reset' in robots) {
          res.socket?.destroy();
        } else if (typeof robots === 'object') {
          res.writeHead(301, { location: robots.redirect }).end();
        } else if (typeof robots === 'number') {
          res.writeHead(robots).end();
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
        }
      },
      '/page.html': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HTML);
      },
      '/windows-1252': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=windows-1252' }).end(WINDOWS_1252_BODY);
      },
      '/shift-jis': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; Charset="Shift_JIS"' }).end(SHIFT_JIS_BODY);
      },
      '/mislabelled-utf8': (_req, res) => {
        // Declares UTF-8 but sends windows-1252: passed through untouched, the extractor decides.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(WINDOWS_1252_BODY);
      },
      '/untyped-html': (_req, res) => {
        res.writeHead(200).end(`\uFEFF  ${HTML}`);
      },
      '/untyped-binary': (_req, res) => {
        res.writeHead(200).end(PNG_BODY);
      },
      '/markdown': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' }).end('# Title\n\nText.\n');
      },
      '/pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF_BODY);
      },
      '/octet-pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PDF_BODY);
      },
      '/octet-binary': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PNG_BODY);
      },
      '/image': (_req, res) => {
        // A large binary: refused from its header, so the body is never downloaded.
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) });
        res.write(PNG_BODY);
      },
      '/huge-declared': (_req, res) => {
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(50 * 1024 * 1024) });
        res.write('<html><body>');
      },
      '/huge-endless': (_req, res) => {
        // Chunked HTML that never ends: only the size cap stops it.
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
      '/gzip-bomb': (_req, res) => {
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(getGzipBomb());
      },
      '/gzip-bomb-endless': (_req, res) => {
        // Compresses zeros for as long as the client reads: an unbounded bomb.
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        const gzip = zlib.createGzip({ level: 9 });
        gzip.pipe(res);
        const zeros = Buffer.alloc(1024 * 1024);
        const pump = (): void => {
          while (!res.destroyed && gzip.write(zeros));
          if (!res.destroyed) gzip.once('drain', pump);
        };
        res.once('close', () => gzip.destroy());
        pump();
      },
      '/gzip': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(zlib.gzipSync(HTML));
      },
      '/deflate': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' })
          .end(zlib.deflateSync(HTML));
      },
      '/br': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' })
          .end(zlib.brotliCompressSync(HTML));
      },
      '/zstd': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'zstd' })
          .end(zlib.zstdCompressSync(HTML));
      },
      '/gzip-then-br': (_req, res) => {
        // Listed in the order applied: gzip first, then br.
        const body = zlib.brotliCompressSync(zlib.gzipSync(HTML));
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip, br' }).end(body);
      },
      '/triple-gzip': (_req, res) => {
        const body = zlib.gzipSync(zlib.gzipSync(zlib.gzipSync(HTML)));
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip, gzip, gzip' }).end(body);
      },
      '/unknown-encoding': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'compress' }).end('x');
      },
      '/corrupt-gzip': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end('not gzip at all');
      },
      '/slow-drip': (_req, res) => {
        trackAbandon(res);
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => {
          if (res.destroyed) {
            clearInterval(timer);
            timers.delete(timer);
          } else {
            res.write('a');
          }
        }, 50);
        timers.add(timer);
      },
      '/slow-headers': (req, res) => {
        // Slowloris in reverse: a status line, then one header line every 50 ms, never the blank line.
        trackAbandon(res);
        const socket = req.socket;
        socket.write('HTTP/1.1 200 OK\r\n');
        let n = 0;
        const timer = setInterval(() => {
          if (socket.destroyed) {
            clearInterval(timer);
            timers.delete(timer);
          } else {
            socket.write(`x-drip-${n++}: a\r\n`);
          }
        }, 50);
        timers.add(timer);
      },
      '/robots-redirect': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      },
      '/never': (_req, res) => {
        // Accepts the request and never answers.
        trackAbandon(res);
      },
      '/loop': (_req, res) => {
        res.writeHead(302, { location: '/loop' }).end();
      },
      '/chain': (_req, res, query) => {
        const left = Number(query.get('n') ?? '0');
        if (left > 0) res.writeHead(301, { location: `/chain?n=${left - 1}` }).end();
        else res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
      },
      '/to': (_req, res, query) => {
        res.writeHead(Number(query.get('status') ?? '302'), { location: query.get('target') ?? '/' }).end();
      },
      '/no-location': (_req, res) => {
        res.writeHead(302).end();
      },
      '/status': (_req, res, query) => {
        res.writeHead(Number(query.get('code') ?? '500'), { 'content-type': 'text/html' }).end(HTML);
      },
      '/private/page.html': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
      },
      '/public/page.html': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
      },
      '/counted': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
      },
      '/no-store': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'private, no-store' }).end(HTML);
      },
      '/slow-counted': (_req, res) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
        }, 100);
        timers.add(timer);
      },
    };

  const server = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture.invalid');
    hitCounts.set(url.pathname, (hitCounts.get(url.pathname) ?? 0) + 1);
    if (url.pathname.startsWith('/hold/')) {
      if (released) {
        res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
        return;
      }
      parked.push(res);
      maxHeld = Math.max(maxHeld, parked.length);
      heldWaiters = heldWaiters.filter((waiter) => {
        if (parked.length < waiter.count) return true;
        waiter.resolve();
        return false;
      });
      return;
    }
    const route = routes[url.pathname];
    if (route) route(req, res, url.searchParams);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });

  return {
    server,
    port: server.port,
    origin: `http://${FIXTURE_HOST}:${server.port}`,
    url: (path) => new URL(path, `http://${FIXTURE_HOST}:${server.port}`),
    hits: (path) => hitCounts.get(path) ?? 0,
    get abandonedResponses() {
      return abandoned;
    },
    get held() {
      return parked.length;
    },
    get maxHeld() {
      return maxHeld;
    },
    releaseHeld() {
      released = true;
      for (const res of parked.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
    },
    whenHeld(count) {
      if (parked.length >= count) return Promise.resolve();
      return new Promise((resolve) => heldWaiters.push({ count, resolve }));
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      await server.close();
    },
  };
}

/** A resolver from a fixed table; unknown names fail like NXDOMAIN. Records every call. */
export interface FakeResolver extends HostResolver {
  readonly calls: readonly string[];
}

/**
 * Answers from a table; an entry may be a function of the call number (1-based) to model DNS that
 * changes between lookups (rebinding).
 */
export function fakeResolver(
  table: Readonly<Record<string, readonly string[] | ((call: number) => readonly string[])>>,
): FakeResolver {
  const calls: string[] = [];
  const perHost = new Map<string, number>();
  const resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const call = (perHost.get(hostname) ?? 0) + 1;
    perHost.set(hostname, call);
    const addresses = typeof entry === 'function' ? entry(call) : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}
