/**
 * Per-host politeness of the page fetcher over real HTTP: the concurrency cap and the request rate, a fair
 * share of a host's queue between searches, fetches nobody waits for any more aborted or never sent, one
 * request for a URL asked by several searches at once, and HTTP/2 where the site offers it.
 */
import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { FIXTURE_HOST } from './fixture-web.ts';
import { closeFetchers, expectFetchError, makeFetcher } from './helpers.ts';

afterEach(closeFetchers);

/** A one-host web: `/hang/*` never answers, `/slow/<ms>/*` answers after that long, anything else at once. */
async function startSite(): Promise<LoopbackServer & { readonly url: (path: string) => URL }> {
  const server = await startLoopbackServer((req, res) => {
    const path = req.url ?? '/';
    const send = () =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>${path}</p></body></html>`);
    if (path.startsWith('/hang/')) return;
    const slow = /^\/slow\/(\d+)\//.exec(path);
    if (slow) setTimeout(send, Number(slow[1]));
    else send();
  });
  return Object.assign(server, {
    url: (path: string) => new URL(`http://${FIXTURE_HOST}:${server.port}${path}`),
  });
}

/** Call options of one search: its request id, its own signal, and the page's position among its results. */
function searchCall(requestId: string, signal: AbortSignal, priority = 0) {
  return { signal, requestId, priority, deadline: Date.now() + 20_000 };
}

describe('per-host politeness', () => {
  it('a hung page on a shared host does not hold the other searches, and is aborted once its search answered', async () => {
    const site = await startSite();
    try {
      // Two slots on the host. Search A reads six results of it: its first never answers and holds a slot.
      const fetcher = makeFetcher({ perHostConcurrency: 2 });
      const searchA = new AbortController();
      const hungA = fetcher
        .fetch(site.url('/hang/a0'), searchCall('A', searchA.signal, 0))
        .catch((error: unknown) => error);
      const pagesA = [1, 2, 3, 4, 5].map((i) =>
        fetcher.fetch(site.url(`/slow/100/a${i}`), searchCall('A', searchA.signal, i)).catch(() => undefined),
      );
      await waitFor(() => site.requests.length === 2);
      // Search B's first result, on the same host, takes the next free slot: not after A's other pages.
      const pageB = fetcher.fetch(site.url('/page/b'), searchCall('B', new AbortController().signal));
      await expect(pageB).resolves.toMatchObject({ status: 200 });
      expect(site.requests.slice(0, 3)).toEqual(['/hang/a0', '/slow/100/a1', '/page/b']);
      // Search A answers from what it has: nobody waits for its hung page any more, so it is aborted (its
      // slot is free again) and A's pages still queued are never sent.
      searchA.abort(new Error('answer started'));
      expect(await hungA).toMatchObject({ name: 'FetchError', code: 'aborted' });
      await Promise.all(pagesA);
      const afterAbort = site.requests.length;
      const pageC = await fetcher.fetch(site.url('/page/c'), searchCall('C', new AbortController().signal));
      expect(pageC.status).toBe(200);
      expect(site.requests.length).toBe(afterAbort + 1);
      expect(site.requests.filter((path) => path.startsWith('/slow/100/a')).length).toBeLessThan(5);
    } finally {
      await site.close();
    }
  });

  it('serves a host fairly: another search’s first page goes before a search’s later pages', async () => {
    const site = await startSite();
    try {
      const fetcher = makeFetcher({ perHostConcurrency: 1 });
      const signal = new AbortController().signal;
      // Search A asks for 6 results of one host at once; B asks for its first result just after.
      const pagesA = [0, 1, 2, 3, 4, 5].map((i) =>
        fetcher.fetch(site.url(`/slow/30/a${i}`), searchCall('A', signal, i)),
      );
      await waitFor(() => site.requests.length === 1);
      const pageB = fetcher.fetch(site.url('/slow/30/b0'), searchCall('B', signal, 0));
      await Promise.all([...pagesA, pageB]);
      // A's first page was running; B's first page is next, before A's second.
      expect(site.requests.slice(0, 3)).toEqual(['/slow/30/a0', '/slow/30/b0', '/slow/30/a1']);
    } finally {
      await site.close();
    }
  });

  it('a waiting request whose searches all gave up leaves the queue without being sent', async () => {
    const site = await startSite();
    try {
      const fetcher = makeFetcher({ perHostConcurrency: 1 });
      const searchA = new AbortController();
      const first = fetcher.fetch(site.url('/slow/200/first'), searchCall('A', new AbortController().signal));
      const queued = fetcher.fetch(site.url('/page/queued'), searchCall('A', searchA.signal, 1));
      await waitFor(() => site.requests.length === 1);
      searchA.abort(new Error('answered'));
      await expectFetchError(queued, 'aborted');
      await first;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(site.requests).toEqual(['/slow/200/first']);
    } finally {
      await site.close();
    }
  });

  it('a URL asked by several searches at the same moment is fetched once; one search leaving does not stop it for the others', async () => {
    const site = await startSite();
    try {
      const fetcher = makeFetcher();
      const leaving = new AbortController();
      const pages = ['A', 'B', 'C'].map((id) =>
        fetcher.fetch(
          site.url('/slow/100/shared'),
          searchCall(id, id === 'A' ? leaving.signal : new AbortController().signal),
        ),
      );
      leaving.abort(new Error('answered'));
      await expectFetchError(pages[0]!, 'aborted');
      const [b, c] = await Promise.all(pages.slice(1));
      expect(b).toBe(c);
      expect(site.requests.filter((path) => path === '/slow/100/shared')).toHaveLength(1);
    } finally {
      await site.close();
    }
  });

  it('starts at most `perHostBurst` requests at once, then `perHostRate` per second', async () => {
    const site = await startSite();
    try {
      const fetcher = makeFetcher({ perHostConcurrency: 10, perHostRate: 10, perHostBurst: 2 });
      const signal = new AbortController().signal;
      const started = Date.now();
      const times: number[] = [];
      await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (i) => {
          await fetcher.fetch(site.url(`/page/${i}`), searchCall('A', signal, i));
          times.push(Date.now() - started);
        }),
      );
      times.sort((a, b) => a - b);
      // Two at once, then one token every 100 ms: the sixth cannot start before 400 ms.
      expect(times[5]).toBeGreaterThanOrEqual(390);
      expect(site.requests).toHaveLength(6);
    } finally {
      await site.close();
    }
  });

  it('validates the per-host options', () => {
    expect(() => createPageFetcher({ perHostRate: 0 })).toThrow(RangeError);
    expect(() => createPageFetcher({ perHostBurst: 0.5 })).toThrow(RangeError);
    expect(() => createPageFetcher({ perHostConcurrency: 0 })).toThrow(RangeError);
    expect(() => createPageFetcher({ allowH2: 'yes' as unknown as boolean })).toThrow(TypeError);
    expect(() => createPageFetcher({ extraCaCertificates: ['not a certificate'] })).toThrow(TypeError);
  });
});

