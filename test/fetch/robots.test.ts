import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureWeb, type FixtureWeb, type FixtureWebOptions } from './fixture-web.ts';
import { call, closeFetchers, expectFetchError, makeFetcher } from './helpers.ts';

const webs: FixtureWeb[] = [];
async function web(options: FixtureWebOptions): Promise<FixtureWeb> {
  const started = await startFixtureWeb(options);
  webs.push(started);
  return started;
}
afterEach(async () => {
  await closeFetchers();
  await Promise.all(webs.splice(0).map((w) => w.close()));
});

const ROBOTS = ['User-agent: citewise', 'Disallow: /private/', '', 'User-agent: *', 'Disallow: /'].join('\n');

describe('robots.txt', () => {
  it('applies the group of our product token and fetches robots.txt once per origin', async () => {
    const site = await web({ robots: ROBOTS });
    const fetcher = makeFetcher({ robots: {} });
    await fetcher.fetch(site.url('/public/page.html'), call());
    await expectFetchError(fetcher.fetch(site.url('/private/page.html'), call()), 'robots_disallowed');
    await fetcher.fetch(site.url('/page.html'), call());
    expect(site.hits('/robots.txt')).toBe(1);
    expect(site.hits('/private/page.html')).toBe(0);
  });

  it('matches another user agent to the `*` group', async () => {
    const site = await web({ robots: ROBOTS });
    const fetcher = makeFetcher({ robots: {}, userAgent: 'otherbot/2.0 (+https://example.org/bot)' });
    await expectFetchError(fetcher.fetch(site.url('/public/page.html'), call()), 'robots_disallowed');
  });

  it('shares one robots.txt request among concurrent pages', async () => {
    const site = await web({ robots: ROBOTS });
    const fetcher = makeFetcher({ robots: {} });
    await Promise.all([1, 2, 3, 4, 5].map((i) => fetcher.fetch(site.url(`/public/page.html?${i}`), call())));
    expect(site.hits('/robots.txt')).toBe(1);
  });

  it('checks robots.txt on every redirect hop', async () => {
    const site = await web({ robots: ROBOTS });
    const fetcher = makeFetcher({ robots: {} });
    await expectFetchError(
      fetcher.fetch(site.url('/to?target=/private/page.html'), call()),
      'robots_disallowed',
    );
    expect(site.hits('/private/page.html')).toBe(0);
  });

  it('allows everything when robots.txt is missing (4xx)', async () => {
    for (const status of [404, 401, 403, 410]) {
      const site = await web({ robots: status });
      const page = await makeFetcher({ robots: {} }).fetch(site.url('/private/page.html'), call());
      expect(page.status).toBe(200);
      expect(site.hits('/robots.txt')).toBe(1);
      expect(site.hits('/private/page.html')).toBe(1);
    }
  });

  it('disallows everything, and remembers it, when robots.txt answers 5xx', async () => {
    const site = await web({ robots: 503 });
    const fetcher = makeFetcher({ robots: {} });
    await expectFetchError(fetcher.fetch(site.url('/public/page.html'), call()), 'robots_disallowed');
    await expectFetchError(fetcher.fetch(site.url('/page.html'), call()), 'robots_disallowed');
    expect(site.hits('/robots.txt')).toBe(1);
    expect(site.hits('/page.html')).toBe(0);
  });

  it('follows a redirected robots.txt', async () => {
    const site = await web({ robots: { redirect: '/robots-redirect' } });
    const fetcher = makeFetcher({ robots: {} });
    await expectFetchError(fetcher.fetch(site.url('/private/page.html'), call()), 'robots_disallowed');
    await fetcher.fetch(site.url('/public/page.html'), call());
    expect(site.hits('/robots-redirect')).toBe(1);
    expect(site.hits('/public/page.html')).toBe(1);
  });

  it('allows when robots.txt is unreachable', async () => {
    const site = await web({ robots: { reset: true } });
    const page = await makeFetcher({ robots: {} }).fetch(site.url('/private/page.html'), call());
    expect(page.status).toBe(200);
    expect(site.hits('/robots.txt')).toBeGreaterThanOrEqual(1);
    expect(site.hits('/private/page.html')).toBe(1);
  });

  it('is skipped entirely with robots: false', async () => {
    const site = await web({ robots: ROBOTS });
    const page = await makeFetcher({ robots: false }).fetch(site.url('/private/page.html'), call());
    expect(page.status).toBe(200);
    expect(site.hits('/robots.txt')).toBe(0);
    expect(site.hits('/private/page.html')).toBe(1);
  });

  it('parses a robots.txt larger than its cap up to the cap', async () => {
    const filler = '# filler\n'.repeat(2000);
    const site = await web({ robots: `User-agent: *\nDisallow: /private/\n${filler}Disallow: /public/\n` });
    const fetcher = makeFetcher({ robots: { maxBytes: 1000 } });
    await expectFetchError(fetcher.fetch(site.url('/private/page.html'), call()), 'robots_disallowed');
    // The rule after the cap was never read.
    const page = await fetcher.fetch(site.url('/public/page.html'), call());
    expect(page.status).toBe(200);
    expect(site.hits('/public/page.html')).toBe(1);
    expect(site.hits('/private/page.html')).toBe(0);
  });
});
