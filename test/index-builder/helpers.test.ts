import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  compilePattern,
  createProgressRenderer,
  formatProgressLine,
  gunzipCapped,
  parseSitemap,
  readPageLinks,
  renderBar,
} from '../../src/index-builder/index.ts';

describe('include/exclude patterns', () => {
  it('matches prefixes of the path, globs segment-wise, and absolute patterns against the whole URL', () => {
    const url = new URL('https://docs.example.com/guide/intro/setup?lang=en');
    expect(compilePattern('/guide/')(url)).toBe(true);
    expect(compilePattern('guide/')(url)).toBe(true);
    expect(compilePattern('/blog/')(url)).toBe(false);
    expect(compilePattern('/guide/*')(url)).toBe(false); // * stays within a segment
    expect(compilePattern('/guide/**')(url)).toBe(true);
    expect(compilePattern('/guide/*/setup?lang=en')(url)).toBe(true);
    expect(compilePattern('https://docs.example.com/guide')(url)).toBe(true);
    expect(compilePattern('https://example.com/')(url)).toBe(false);
    expect(compilePattern('**/*.pdf')('guide/report.pdf')).toBe(true);
    expect(compilePattern('**/*.pdf')('guide/report.md')).toBe(false);
    expect(() => compilePattern('')).toThrow(TypeError);
  });

  it('includes need one match, excludes none', () => {
    const filter = compileFilter(['/docs/', '/api/'], ['/docs/old/']);
    expect(filter(new URL('https://x.test/docs/a'))).toBe(true);
    expect(filter(new URL('https://x.test/api/b'))).toBe(true);
    expect(filter(new URL('https://x.test/docs/old/a'))).toBe(false);
    expect(filter(new URL('https://x.test/blog'))).toBe(false);
    expect(compileFilter()(new URL('https://x.test/anything'))).toBe(true);
  });
});

describe('sitemaps', () => {
  it('parses urlsets and sitemap indexes, with entities, namespaces prefixes and bad entries dropped', () => {
    expect(
      parseSitemap(`<?xml version="1.0"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://a.test/x?a=1&amp;b=2 </loc><lastmod>2024-01-01</lastmod></url>
  <url><loc>/relative</loc></url>
  <url><loc>ftp://a.test/file</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
</urlset>`),
    ).toEqual({ kind: 'urlset', urls: ['https://a.test/x?a=1&b=2'] });
    expect(
      parseSitemap(
        '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://a.test/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>',
      ),
    ).toEqual({ kind: 'sitemapindex', urls: ['https://a.test/s1.xml'] });
    expect(
      parseSitemap(`<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc><![CDATA[https://a.test/c?x=1&y=2]]></loc><loc>https://a.test/second-loc</loc></url>
  <url><image:image><image:loc>https://a.test/i.png</image:loc></image:image><LOC>https://a.test/upper</LOC></url>
  <url><loc>https://a.test/<b>nested</b>-text</loc></url>
  <sitemap><loc>https://a.test/wrong-entry.xml</loc></sitemap>
</urlset><urlset><url><loc>https://a.test/second-root</loc></url></urlset>`),
    ).toEqual({
      kind: 'urlset',
      // The first <loc> of each <url> of the first root, CDATA and nested text included.
      urls: ['https://a.test/c?x=1&y=2', 'https://a.test/upper', 'https://a.test/nested-text'],
    });
    expect(parseSitemap('<html><body>not a sitemap</body></html>')).toBeNull();
    expect(parseSitemap('<rss><channel/></rss>')).toBeNull();
  });

  it('inflates gzip with a cap', () => {
    const packed = gzipSync(Buffer.from('<urlset></urlset>'));
    expect(Buffer.from(gunzipCapped(packed)).toString()).toBe('<urlset></urlset>');
    expect(() => gunzipCapped(gzipSync(Buffer.alloc(10_000)), 1_000)).toThrow(RangeError);
  });
});

