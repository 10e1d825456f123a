/**
 * SSRF, as an attacker would try it: every vector points at an internal server on loopback that counts
 * TCP connections, and goes both through the real fetcher and through the real engine pipeline (a search
 * provider returning the URL). Figure: vectors tried / connections reaching the internal servers (0).
 *
 * test/fetch/ssrf.test.ts covers the guard's units (classification, connector, relaxations); this file is
 * the end-to-end count over the whole attack list.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher, isFetchError, type PageFetcherInstance } from '../../src/pipeline/fetch/index.ts';
import { FIXTURE_HOST, fakeResolver, startFixtureWeb, type FixtureWeb } from '../fetch/fixture-web.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { recordFigure } from './figures.ts';
import { fakeSearchProvider } from '../../src/testing/index.ts';
import { engineWithKey } from './helpers.ts';

let web: FixtureWeb;
let internal4: LoopbackServer;
let internal6: LoopbackServer;
let fetcher: PageFetcherInstance;
const PUBLIC = '93.184.215.14';

/** Connections the internal servers accepted: the number this file exists to keep at 0. */
const reached = () => internal4.connections + internal6.connections;

beforeAll(async () => {
  const secret = (_req: unknown, res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>internal secret token 7f3a</p>');
  [web, internal4, internal6] = await Promise.all([
    startFixtureWeb(),
    startLoopbackServer(secret, '127.0.0.1'),
    startLoopbackServer(secret, '::1'),
  ]);
});
afterAll(async () => {
  await fetcher?.close();
  await Promise.all([web.close(), internal4.close(), internal6.close()]);
});

/** The resolver every vector shares: the fixture web is the one name allowed to be private. */
function resolver() {
  return fakeResolver({
    [FIXTURE_HOST]: ['127.0.0.1'],
    'internal.test': ['127.0.0.1'],
    'localtest.test': ['127.0.0.1'],
    'mixed.test': [PUBLIC, '127.0.0.1'],
    'mixed-first.test': ['127.0.0.1', PUBLIC],
    'mixed6.test': ['2606:4700::1', '::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'nat64.test': ['64:ff9b::7f00:1'],
    'metadata.google.internal': ['169.254.169.254'],
    'rebind.test': (n) => (n === 1 ? [PUBLIC] : ['127.0.0.1']),
    'rebind-mixed.test': (n) => (n === 1 ? [PUBLIC] : [PUBLIC, '127.0.0.1']),
    'rebind6.test': (n) => (n === 1 ? ['2606:4700::1'] : ['::1']),
  });
}

/** All vectors; built after the servers started so that they carry the internal ports. */
function vectors(): [name: string, url: string][] {
  const p = internal4.port;
  const p6 = internal6.port;
  const to = (target: string, status = 302) =>
    `${web.origin}/to?status=${status}&target=${encodeURIComponent(target)}`;
  return [
    ['IPv4 literal', `http://127.0.0.1:${p}/`],
    ['decimal IPv4', `http://2130706433:${p}/`],
    ['hex IPv4', `http://0x7f000001:${p}/`],
    ['octal IPv4', `http://0177.0.0.1:${p}/`],
    ['octal whole IPv4', `http://017700000001:${p}/`],
    ['mixed hex dotted', `http://0x7f.0.0.1:${p}/`],
    ['short form 127.1', `http://127.1:${p}/`],
    ['zero-padded', `http://127.000.000.001:${p}/`],
    ['percent-encoded', `http://%31%32%37.0.0.1:${p}/`],
    ['trailing dot', `http://127.0.0.1.:${p}/`],
    ['fullwidth digits', `http://①②⑦.0.0.1:${p}/`],
    ['0', `http://0:${p}/`],
    ['0.0.0.0', `http://0.0.0.0:${p}/`],
    ['IPv4-mapped IPv6', `http://[::ffff:127.0.0.1]:${p}/`],
    ['IPv4-mapped IPv6 hex', `http://[::ffff:7f00:1]:${p}/`],
    ['IPv4-compatible IPv6', `http://[::127.0.0.1]:${p}/`],
    ['[::]', `http://[::]:${p6}/`],
    ['[::1]', `http://[::1]:${p6}/`],
    ['[::1] long form', `http://[0:0:0:0:0:0:0:1]:${p6}/`],
    ['localhost', `http://localhost:${p}/`],
    ['LOCALHOST', `http://LOCALHOST:${p}/`],
    ['localhost.', `http://localhost.:${p}/`],
    ['sub.localhost', `http://foo.localhost:${p}/`],
    ['name resolving to loopback', `http://localtest.test:${p}/`],
    ['public + private answers', `http://mixed.test:${p}/`],
    ['private + public answers', `http://mixed-first.test:${p}/`],
    ['public + private IPv6 answers', `http://mixed6.test:${p6}/`],
    ['answer is IPv4-mapped loopback', `http://mapped.test:${p}/`],
    ['answer is NAT64 loopback', `http://nat64.test:${p}/`],
    ['DNS rebinding → 127.0.0.1', `http://rebind.test:${p}/`],
    ['DNS rebinding → public + private', `http://rebind-mixed.test:${p}/`],
    ['DNS rebinding → ::1', `http://rebind6.test:${p6}/`],
    ['302 → 127.0.0.1', to(`http://127.0.0.1:${p}/`)],
    ['301 → [::1]', to(`http://[::1]:${p6}/`, 301)],
    ['307 → localhost', to(`http://localhost:${p}/`, 307)],
    ['308 → decimal IP', to(`http://2130706433:${p}/`, 308)],
    ['303 → name resolving to loopback', to(`http://internal.test:${p}/`, 303)],
    ['302 → DNS rebinding name', to(`http://rebind.test:${p}/`)],
    ['chain of 2 → 127.0.0.1', to(to(`http://127.0.0.1:${p}/`))],
    ['chain of 3 → hex IP', to(to(to(`http://0x7f000001:${p}/`), 301), 307)],
    ['redirect → cloud metadata', to('http://169.254.169.254/latest/meta-data/')],
    ['redirect → file:', to('file:///etc/passwd')],
    ['redirect → credentials@internal', to(`http://user:pw@127.0.0.1:${p}/`)],
    ['AWS/GCP/Azure metadata IP', 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
    ['GCP metadata name', 'http://metadata.google.internal/computeMetadata/v1/'],
    ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest/meta-data/'],
    ['Alibaba metadata', 'http://100.100.100.200/latest/meta-data/'],
    ['metadata as mapped IPv6', 'http://[::ffff:a9fe:a9fe]/latest/meta-data/'],
    ['metadata as decimal', 'http://2852039166/latest/meta-data/'],
    ['RFC 1918 10/8', `http://10.0.0.1:${p}/`],
    ['RFC 1918 192.168/16', `http://192.168.1.1:${p}/`],
    ['IPv6 unique local', `http://[fc00::1]:${p6}/`],
    ['IPv6 link local', `http://[fe80::1]:${p6}/`],
    ['file:', 'file:///etc/passwd'],
    ['ftp:', `ftp://127.0.0.1:${p}/`],
    ['gopher:', `gopher://127.0.0.1:${p}/_GET%20/`],
    ['ws:', `ws://127.0.0.1:${p}/`],
    ['data:', 'data:text/html,<p>x</p>'],
    ['javascript:', 'javascript:alert(1)'],
    ['credentials to internal', `http://user:pass@127.0.0.1:${p}/`],
    ['allowed name as userinfo', `http://${FIXTURE_HOST}@127.0.0.1:${p}/`],
    ['credentials to an allowed host', `http://user:pass@${FIXTURE_HOST}:${web.port}/page.html`],
  ];
}

const stats = { tried: 0, engineSearches: 0, engineAnswered: 0 };

it('control: with the guard relaxed for loopback, the same counter does see the connection', async () => {
  const control = await startLoopbackServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>control</p>'),
  );
  const relaxed = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'], robots: false, cache: false });
  try {
    const page = await relaxed.fetch(new URL(`http://2130706433:${control.port}/`), {
      signal: new AbortController().signal,
      requestId: 'control',
      deadline: Date.now() + 10_000,
    });
    expect(Buffer.from(page.body).toString()).toContain('control');
    expect(control.connections).toBe(1);
  } finally {
    await relaxed.close();
    await control.close();
  }
});

describe('SSRF vectors reach no internal server', () => {
  it('through the real fetcher: each fails with a typed refusal and opens no connection', async () => {
    fetcher = createPageFetcher({ resolver: resolver(), allowPrivateHosts: [FIXTURE_HOST], cache: false });
    const list = vectors();
    expect(list.length).toBeGreaterThanOrEqual(40);
    for (const [name, url] of list) {
      stats.tried++;
      const before = reached();
      const outcome = await fetcher
        .fetch(new URL(url), {
          signal: new AbortController().signal,
          requestId: name,
          deadline: Date.now() + 10_000,
        })
        .then(
          () => 'fetched',
          (error: unknown) => (isFetchError(error) ? error.code : String(error)),
        );
      expect.soft(outcome, name).toMatch(/^(blocked_address|bad_url)$/);
      expect.soft(reached() - before, `${name}: connections`).toBe(0);
    }
    // The fixture (the one allowed host) proves the fetcher works at all: the redirects came from it.
    expect(web.hits('/to')).toBeGreaterThan(0);
  });

  it('through the engine pipeline: no connection, and the answer still comes (from the snippet)', async () => {
    const list = vectors();
    let current = list[0]!;
    const provider = fakeSearchProvider(() => [
      { url: current[1], title: current[0], snippet: `Snippet about ${current[0]} for the answer.` },
    ]);
    const pipelineFetcher = createPageFetcher({ resolver: resolver(), allowPrivateHosts: [FIXTURE_HOST] });
    const { engine, key } = await engineWithKey({
      search: provider,
      fetcher: pipelineFetcher,
      extractor: createContentExtractor({ workers: 1 }),
    });
    try {
      for (const vector of list) {
        current = vector;
        stats.tried++;
        stats.engineSearches++;
        const before = reached();
        const response = await engine.search({ prompt: `Snippet about ${vector[0]}` }, { apiKey: key });
        if (response.answer.length > 0) stats.engineAnswered++;
        expect.soft(response.answer, vector[0]).toContain('Snippet');
        expect.soft(reached() - before, `${vector[0]}: connections`).toBe(0);
      }
    } finally {
      await engine.close();
    }
  });
});

afterAll(() => {
  recordFigure('ssrf', {
    area: 'SSRF',
    values: {
      vectors: vectors().length,
      'attempts (fetcher + engine)': stats.tried,
      'engine answers returned': `${stats.engineAnswered}/${stats.engineSearches}`,
      'connections reaching internal servers': reached(),
    },
    mustBeZero: ['connections reaching internal servers'],
  });
});
