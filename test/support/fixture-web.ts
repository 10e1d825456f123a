/**
 * A small web on loopback for tests that fetch pages through the engine: robots.txt allows everything,
 * each page is served as HTML at its path, anything else goes to `fallback` (by default 404).
 */
import { createServer, type RequestListener } from 'node:http';
import { listenOnLoopback, type ListeningServer } from './loopback-server.ts';

/** Serves `pages` (path → HTML) on 127.0.0.1 with an empty robots.txt; other paths go to `fallback`. */
export function startFixtureWeb(
  pages: Readonly<Record<string, string>>,
  fallback: RequestListener = (_req, res) => res.writeHead(404).end(),
): Promise<ListeningServer> {
  return listenOnLoopback(
    createServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('');
      const page = Object.hasOwn(pages, req.url ?? '') ? pages[req.url ?? ''] : undefined;
      if (page !== undefined) return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      fallback(req, res);
    }),
  );
}
