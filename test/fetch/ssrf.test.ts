/**
 * SSRF guard: every vector must fail with a typed error and never open a connection to the internal
 * servers listening on 127.0.0.1, 127.0.0.2 and ::1.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createAddressPolicy,
  createGuardedConnector,
  createGuardedLookup,
  parseHostEntry,
} from '../../src/pipeline/fetch/address-guard.ts';
import { classifyAddress, isPublicAddress, toFetchableUrl } from '../../src/pipeline/fetch/index.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.ts';
import { FIXTURE_HOST, fakeResolver, startFixtureWeb, type FixtureWeb } from './fixture-web.ts';
import { call, closeFetchers, expectFetchError, makeFetcher } from './helpers.ts';

let web: FixtureWeb;
let internal: LoopbackServer;
let internal2: LoopbackServer;
let internal6: LoopbackServer;

beforeAll(async () => {
  const answer = (_req: unknown, res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>internal secret</p>');
  [web, internal, internal2, internal6] = await Promise.all([
    startFixtureWeb(),
    startLoopbackServer(answer, '127.0.0.1'),
    startLoopbackServer(answer, '127.0.0.2'),
    startLoopbackServer(answer, '::1'),
  ]);
});
afterAll(async () => {
  await Promise.all([web.close(), internal.close(), internal2.close(), internal6.close()]);
});
afterEach(async () => {
  await closeFetchers();
  // The point of every test here: nothing reached an internal server.
  expect(internal.connections + internal2.connections + internal6.connections).toBe(0);
});

/** The same resolver for every vector: the fixture is allowed by name, everything else is checked. */
const resolverTable = () => ({
  [FIXTURE_HOST]: ['127.0.0.1'],
  'internal.test': ['127.0.0.1'],
  'private.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'loopback6.test': ['::1'],
  'mixed.test': ['93.184.215.14', '127.0.0.1'],
  'mixed6.test': ['2606:4700::1', '::1'],
  'cgnat.test': ['100.64.1.1'],
});
const guarded = () => makeFetcher({ resolver: fakeResolver(resolverTable()) });

