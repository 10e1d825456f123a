import { describe, expect, it } from 'vitest';
import { canonicalizeUrl, isHttpUrl, isTrackingParam } from '../../src/pipeline/search/url.ts';

describe('canonicalizeUrl', () => {
  it.each([
    ['lower-cases scheme and host', 'HTTPS://Example.COM/Path', 'https://example.com/Path'],
    ['keeps path case', 'https://example.com/CaseSensitive/Page', 'https://example.com/CaseSensitive/Page'],
    ['drops the default https port', 'https://example.com:443/a', 'https://example.com/a'],
    ['drops the default http port', 'http://example.com:80/a', 'http://example.com/a'],
    ['keeps a non-default port', 'https://example.com:8443/a', 'https://example.com:8443/a'],
    ['drops the fragment', 'https://example.com/a#section-2', 'https://example.com/a'],
    [
      'drops utm_* parameters',
      'https://example.com/a?utm_source=x&utm_medium=y&UTM_Campaign=z',
      'https://example.com/a',
    ],
    [
      'drops click ids',
      'https://example.com/a?fbclid=1&gclid=2&msclkid=3&id=7',
      'https://example.com/a?id=7',
    ],
    ['sorts remaining parameters', 'https://example.com/a?b=2&a=1&c=3', 'https://example.com/a?a=1&b=2&c=3'],
    [
      'keeps the order of repeated parameters',
      'https://example.com/a?t=2&a=1&t=1',
      'https://example.com/a?a=1&t=2&t=1',
    ],
    ['removes a trailing slash', 'https://example.com/docs/', 'https://example.com/docs'],
    ['removes several trailing slashes', 'https://example.com/docs//', 'https://example.com/docs'],
    ['keeps the root slash', 'https://example.com', 'https://example.com/'],
    ['treats root with and without slash alike', 'https://example.com/', 'https://example.com/'],
    ['drops an empty query', 'https://example.com/a?', 'https://example.com/a'],
    ['drops credentials', 'https://user:secret@example.com/a', 'https://example.com/a'],
    ['drops the trailing dot of the host', 'https://example.com./a', 'https://example.com/a'],
    [
      'decodes unreserved percent-escapes',
      'https://example.com/%7Euser/%61bc',
      'https://example.com/~user/abc',
    ],
    ['upper-cases other percent-escapes', 'https://example.com/a%2fb', 'https://example.com/a%2Fb'],
    ['converts IDN hosts to punycode', 'https://bücher.example/a', 'https://xn--bcher-kva.example/a'],
    ['trims whitespace', '  https://example.com/a  ', 'https://example.com/a'],
    ['ignores mailto:', 'mailto:someone@example.com', 'mailto:someone@example.com'],
    ['ignores file:', 'file:///tmp/a.html', 'file:///tmp/a.html'],
    ['returns non-URLs unchanged', 'not a url', 'not a url'],
  ])('%s', (_name, input, expected) => {
    expect(canonicalizeUrl(input)).toBe(expected);
  });

  it('maps variants of one page to one key', () => {
    const variants = [
      'https://Example.com/article/?b=2&a=1&utm_source=newsletter',
      'https://example.com:443/article?a=1&b=2#comments',
      'https://example.com/article?fbclid=abc&a=1&b=2',
    ];
    expect(new Set(variants.map(canonicalizeUrl)).size).toBe(1);
  });

  it('keeps different pages apart', () => {
    expect(canonicalizeUrl('https://example.com/a?id=1')).not.toBe(
      canonicalizeUrl('https://example.com/a?id=2'),
    );
    expect(canonicalizeUrl('http://example.com/a')).not.toBe(canonicalizeUrl('https://example.com/a'));
    expect(canonicalizeUrl('https://example.com/A')).not.toBe(canonicalizeUrl('https://example.com/a'));
  });

  it('is idempotent', () => {
    const once = canonicalizeUrl('HTTPS://Example.com:443/a/b/?z=1&utm_x=2&a=%7e#f');
    expect(canonicalizeUrl(once)).toBe(once);
  });
});

describe('isTrackingParam / isHttpUrl', () => {
  it('classifies parameters', () => {
    expect(isTrackingParam('utm_content')).toBe(true);
    expect(isTrackingParam('gclid')).toBe(true);
    expect(isTrackingParam('q')).toBe(false);
    expect(isTrackingParam('page')).toBe(false);
  });
  it('recognises http(s) URLs only', () => {
    expect(isHttpUrl('https://example.com')).toBe(true);
    expect(isHttpUrl('ftp://example.com')).toBe(false);
    expect(isHttpUrl('/relative')).toBe(false);
  });
});