describe('readPageLinks', () => {
  const html = `<html><head><base href="https://x.test/docs/"></head><body>
    <a href="a">a</a> <a href="/b#top">b</a> <a href="a">dup</a> <a rel="nofollow" href="c">c</a>
    <a href="#only-fragment">f</a> <a href="mailto:x@y.z">m</a> <a href="javascript:void(0)">j</a>
    <map><area href="https://y.test/area"></map></body></html>`;

  it('resolves against <base>, drops fragments, duplicates, nofollow and non-http links', () => {
    const found = readPageLinks(html, 'https://x.test/page');
    expect(found).toEqual({
      links: ['https://x.test/docs/a', 'https://x.test/b', 'https://y.test/area'],
      noindex: false,
      nofollow: false,
    });
  });

  it('honours robots meta tags and X-Robots-Tag, including those addressed to our user agent only', () => {
    const meta = (content: string, name = 'robots') =>
      `<html><head><meta name="${name}" content="${content}"></head><body><a href="/x">x</a></body></html>`;
    expect(readPageLinks(meta('noindex, follow'), 'https://x.test/')).toMatchObject({
      noindex: true,
      nofollow: false,
    });
    expect(readPageLinks(meta('NOFOLLOW'), 'https://x.test/')).toEqual({
      links: [],
      noindex: false,
      nofollow: true,
    });
    expect(readPageLinks(meta('none'), 'https://x.test/')).toMatchObject({ noindex: true, nofollow: true });
    expect(readPageLinks(meta('noindex', 'citewise'), 'https://x.test/').noindex).toBe(true);
    expect(readPageLinks(meta('noindex', 'otherbot'), 'https://x.test/').noindex).toBe(false);
    const plain = '<a href="/x">x</a>';
    expect(readPageLinks(plain, 'https://x.test/', 'noindex').noindex).toBe(true);
    expect(readPageLinks(plain, 'https://x.test/', 'otherbot: noindex').noindex).toBe(false);
    expect(readPageLinks(plain, 'https://x.test/', 'citewise: noindex, nofollow')).toMatchObject({
      noindex: true,
      nofollow: true,
    });
  });
});

describe('progress output', () => {
  const progress = {
    source: 'https://example.com/',
    done: 5,
    pending: 15,
    indexed: 4,
    skipped: 1,
    current: `https://example.com/${'very-long-path/'.repeat(20)}end`,
  };

  it('draws a bar and fits the line into the terminal width', () => {
    expect(renderBar(5, 15, 20)).toBe('[#####---------------]');
    expect(renderBar(0, 0, 4)).toBe('[####]');
    const line = formatProgressLine(progress, 80);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toMatch(/^\[#####-+\] 5\/20 · 4 indexed · 1 skipped · https:\/\/examp.*….*end$/);
  });

  it('redraws one line with \\r on a terminal, and writes throttled plain lines otherwise', () => {
    let tty = '';
    let time = 0;
    const terminal = createProgressRenderer({
      stream: { isTTY: true, columns: 100, write: (text: string) => (tty += text) },
      now: () => time,
    });
    terminal.update(progress);
    terminal.update({ ...progress, done: 6 }); // same instant: throttled
    time += 200;
    terminal.update({ ...progress, done: 7, pending: 13 });
    terminal.finish();
    expect(tty.split('\r').filter(Boolean)).toHaveLength(3); // two draws and the clearing line
    expect(tty).not.toContain('\n');
    expect(tty).toContain('7/20');

    let log = '';
    time = 0;
    const plain = createProgressRenderer({
      stream: { write: (text: string) => (log += text) },
      now: () => time,
    });
    plain.update(progress);
    time += 1_000;
    plain.update({ ...progress, done: 6 });
    time += 5_000;
    plain.update({ ...progress, done: 7 });
    plain.update({ ...progress, source: '/docs' }); // a new source is always shown
    plain.finish();
    expect(log.trim().split('\n')).toEqual([
      'index: https://example.com/: 5 done, 15 pending, 4 indexed, 1 skipped',
      'index: https://example.com/: 7 done, 15 pending, 4 indexed, 1 skipped',
      'index: /docs: 5 done, 15 pending, 4 indexed, 1 skipped',
    ]);
  });
});