describe('address classification', () => {
  it.each([
    ['8.8.8.8', 'unicast'],
    ['93.184.215.14', 'unicast'],
    ['2606:4700::1111', 'unicast'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:8.8.8.8', 'unicast'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'loopback'],
    ['4000::1', 'unassigned'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (address, range) => {
    expect(classifyAddress(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(range === 'unicast');
  });

  it('relies on WHATWG URL parsing to normalize IPv4 spellings', () => {
    for (const host of [
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '0x7f.0.0.1',
      '127.1',
      '127.0.1',
      '%31%32%37.0.0.1',
      '127.0.0.1.',
      '①②⑦.0.0.1',
    ]) {
      expect(toFetchableUrl(`http://${host}/`).hostname, host).toBe('127.0.0.1');
    }
    expect(toFetchableUrl('http://0/').hostname).toBe('0.0.0.0');
    expect(toFetchableUrl('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });
});

describe('literal and encoded addresses are blocked before any connection', () => {
  const literal = () => [
    `http://127.0.0.1:${internal.port}/`,
    `http://2130706433:${internal.port}/`,
    `http://0x7f000001:${internal.port}/`,
    `http://0177.0.0.1:${internal.port}/`,
    `http://0x7f.0.0.1:${internal.port}/`,
    `http://127.1:${internal.port}/`,
    `http://%31%32%37.0.0.1:${internal.port}/`,
    `http://127.0.0.1.:${internal.port}/`,
    `http://①②⑦.0.0.1:${internal.port}/`,
    `http://0:${internal.port}/`,
    `http://0.0.0.0:${internal.port}/`,
    `http://[::ffff:127.0.0.1]:${internal.port}/`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${internal.port}/`,
    `http://[::127.0.0.1]:${internal.port}/`,
    `http://[::]:${internal6.port}/`,
    `http://[::1]:${internal6.port}/`,
    `http://[0:0:0:0:0:0:0:1]:${internal6.port}/`,
    `http://127.0.0.2:${internal2.port}/`,
    `https://127.0.0.1:${internal.port}/`,
    `http://${FIXTURE_HOST.toUpperCase()}.evil:${internal.port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[ff02::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
  ];

  it('every literal vector fails with blocked_address (or network_error for unknown names)', async () => {
    const fetcher = guarded();
    for (const url of literal()) {
      const error = await fetcher.fetch(new URL(url), call()).catch((e: unknown) => e);
      // `FIXTURE.TEST.evil` is not in the resolver: it fails to resolve, which is also not a connection.
      const expected = url.includes('.evil') ? 'network_error' : 'blocked_address';
      expect(error, url).toMatchObject({ name: 'FetchError', code: expected });
    }
  });

  it('blocks localhost names without asking DNS', async () => {
    const resolver = fakeResolver({});
    const fetcher = makeFetcher({ resolver });
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost']) {
      await expectFetchError(
        fetcher.fetch(new URL(`http://${host}:${internal.port}/`), call()),
        'blocked_address',
      );
    }
    expect(resolver.calls).toEqual([]);
  });

  it('allows the fixture by name only, not its address', async () => {
    const before = web.server.connections;
    await expectFetchError(
      guarded().fetch(new URL(`http://127.0.0.1:${web.port}/page.html`), call()),
      'blocked_address',
    );
    expect(web.server.connections).toBe(before);
  });
});

describe('non-http schemes and credentials', () => {
  it.each([
    'file:///etc/passwd',
    'ftp://example.org/',
    'gopher://127.0.0.1:70/',
    'data:text/html,<p>hi</p>',
    'javascript:alert(1)',
    'ws://example.org/',
    'http://user:secret@fixture.test/',
    'http://user@fixture.test/',
    'http://:secret@fixture.test/',
    '/relative/path',
  ])('%s is a bad_url', async (url) => {
    await expectFetchError(
      guarded().fetch(url.startsWith('/') ? (url as unknown as URL) : new URL(url), call()),
      'bad_url',
    );
  });
});

describe('resolved addresses', () => {
  it.each([
    'internal.test',
    'private.test',
    'metadata.test',
    'mapped.test',
    'loopback6.test',
    'mixed.test',
    'mixed6.test',
    'cgnat.test',
  ])('%s is blocked when any answer is non-public', async (host) => {
    await expectFetchError(
      guarded().fetch(new URL(`http://${host}:${internal.port}/`), call()),
      'blocked_address',
    );
  });

  it('blocks DNS rebinding: public when checked, private when connecting', async () => {
    const resolver = fakeResolver({
      'rebind.test': (n) => (n === 1 ? ['93.184.215.14'] : ['127.0.0.1']),
    });
    const fetcher = makeFetcher({ resolver });
    await expectFetchError(
      fetcher.fetch(new URL(`http://rebind.test:${internal.port}/`), call()),
      'blocked_address',
    );
    // The second lookup is the connection-time one: it saw the private answer and refused to connect.
    expect(resolver.calls).toEqual(['rebind.test', 'rebind.test']);
  });

  it('blocks rebinding that hides a private answer behind a public one', async () => {
    const resolver = fakeResolver({
      'rebind2.test': (n) => (n === 1 ? ['93.184.215.14'] : ['93.184.215.14', '127.0.0.1']),
    });
    await expectFetchError(
      makeFetcher({ resolver }).fetch(new URL(`http://rebind2.test:${internal.port}/`), call()),
      'blocked_address',
    );
  });
});

describe('redirects to internal hosts', () => {
  const redirectVectors = () => [
    `http://127.0.0.1:${internal.port}/`,
    `http://127.0.0.2:${internal2.port}/`,
    `http://[::1]:${internal6.port}/`,
    `http://[::ffff:127.0.0.1]:${internal.port}/`,
    `http://2130706433:${internal.port}/`,
    `http://localhost:${internal.port}/`,
    `http://internal.test:${internal.port}/`,
    `http://mixed.test:${internal.port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.test/computeMetadata/v1/',
  ];

  it('blocks each target after a single redirect, for every redirect status', async () => {
    const fetcher = guarded();
    for (const status of [301, 302, 303, 307, 308]) {
      for (const target of redirectVectors()) {
        const url = web.url(`/to?status=${status}&target=${encodeURIComponent(target)}`);
        const error = await fetcher.fetch(url, call()).catch((e: unknown) => e);
        expect(error, `${status} → ${target}`).toMatchObject({
          code: 'blocked_address',
          url: new URL(target).href,
        });
      }
    }
  });

  it('blocks a target reached through a chain of redirects', async () => {
    const fetcher = guarded();
    const inner = `/to?target=${encodeURIComponent(`http://internal.test:${internal.port}/`)}`;
    const middle = `/to?target=${encodeURIComponent(inner)}`;
    await expectFetchError(
      fetcher.fetch(web.url(`/to?target=${encodeURIComponent(middle)}`), call()),
      'blocked_address',
    );
  });
});

describe('robots.txt through the guard', () => {
  it('a robots.txt redirecting to an internal host is treated as unreachable, and not followed', async () => {
    const site = await startFixtureWeb({
      robots: { redirect: `http://127.0.0.1:${internal.port}/robots.txt` },
    });
    try {
      const page = await makeFetcher({ robots: {} }).fetch(site.url('/page.html'), call());
      expect(page.status).toBe(200);
      expect(site.hits('/robots.txt')).toBe(1);
    } finally {
      await site.close();
    }
  });
});

describe('the connection-time guard on its own', () => {
  const connectWith = (hostname: string, port: number) => {
    const policy = createAddressPolicy({});
    const connector = createGuardedConnector({
      policy,
      resolver: fakeResolver(resolverTable()),
      connectTimeoutMs: 2000,
    });
    return new Promise<unknown>((resolve) => {
      connector(
        { hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) },
        (error, socket) => {
          socket?.destroy();
          resolve(error);
        },
      );
    });
  };

  it.each([
    ['127.0.0.1', () => internal.port],
    ['::1', () => internal6.port],
    ['::ffff:127.0.0.1', () => internal.port],
    ['internal.test', () => internal.port],
    ['mixed.test', () => internal.port],
    ['localhost', () => internal.port],
  ])('refuses to connect to %s', async (hostname, port) => {
    expect(await connectWith(hostname, port())).toMatchObject({
      name: 'FetchError',
      code: 'blocked_address',
    });
  });

  it('the guarded lookup returns only checked addresses, in the shape net asks for', async () => {
    const policy = createAddressPolicy({ allowPrivateHosts: ['fixture.test'] });
    const lookup = createGuardedLookup(policy, fakeResolver(resolverTable()));
    const all = await new Promise((resolve) =>
      lookup('fixture.test', { all: true }, (error, addresses) => resolve(error ?? addresses)),
    );
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const one = await new Promise((resolve) =>
      lookup('fixture.test', {}, (error, address, family) => resolve(error ?? [address, family])),
    );
    expect(one).toEqual(['127.0.0.1', 4]);
    const v6 = await new Promise((resolve) =>
      lookup('fixture.test', { family: 6 }, (error) => resolve(error)),
    );
    expect(v6).toMatchObject({ code: 'network_error' });
  });
});

describe('explicit relaxations', () => {
  it('allowPrivateAddresses lets any host use the listed range', async () => {
    const intranet = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('intranet');
    });
    try {
      const fetcher = makeFetcher({
        resolver: fakeResolver({ 'docs.intranet': ['127.0.0.1'] }),
        allowPrivateHosts: [],
        allowPrivateAddresses: ['127.0.0.0/8'],
      });
      const page = await fetcher.fetch(new URL(`http://docs.intranet:${intranet.port}/`), call());
      expect(Buffer.from(page.body).toString()).toBe('intranet');
      // The range does not cover 10/8.
      await expectFetchError(fetcher.fetch(new URL('http://10.0.0.1/'), call()), 'blocked_address');
    } finally {
      await intranet.close();
    }
  });

  it('allowPrivateHosts accepts IP literals in any spelling', async () => {
    const local = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }, '::1');
    try {
      const fetcher = makeFetcher({ allowPrivateHosts: ['0:0::1'] });
      const page = await fetcher.fetch(new URL(`http://[::1]:${local.port}/`), call());
      expect(Buffer.from(page.body).toString()).toBe('ok');
    } finally {
      await local.close();
    }
  });

  describe('allowPrivateHosts with host:port', () => {
    it('reads host:port, [v6]:port and bare hosts (every port)', () => {
      expect(parseHostEntry('10.0.0.5:6379')).toEqual({ host: '10.0.0.5', port: 6379 });
      expect(parseHostEntry('Intranet.Test:8080')).toEqual({ host: 'intranet.test', port: 8080 });
      expect(parseHostEntry('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
      expect(parseHostEntry('[::1]')).toEqual({ host: '::1', port: 'any' });
      expect(parseHostEntry('::1')).toEqual({ host: '::1', port: 'any' });
      expect(parseHostEntry('10.0.0.5')).toEqual({ host: '10.0.0.5', port: 'any' });
      for (const bad of ['10.0.0.5:0', '10.0.0.5:65536', '10.0.0.5:http', ':80', '[::1]:x']) {
        expect(() => createAddressPolicy({ allowPrivateHosts: [bad] }), bad).toThrow(TypeError);
      }
    });

    it('allows only that port: a redirect to another port of the same host is refused', async () => {
      const allowed = await startLoopbackServer((req, res) => {
        if (req.url === '/hop') {
          res.writeHead(302, { location: `http://127.0.0.2:${internal2.port}/` }).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('allowed service');
      }, '127.0.0.2');
      try {
        const fetcher = makeFetcher({
          resolver: fakeResolver({ 'intranet.test': ['127.0.0.2'] }),
          allowPrivateHosts: [`127.0.0.2:${allowed.port}`, `intranet.test:${allowed.port}`],
        });
        const page = await fetcher.fetch(new URL(`http://127.0.0.2:${allowed.port}/`), call());
        expect(Buffer.from(page.body).toString()).toBe('allowed service');
        const named = await fetcher.fetch(new URL(`http://intranet.test:${allowed.port}/`), call());
        expect(Buffer.from(named.body).toString()).toBe('allowed service');
        await expectFetchError(
          fetcher.fetch(new URL(`http://127.0.0.2:${allowed.port}/hop`), call()),
          'blocked_address',
        );
        await expectFetchError(
          fetcher.fetch(new URL(`http://intranet.test:${internal2.port}/`), call()),
          'blocked_address',
        );
      } finally {
        await allowed.close();
      }
    });

    it('the connector checks the port too (DNS lookups know none)', async () => {
      const policy = createAddressPolicy({ allowPrivateHosts: ['internal.test:1', '127.0.0.1:1'] });
      const connector = createGuardedConnector({
        policy,
        resolver: fakeResolver(resolverTable()),
        connectTimeoutMs: 2000,
      });
      for (const hostname of ['internal.test', '127.0.0.1']) {
        const error = await new Promise<unknown>((resolve) => {
          connector(
            {
              hostname,
              host: `${hostname}:${internal.port}`,
              protocol: 'http:',
              port: String(internal.port),
            },
            (failure, socket) => {
              socket?.destroy();
              resolve(failure);
            },
          );
        });
        expect(error).toMatchObject({ name: 'FetchError', code: 'blocked_address' });
      }
    });
  });
});
