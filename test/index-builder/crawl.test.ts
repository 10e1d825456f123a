import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildIndex, IndexStore, type BuildIndexOptions } from '../../src/index-builder/index.ts';
import { resolver, SITE_HOST, startSite, type Site } from './site.ts';

describe('buildIndex over a web site', () => {
  let site: Site;
  let dir: string;

  beforeAll(async () => {
    site = await startSite();
    dir = mkdtempSync(join(tmpdir(), 'citewise-crawl-'));
  });
  afterAll(async () => {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    site.options = {};
    (site.paths as string[]).length = 0;
  });

  const build = async (store: IndexStore, sources: string[], extra: Partial<BuildIndexOptions> = {}) =>
    buildIndex({
      store,
      sources,
      fetcherOptions: { resolver, allowPrivateHosts: [SITE_HOST] },
      checkpointMs: 0,
      ...extra,
    });

  it('crawls same-origin links breadth-first within the depth, obeying robots.txt, once per page', async () => {
    const store = await IndexStore.open(join(dir, 'crawl.sqlite'), { fresh: true });
    const summary = await build(store, [site.url('/')]);

    expect((await store.urls()).sort()).toEqual(
      ['/', '/a', '/b', '/deep/1', '/deep/2', '/from-noindex', '/report.pdf'].map((p) => site.url(p)).sort(),
    );
    expect(summary).toMatchObject({ added: 7, updated: 0, unchanged: 0, removed: 0, interrupted: false });
    expect(summary.skipped).toMatchObject({
      robots: 1,
      http_error: 1,
      noindex: 1,
      duplicate: 1,
      error: 0,
      blocked: 0,
    });
    expect(summary.sourceErrors).toEqual([]);

    // robots.txt: the disallowed page was never requested; robots.txt was read once.
    expect(site.paths).not.toContain('/private/secret');
    expect(site.paths.filter((p) => p === '/robots.txt')).toHaveLength(1);
    // Off-origin links are not followed, binary links are not fetched, the depth bound holds.
    expect(site.paths).not.toContain('/offsite');
    expect([...site.hosts]).toEqual([SITE_HOST]);
    expect(site.paths).not.toContain('/logo.png');
    expect(site.paths).not.toContain('/deep/3');
    // Cycles (/ ↔ /a ↔ /b), fragments and tracking parameters do not cause refetches.
    for (const path of ['/', '/a']) expect(site.paths.filter((p) => p === path)).toHaveLength(1);
    // /b twice: once linked, once as the target of /redirect (indexed once, the redirect counts as duplicate).
    expect(site.paths.filter((p) => p === '/b')).toHaveLength(2);

    // The PDF was extracted; its text is searchable.
    expect((await store.search('lemurs madagascar', 1))[0]?.url).toBe(site.url('/report.pdf'));
    expect((await store.search('capybaras rodents', 1))[0]?.title).toBe('Page B about capybaras');
    expect(await store.sources()).toEqual([
      expect.objectContaining({ source: site.url('/'), kind: 'site', documents: 7 }),
    ]);
  });

  it('a second run updates changed pages in place and removes pages that are now 404', async () => {
    const store = await IndexStore.open(join(dir, 'rerun.sqlite'), { fresh: true });
    await build(store, [site.url('/')]);
    expect((await store.search('aardvarks burrows', 1))[0]?.url).toBe(site.url('/'));

    site.options = { homeText: 'Wombats produce cube-shaped droppings.', gone: new Set(['/deep/2']) };
    const second = await build(store, [site.url('/')]);
    expect(second).toMatchObject({ added: 0, updated: 1, unchanged: 5, removed: 1 });
    expect(await store.size()).toBe(6);
    expect(await store.index.get(site.url('/deep/2'))).toBeUndefined();
    expect((await store.search('wombats cube', 1))[0]?.url).toBe(site.url('/'));
    expect(await store.search('burrows', 5)).toEqual([]);
  });

  it('stops at maxPages and reports the links it left', async () => {
    const store = await IndexStore.open(join(dir, 'max.sqlite'), { fresh: true });
    const summary = await build(store, [site.url('/')], { maxPages: 2, concurrency: 1 });
    expect(site.paths.filter((p) => p !== '/robots.txt')).toHaveLength(2);
    expect(await store.size()).toBe(2);
    expect(summary.notVisited).toBeGreaterThan(0);
  });

  it('maxDepth 0 indexes the start page only; --include narrows what is followed', async () => {
    const store = await IndexStore.open(join(dir, 'depth.sqlite'), { fresh: true });
    await build(store, [site.url('/')], { maxDepth: 0 });
    expect(await store.urls()).toEqual([site.url('/')]);

    const narrowed = await IndexStore.open(join(dir, 'include.sqlite'), { fresh: true });
    await build(narrowed, [site.url('/')], { include: ['/deep/**'], exclude: ['/deep/2'] });
    // The start page is crawled for its links but is outside --include, so it is not indexed.
    expect(await narrowed.urls()).toEqual([]);
    const viaA = await IndexStore.open(join(dir, 'include2.sqlite'), { fresh: true });
    await build(viaA, [site.url('/a')], { include: ['/a', '/deep/*'], exclude: ['/deep/2'] });
    expect((await viaA.urls()).sort()).toEqual([site.url('/a'), site.url('/deep/1')]);
  });

  it('reads a sitemap index recursively (plain and gzip), on origin only, without following links', async () => {
    const store = await IndexStore.open(join(dir, 'sitemap.sqlite'), { fresh: true });
    const summary = await build(store, [site.url('/sitemap.xml')]);
    expect((await store.urls()).sort()).toEqual([site.url('/s1'), site.url('/s2?a=1&b=2')]);
    expect(summary.skipped.robots).toBe(1);
    expect(site.paths).not.toContain('/s3');
    expect(site.paths).not.toContain('/offsite');
    expect((await store.sources())[0]).toMatchObject({ kind: 'sitemap', documents: 2 });
  });

  it('reads a sitemap file from disk', async () => {
    const file = join(dir, 'sitemap.xml');
    writeFileSync(
      file,
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url('/s1')}</loc></url></urlset>`,
    );
    const store = await IndexStore.open(join(dir, 'sitemap-file.json'), { fresh: true });
    await build(store, [file]);
    expect(await store.urls()).toEqual([site.url('/s1')]);
    expect((await store.sources())[0]).toMatchObject({ source: pathToFileURL(file).href, kind: 'sitemap' });
  });

  it('keeps the SSRF guard: without the allow-list the loopback site is blocked', async () => {
    const store = await IndexStore.open(join(dir, 'blocked.sqlite'), { fresh: true });
    const summary = await buildIndex({
      store,
      sources: [site.url('/')],
      fetcherOptions: { resolver },
      checkpointMs: 0,
    });
    expect(await store.size()).toBe(0);
    expect(summary.skipped.blocked).toBe(1);
    expect(summary.sourceErrors).toHaveLength(1);
    expect(site.paths).toEqual([]);
  });

  it('stops when its signal aborts and says so', async () => {
    const store = await IndexStore.open(join(dir, 'abort.sqlite'), { fresh: true });
    const controller = new AbortController();
    const summary = await build(store, [site.url('/')], {
      concurrency: 1,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.indexed >= 1) controller.abort();
      },
    });
    expect(summary.interrupted).toBe(true);
    expect(await store.size()).toBeLessThan(7);
  });
});
