import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPageFetcher, fetchPage, FetchError } from '../../src/pipeline/fetch/index.ts';
import {
  FIXTURE_HOST,
  HTML,
  PDF_BODY,
  SHIFT_JIS_BODY,
  WINDOWS_1252_BODY,
  fakeResolver,
  startFixtureWeb,
  type FixtureWeb,
} from './fixture-web.ts';
import { startLoopbackServer } from '../support/loopback-server.ts';
import { call, closeFetchers, expectFetchError, makeFetcher } from './helpers.ts';

let web: FixtureWeb;
beforeAll(async () => {
  web = await startFixtureWeb();
});
afterAll(async () => {
  await web.close();
});
afterEach(closeFetchers);

const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');

describe('pages and media types', () => {
  it('returns raw bytes, media type, charset and headers', async () => {
    const page = await makeFetcher().fetch(web.url('/page.html#frag'), call());
    expect(page).toMatchObject({
      url: `${web.origin}/page.html`,
      requestedUrl: `${web.origin}/page.html`,
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
    });
    expect(text(page.body)).toBe(HTML);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('passes bytes through untouched whatever the charset says', async () => {
    const fetcher = makeFetcher();
    const latin = await fetcher.fetch(web.url('/windows-1252'), call());
    expect(latin.charset).toBe('windows-1252');
    expect(Buffer.from(latin.body).equals(WINDOWS_1252_BODY)).toBe(true);

    const sjis = await fetcher.fetch(web.url('/shift-jis'), call());
    expect(sjis).toMatchObject({ contentType: 'text/plain', charset: 'shift_jis' });
    expect(Buffer.from(sjis.body).equals(SHIFT_JIS_BODY)).toBe(true);

    const wrong = await fetcher.fetch(web.url('/mislabelled-utf8'), call());
    expect(wrong.charset).toBe('utf-8');
    expect(Buffer.from(wrong.body).equals(WINDOWS_1252_BODY)).toBe(true);
  });

  it('sniffs a missing media type (HTML with BOM) and leaves charset unset', async () => {
    const page = await makeFetcher().fetch(web.url('/untyped-html'), call());
    expect(page.contentType).toBe('text/html');
    expect(page.charset).toBeUndefined();
    expect(page.body.subarray(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
  });

  it('accepts markdown and PDFs, also a PDF sent as application/octet-stream', async () => {
    const fetcher = makeFetcher();
    expect((await fetcher.fetch(web.url('/markdown'), call())).contentType).toBe('text/markdown');
    const pdf = await fetcher.fetch(web.url('/pdf'), call());
    expect(pdf.contentType).toBe('application/pdf');
    expect(Buffer.from(pdf.body).equals(PDF_BODY)).toBe(true);
    expect((await fetcher.fetch(web.url('/octet-pdf'), call())).contentType).toBe('application/pdf');
  });

  it('refuses binaries: declared, untyped, or octet-stream that is not a PDF', async () => {
    const fetcher = makeFetcher();
    await expectFetchError(fetcher.fetch(web.url('/image'), call()), 'unsupported_type');
    await expectFetchError(fetcher.fetch(web.url('/untyped-binary'), call()), 'unsupported_type');
    await expectFetchError(fetcher.fetch(web.url('/octet-binary'), call()), 'unsupported_type');
  });

  it('honours a narrower allow-list', async () => {
    const fetcher = makeFetcher({ allowedContentTypes: ['text/html'] });
    await expectFetchError(fetcher.fetch(web.url('/pdf'), call()), 'unsupported_type');
  });

  it('fails non-2xx with bad_status and the status', async () => {
    const fetcher = makeFetcher();
    const error = await fetcher.fetch(web.url('/status?code=404'), call()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'bad_status', status: 404 });
    expect(error).toBeInstanceOf(FetchError);
    await expectFetchError(fetcher.fetch(web.url('/status?code=503'), call()), 'bad_status');
    await expectFetchError(fetcher.fetch(web.url('/no-location'), call()), 'bad_status');
  });
});

describe('content-codings', () => {
  it.each(['/gzip', '/deflate', '/br', '/gzip-then-br'])('decodes %s', async (path) => {
    const page = await makeFetcher().fetch(web.url(path), call());
    expect(text(page.body)).toBe(HTML);
  });

  it.runIf(typeof zlib.zstdCompressSync === 'function')('decodes zstd', async () => {
    expect(text((await makeFetcher().fetch(web.url('/zstd'), call())).body)).toBe(HTML);
  });

  it('refuses three stacked codings, unknown codings and corrupt bodies', async () => {
    const fetcher = makeFetcher();
    await expectFetchError(fetcher.fetch(web.url('/triple-gzip'), call()), 'bad_encoding');
    await expectFetchError(fetcher.fetch(web.url('/unknown-encoding'), call()), 'bad_encoding');
    await expectFetchError(fetcher.fetch(web.url('/corrupt-gzip'), call()), 'bad_encoding');
  });
});

describe('size limits', () => {
  it('stops a gzip bomb at the decoded cap', async () => {
    const fetcher = makeFetcher({ maxBodyBytes: 1024 * 1024 });
    await expectFetchError(fetcher.fetch(web.url('/gzip-bomb'), call()), 'too_large');
  });

  it('stops an endless gzip stream and closes the connection', async () => {
    const before = web.abandonedResponses;
    const fetcher = makeFetcher({ maxBodyBytes: 2 * 1024 * 1024 });
    await expectFetchError(fetcher.fetch(web.url('/gzip-bomb-endless'), call()), 'too_large');
    await expect.poll(() => web.abandonedResponses).toBeGreaterThan(before);
  });

  it('refuses a declared Content-Length over the cap before reading, and an endless body at the cap', async () => {
    const fetcher = makeFetcher({ maxBodyBytes: 1024 * 1024 });
    await expectFetchError(fetcher.fetch(web.url('/huge-declared'), call()), 'too_large');
    const before = web.abandonedResponses;
    await expectFetchError(fetcher.fetch(web.url('/huge-endless'), call()), 'too_large');
    await expect.poll(() => web.abandonedResponses).toBeGreaterThan(before);
  });

  it('accepts a body exactly at the cap', async () => {
    const fetcher = makeFetcher({ maxBodyBytes: Buffer.byteLength(HTML) });
    expect(text((await fetcher.fetch(web.url('/page.html'), call())).body)).toBe(HTML);
    const smaller = makeFetcher({ maxBodyBytes: Buffer.byteLength(HTML) - 1 });
    await expectFetchError(smaller.fetch(web.url('/gzip'), call()), 'too_large');
  });
});

describe('time limits', () => {
  it('fails a server that never answers at the caller deadline', async () => {
    const fetcher = makeFetcher();
    await expectFetchError(fetcher.fetch(web.url('/never'), call(300)), 'timeout');
  });

  it('fails a slow-drip body at the deadline even though bytes keep coming', async () => {
    const before = web.abandonedResponses;
    const fetcher = makeFetcher({ bodyIdleTimeoutMs: 60_000 });
    await expectFetchError(fetcher.fetch(web.url('/slow-drip'), call(400)), 'timeout');
    await expect.poll(() => web.abandonedResponses).toBeGreaterThan(before);
  });

  it('fails headers that drip forever at the deadline', async () => {
    const fetcher = makeFetcher();
    await expectFetchError(fetcher.fetch(web.url('/slow-headers'), call(400)), 'timeout');
  });

  it('applies the per-page timeout when the caller deadline is later', async () => {
    const fetcher = makeFetcher({ pageTimeoutMs: 300 });
    await expectFetchError(fetcher.fetch(web.url('/never'), call(60_000)), 'timeout');
  });

  it('without a caller deadline (it is optional in CallOptions), the per-page timeout bounds the fetch', async () => {
    const fetcher = makeFetcher({ pageTimeoutMs: 300 });
    const { deadline: _, ...noDeadline } = call(60_000);
    await expectFetchError(fetcher.fetch(web.url('/never'), noDeadline), 'timeout');
    expect(text((await fetcher.fetch(web.url('/page.html'), noDeadline)).body)).toBe(HTML);
  });

  it('refuses a deadline that is not a number', async () => {
    const fetcher = makeFetcher();
    await expect(fetcher.fetch(web.url('/page.html'), { ...call(), deadline: Number.NaN })).rejects.toThrow(
      TypeError,
    );
  });

  it('applies the headers timeout', async () => {
    const fetcher = makeFetcher({ headersTimeoutMs: 200 });
    await expectFetchError(fetcher.fetch(web.url('/never'), call(60_000)), 'timeout');
  });

  it('rejects with aborted when the caller aborts, and at once when the deadline has passed', async () => {
    const fetcher = makeFetcher();
    const controller = new AbortController();
    const pending = fetcher.fetch(web.url('/never'), call(60_000, controller.signal));
    setTimeout(() => controller.abort(new Error('client went away')), 100);
    await expectFetchError(pending, 'aborted');
    await expectFetchError(
      fetcher.fetch(web.url('/page.html'), { ...call(), deadline: Date.now() - 1 }),
      'timeout',
    );
  });
});

describe('redirects', () => {
  it('follows up to maxRedirects and reports the final URL', async () => {
    const page = await makeFetcher().fetch(web.url('/chain?n=5'), call());
    expect(page.url).toBe(`${web.origin}/chain?n=0`);
    expect(page.requestedUrl).toBe(`${web.origin}/chain?n=5`);
  });

  it('fails one redirect past the limit, and on loops', async () => {
    const fetcher = makeFetcher();
    await expectFetchError(fetcher.fetch(web.url('/chain?n=6'), call()), 'too_many_redirects');
    await expectFetchError(fetcher.fetch(web.url('/loop'), call()), 'too_many_redirects');
    const strict = makeFetcher({ maxRedirects: 0 });
    await expectFetchError(strict.fetch(web.url('/chain?n=1'), call()), 'too_many_redirects');
  });

  it('refuses redirects to other schemes or with credentials', async () => {
    const fetcher = makeFetcher();
    const to = (target: string) => web.url(`/to?target=${encodeURIComponent(target)}`);
    await expectFetchError(fetcher.fetch(to('file:///etc/passwd'), call()), 'bad_url');
    await expectFetchError(fetcher.fetch(to('ftp://fixture.test/'), call()), 'bad_url');
    await expectFetchError(
      fetcher.fetch(to(`http://user:pw@${FIXTURE_HOST}:${web.port}/page.html`), call()),
      'bad_url',
    );
  });
});

describe('cache and single flight', () => {
  it('serves a repeated URL from the cache', async () => {
    const fetcher = makeFetcher({ cache: { maxBytes: 1024 * 1024, ttlMs: 60_000 } });
    const before = web.hits('/counted');
    const first = await fetcher.fetch(web.url('/counted?cache'), call());
    const second = await fetcher.fetch(web.url('/counted?cache#other-fragment'), call());
    expect(second).toBe(first);
    expect(web.hits('/counted') - before).toBe(1);
  });

  it('does not cache a page sent with Cache-Control: no-store', async () => {
    const fetcher = makeFetcher({ cache: { maxBytes: 1024 * 1024, ttlMs: 60_000 } });
    const before = web.hits('/no-store');
    await fetcher.fetch(web.url('/no-store'), call());
    await fetcher.fetch(web.url('/no-store'), call());
    expect(web.hits('/no-store') - before).toBe(2);
  });

  it('does not cache when the cache is off', async () => {
    const fetcher = makeFetcher({ cache: false });
    const before = web.hits('/counted');
    await fetcher.fetch(web.url('/counted?nocache'), call());
    await fetcher.fetch(web.url('/counted?nocache'), call());
    expect(web.hits('/counted') - before).toBe(2);
  });

  it('shares one request among concurrent fetches of one URL', async () => {
    const fetcher = makeFetcher({ cache: false });
    const before = web.hits('/slow-counted');
    const pages = await Promise.all(
      Array.from({ length: 5 }, () => fetcher.fetch(web.url('/slow-counted'), call())),
    );
    expect(new Set(pages).size).toBe(1);
    expect(web.hits('/slow-counted') - before).toBe(1);
  });

  it('keeps a shared request going for the others when one caller aborts', async () => {
    const fetcher = makeFetcher({ cache: false });
    const quitter = new AbortController();
    const leaving = fetcher.fetch(web.url('/slow-counted?shared'), call(10_000, quitter.signal));
    const staying = fetcher.fetch(web.url('/slow-counted?shared'), call());
    quitter.abort();
    await expectFetchError(leaving, 'aborted');
    expect(text((await staying).body)).toBe(HTML);
  });

  it('rejects unbounded or invalid cache options', () => {
    expect(() => createPageFetcher({ cache: { maxBytes: Infinity } })).toThrow(RangeError);
    expect(() => createPageFetcher({ cache: { maxBytes: 0 } })).toThrow(RangeError);
    expect(() => createPageFetcher({ cache: { ttlMs: Infinity } })).toThrow(RangeError);
  });
});

describe('concurrency limits', () => {
  it('keeps at most perHostConcurrency requests in flight to one host', async () => {
    const held = await startFixtureWeb();
    try {
      const fetcher = makeFetcher({ perHostConcurrency: 2, concurrency: 10 });
      const pending = Array.from({ length: 6 }, (_, i) => fetcher.fetch(held.url(`/hold/${i}`), call()));
      await held.whenHeld(2);
      // Give queued requests every chance to (wrongly) start before releasing.
      await new Promise((resolve) => setTimeout(resolve, 100));
      held.releaseHeld();
      await Promise.all(pending);
      expect(held.maxHeld).toBe(2);
      expect(held.server.requests.filter((path) => path.startsWith('/hold/'))).toHaveLength(6);
    } finally {
      await held.close();
    }
  });

  it('keeps at most `concurrency` requests in flight over all hosts', async () => {
    const held = await startFixtureWeb();
    try {
      const hosts = ['a.test', 'b.test', 'c.test'];
      const fetcher = makeFetcher({
        concurrency: 2,
        perHostConcurrency: 2,
        resolver: fakeResolver(Object.fromEntries(hosts.map((host) => [host, ['127.0.0.1']]))),
        allowPrivateHosts: hosts,
      });
      const pending = hosts.flatMap((host) =>
        [1, 2].map((i) => fetcher.fetch(new URL(`http://${host}:${held.port}/hold/${i}`), call())),
      );
      await held.whenHeld(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      held.releaseHeld();
      await Promise.all(pending);
      expect(held.maxHeld).toBe(2);
    } finally {
      await held.close();
    }
  });
});

describe('options and helpers', () => {
  it('validates options', () => {
    expect(() => createPageFetcher({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createPageFetcher({ maxBodyBytes: Infinity })).toThrow(RangeError);
    expect(() => createPageFetcher({ userAgent: 'a\r\nX-Evil: 1' })).toThrow(TypeError);
    expect(() => createPageFetcher({ allowedContentTypes: ['html'] })).toThrow(TypeError);
    expect(() => createPageFetcher({ allowPrivateAddresses: ['not-an-ip'] })).toThrow(TypeError);
    expect(() => createPageFetcher({ robots: { cacheTtlMs: Infinity } })).toThrow(RangeError);
  });

  it('sends an honest user agent and advertises the codings it decodes', async () => {
    let headers: Record<string, string | string[] | undefined> = {};
    const echo = await startLoopbackServer((req, res) => {
      headers = req.headers;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    try {
      const fetcher = makeFetcher({ allowPrivateHosts: ['127.0.0.1'], acceptLanguage: 'de' });
      await fetcher.fetch(new URL(`${echo.origin}/`), call());
      expect(headers['user-agent']).toMatch(
        /^citewise\/\d+\.\d+\.\d+ \(\+https:\/\/github\.com\/citewise\)$/,
      );
      expect(headers['accept-encoding']).toContain('gzip');
      expect(headers['accept-language']).toBe('de');
    } finally {
      await echo.close();
    }
  });

  it('fetchPage fetches one page with a throw-away fetcher', async () => {
    const page = await fetchPage(`${web.origin}/page.html`, {
      resolver: fakeResolver({ [FIXTURE_HOST]: ['127.0.0.1'] }),
      allowPrivateHosts: [FIXTURE_HOST],
      robots: false,
    });
    expect(text(page.body)).toBe(HTML);
  });

  it('fails after close', async () => {
    const fetcher = createPageFetcher({ robots: false });
    await fetcher.close();
    await expectFetchError(fetcher.fetch(web.url('/page.html'), call()), 'aborted');
  });
});
