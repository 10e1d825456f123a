/**
 * Real processes for the research job tests: `citewise serve` and `citewise worker` started as children
 * (killed with SIGKILL when a test says so), and a SearXNG-compatible search server with pages on loopback
 * whose answers a test can hold (so that a job is surely running when its process is killed).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';

const CLI = fileURLToPath(new URL('../../bin/citewise.js', import.meta.url));
const START_TIMEOUT_MS = 90_000;

/** A running `citewise serve` or `citewise worker`. */
export interface Child {
  /** `http://127.0.0.1:port` for `serve`; '' for a worker. */
  readonly baseUrl: string;
  readonly process: ChildProcessWithoutNullStreams;
  output(): string;
  /** SIGKILL: no shutdown, no cleanup (as a crash or `kill -9`). */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
}

function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts `citewise <command> …args` and waits until it says it is ready. */
export async function startChild(command: 'serve' | 'worker', args: readonly string[]): Promise<Child> {
  const child = spawn(
    process.execPath,
    [CLI, command, ...(command === 'serve' ? ['--port', '0'] : []), '--log-level', 'info', ...args],
    // Out of the checkout: a process given no --data-dir must not leave a .citewise in it (a later
    // `npm start` there would find a database and make no first key).
    { env: { ...process.env, CITEWISE_STORE: '', CITEWISE_LIMITS_STORE: '' }, cwd: tmpdir() },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Both log JSON lines on stdout: serve's "ready" line holds its URL.
  const ready = command === 'serve' ? /"url":"(http:\/\/[^"]+)".*"msg":"ready"/ : /"msg":"worker ready"/;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not start within ${START_TIMEOUT_MS / 1000} s: ${output}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(match[1] ?? '');
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${output}`));
    });
  });
  return {
    baseUrl,
    process: child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      const done = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}

/** A search server answering like SearXNG (`/search?format=json`), with the pages it lists. */
export interface SearchServer extends LoopbackServer {
  /** Holds every search from now on until {@link SearchServer.release}; resolves when one arrived. */
  hold(): Promise<void>;
  /** Answers the held searches and stops holding. */
  release(): void;
  /** Searches answered or held so far. */
  readonly searches: number;
}

export async function startSearchServer(): Promise<SearchServer> {
  let holding = false;
  let held: (() => void)[] = [];
  let arrived: (() => void) | undefined;
  let searches = 0;
  let base = '';
  const server = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/search') {
      searches++;
      const query = url.searchParams.get('q') ?? '';
      const answer = () => {
        if (res.destroyed) return;
        const results = [1, 2].map((n) => ({
          url: `${base}/page/${n}?q=${encodeURIComponent(query)}`,
          title: `About ${query} (${n})`,
          content: `${query}: the answer is written on page ${n}.`,
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      };
      if (holding) {
        held.push(answer);
        arrived?.();
      } else answer();
      return;
    }
    if (url.pathname.startsWith('/page/')) {
      const query = url.searchParams.get('q') ?? 'this question';
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>About ${query}</title></head><body><main><h1>About ${query}</h1>` +
            `<p>${query} is answered here: the river rises in the mountains and flows to the sea.</p>` +
            `<p>Every page of this test web says the same about ${query}, in a few plain sentences.</p></main></body></html>`,
        );
      return;
    }
    res.writeHead(404).end();
  });
  base = server.origin;
  return Object.assign(server, {
    hold() {
      holding = true;
      return new Promise<void>((resolve) => (arrived = resolve));
    },
    release() {
      holding = false;
      arrived = undefined;
      for (const answer of held.splice(0)) answer();
      held = [];
    },
    get searches() {
      return searches;
    },
  });
}

/** The flags that point a child at the search server (its pages allowed past the SSRF guard). */
export function searchFlags(search: SearchServer): string[] {
  const host = new URL(search.origin).host;
  return ['--search', 'searxng', '--searxng-url', search.origin, '--allow-private-hosts', host];
}