describe('HTTP/2', () => {
  const tls = {
    key: readFileSync(new URL('../fixtures/tls/fixture-key.pem', import.meta.url), 'utf8'),
    cert: readFileSync(new URL('../fixtures/tls/fixture-cert.pem', import.meta.url), 'utf8'),
  };

  async function startH2Site(): Promise<{ server: Http2SecureServer; port: number; versions: string[] }> {
    const versions: string[] = [];
    const server = createSecureServer({ ...tls, allowHTTP1: true }, (req, res) => {
      versions.push(req.httpVersion);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><p>over h2</p></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port, versions };
  }

  const h2Fetcher = (allowH2?: boolean) =>
    makeFetcher({
      extraCaCertificates: [tls.cert],
      ...(allowH2 === undefined ? {} : { allowH2 }),
    });

  it('speaks HTTP/2 to a site that offers it, several pages over one connection', async () => {
    const site = await startH2Site();
    let connections = 0;
    site.server.on('secureConnection', () => connections++);
    try {
      const fetcher = h2Fetcher();
      const signal = new AbortController().signal;
      const pages = await Promise.all(
        [1, 2, 3].map((i) =>
          fetcher.fetch(new URL(`https://${FIXTURE_HOST}:${site.port}/p${i}`), searchCall('A', signal, i)),
        ),
      );
      expect(new TextDecoder().decode(pages[0]!.body)).toContain('over h2');
      expect(site.versions).toEqual(['2.0', '2.0', '2.0']);
      expect(connections).toBe(1);
    } finally {
      site.server.close();
    }
  });

  it('stays on HTTP/1.1 with allowH2: false', async () => {
    const site = await startH2Site();
    try {
      await h2Fetcher(false).fetch(
        new URL(`https://${FIXTURE_HOST}:${site.port}/p`),
        searchCall('A', new AbortController().signal),
      );
      expect(site.versions).toEqual(['1.1']);
    } finally {
      site.server.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
