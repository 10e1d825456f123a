/** bench:qa's real-web mode: per-URL latency draws, hung pages, one host per page, `no-store`. */
import { describe, expect, it } from 'vitest';
import type { Article } from '../../bench/qa/corpus.ts';
import { percentile } from '../../bench/qa/metrics.ts';
import {
  createSquadWeb,
  realWebBehaviour,
  realWebResolver,
  REAL_WEB_DOMAIN,
} from '../../bench/qa/squad-web.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';

const ARTICLES: Article[] = ['Lighthouse', 'Bell_Rock', 'Angus'].map((title) => ({
  title,
  paragraphs: [`${title.replaceAll('_', ' ')} is a page of the test web. It has one paragraph only.`],
  split: 'dev',
}));

describe('real-web latency draws', () => {
  const urls = Array.from({ length: 4_000 }, (_, i) => `http://s${i}.web.test:1/wiki/Page_${i}`);

  it('are drawn once per URL: the same URL and seed always behave the same', () => {
    expect(realWebBehaviour(urls[7]!, 1)).toEqual(realWebBehaviour(urls[7]!, 1));
    expect(realWebBehaviour(urls[7]!, 1)).not.toEqual(realWebBehaviour(urls[7]!, 2));
  });

  it('do not depend on the port, which changes from run to run', () => {
    expect(realWebBehaviour('http://s7.web.test:41234/wiki/Page_7', 1)).toEqual(
      realWebBehaviour('http://s7.web.test:39001/wiki/Page_7', 1),
    );
  });

  it('follow a log-normal around the median with the given sigma, and hang the given share', () => {
    const draws = urls.map((url) => realWebBehaviour(url, 1, { medianMs: 300, sigma: 0.8, hangShare: 0.03 }));
    const delays = draws.map((draw) => draw.delayMs);
    // Deterministic draws: these bounds hold for this seed; they are loose enough to be about the shape.
    expect(percentile(delays, 50)).toBeGreaterThan(270);
    expect(percentile(delays, 50)).toBeLessThan(330);
    // ln(p84 / p50) ≈ sigma for a log-normal.
    expect(Math.log(percentile(delays, 84) / percentile(delays, 50))).toBeGreaterThan(0.7);
    expect(Math.log(percentile(delays, 84) / percentile(delays, 50))).toBeLessThan(0.9);
    const hung = draws.filter((draw) => draw.hangs).length / draws.length;
    expect(hung).toBeGreaterThan(0.02);
    expect(hung).toBeLessThan(0.04);
  });
});

describe('the local web in real-web mode', () => {
  it('serves each page from a host of its own, with Cache-Control: no-store, through the real fetcher', async () => {
    const web = await createSquadWeb({
      articles: ARTICLES,
      realWeb: { medianMs: 1, sigma: 0, hangShare: 0 },
    });
    const fetcher = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'], resolver: realWebResolver });
    try {
      const hosts = new Set(ARTICLES.map((article) => new URL(web.urlFor(article.title)).hostname));
      expect(hosts.size).toBe(ARTICLES.length);
      for (const host of hosts) expect(host.endsWith(`.${REAL_WEB_DOMAIN}`)).toBe(true);
      const call = {
        signal: new AbortController().signal,
        requestId: 'real-web',
        deadline: Date.now() + 10_000,
      };
      const url = new URL(web.urlFor('Bell_Rock'));
      const page = await fetcher.fetch(url, call);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(new TextDecoder().decode(page.body)).toContain('Bell Rock is a page of the test web.');
      // no-store: the fetcher's cache does not keep the page, so a second fetch reaches the web again.
      const before = web.requestCount;
      await fetcher.fetch(url, call);
      expect(web.requestCount).toBe(before + 1);
    } finally {
      await fetcher.close();
      await web.close();
    }
  });

  it('leaves a hung page unanswered (the client gives up), but answers robots.txt', async () => {
    const web = await createSquadWeb({
      articles: ARTICLES,
      realWeb: { medianMs: 1, sigma: 0, hangShare: 1 },
    });
    const fetcher = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'], resolver: realWebResolver });
    try {
      const call = { signal: AbortSignal.timeout(300), requestId: 'real-web', deadline: Date.now() + 10_000 };
      await expect(fetcher.fetch(new URL(web.urlFor('Angus')), call)).rejects.toThrow();
      // The fetcher's robots.txt request was answered, and only the page it asked for next was left hanging.
      expect(web.requestCount).toBe(2);
      expect(web.hungCount).toBe(1);
      const robots = await fetch(`${web.origin}/robots.txt`, { signal: AbortSignal.timeout(2_000) });
      expect(robots.status).toBe(200);
      expect(await robots.text()).toContain('User-agent: *');
      expect(web.hungCount).toBe(1);
    } finally {
      await fetcher.close();
      await web.close();
    }
  });

  it('with hosts: 1 serves every page from one host, and counts the load on it', async () => {
    const web = await createSquadWeb({
      articles: ARTICLES,
      realWeb: { medianMs: 1, sigma: 0, hangShare: 0 },
      hosts: 1,
    });
    const fetcher = createPageFetcher({ allowPrivateAddresses: ['127.0.0.1'], resolver: realWebResolver });
    try {
      const hosts = new Set(ARTICLES.map((article) => new URL(web.urlFor(article.title)).hostname));
      expect([...hosts]).toEqual([`h0.${REAL_WEB_DOMAIN}`]);
      const call = {
        signal: new AbortController().signal,
        requestId: 'hosts',
        deadline: Date.now() + 10_000,
      };
      await Promise.all(ARTICLES.map((article) => fetcher.fetch(new URL(web.urlFor(article.title)), call)));
      await fetcher.fetch(new URL(web.urlFor('Angus')), call);
      const traffic = web.traffic();
      expect(traffic).toMatchObject({ hosts: 1, pageRequests: 4, maxFetchesOfOnePage: 2 });
      // robots.txt and the four page requests within one second, at least two of them at once.
      expect(traffic.peakHostRequestsPerSecond).toBe(5);
      expect(traffic.peakHostInFlight).toBeGreaterThanOrEqual(2);
      web.resetTraffic();
      expect(web.traffic()).toMatchObject({ requests: 0, pageRequests: 0, peakHostRequestsPerSecond: 0 });
    } finally {
      await fetcher.close();
      await web.close();
    }
  });

  it('the resolver refuses names outside the test domain', async () => {
    await expect(realWebResolver('example.com')).rejects.toThrow(/not a web\.test host/);
    await expect(realWebResolver('s1.web.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});
