import { describe, expect, it } from 'vitest';
import { requireOneOf, resolveKeyedProvider } from '../../src/pipeline/search/providers/http-options.ts';
import { jsonPost } from '../../src/pipeline/search/providers/request.ts';
import { quotaError } from '../../src/pipeline/search/providers/http-errors.ts';
import { mapResults } from '../../src/pipeline/search/providers/results.ts';
import { recencyOf } from '../../src/pipeline/search/providers/dates.ts';
import { htmlToText } from '../../src/pipeline/search/providers/html-text.ts';

describe('provider option helpers', () => {
  it('requireOneOf lists the choices (strings quoted, numbers bare) and lets undefined through', () => {
    expect(() => requireOneOf('Brave Search', 'safesearch', 'bogus', ['off', 'moderate', 'strict'])).toThrow(
      new RangeError("Brave Search: safesearch must be 'off', 'moderate' or 'strict'"),
    );
    expect(() => requireOneOf('SearXNG', 'safesearch', 3, [0, 1, 2])).toThrow(
      new RangeError('SearXNG: safesearch must be 0, 1 or 2'),
    );
    expect(() => requireOneOf('X', 'mode', undefined, ['a', 'b'])).not.toThrow();
    expect(() => requireOneOf('X', 'mode', 'b', ['a', 'b'])).not.toThrow();
  });

  it('resolveKeyedProvider checks the common options first, then the key, then the base URL', () => {
    expect(() => resolveKeyedProvider('X', { apiKey: '', timeoutMs: -1 }, 'https://x.test')).toThrow(
      /timeoutMs/,
    );
    expect(() => resolveKeyedProvider('X', { apiKey: '', baseUrl: 'ftp://x' }, 'https://x.test')).toThrow(
      'X: apiKey is required (a non-empty string)',
    );
    const resolved = resolveKeyedProvider('X', { apiKey: ' k ' }, 'https://x.test/api/');
    expect(resolved).toMatchObject({
      apiKey: 'k',
      baseUrl: 'https://x.test/api',
      http: { timeoutMs: 10_000 },
    });
  });
});

describe('provider request and response helpers', () => {
  it('jsonPost sends JSON with the provider headers added', () => {
    expect(jsonPost({ q: 1 }, { 'x-api-key': 'k' })).toEqual({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': 'k' },
      body: '{"q":1}',
    });
  });

  it('mapResults skips non-objects and entries the mapper rejects', () => {
    const hits = mapResults([null, 3, 'x', { url: 'https://a.test/' }, { title: 'no url' }], (record) =>
      typeof record.url === 'string' ? { url: record.url, title: 't' } : undefined,
    );
    expect(hits).toEqual([{ url: 'https://a.test/', title: 't' }]);
  });

  it('quotaError names the reason and status, with the detail when there is one', () => {
    const error = quotaError('p', 'P', 'credits exhausted', 402, 'no more', 5_000);
    expect(error.message).toBe('P refused the request: credits exhausted (402): no more');
    expect(error).toMatchObject({ kind: 'quota', httpStatus: 402, retryAfterMs: 5_000, retryable: false });
    expect(quotaError('p', 'P', 'limit', 432).message).toBe('P refused the request: limit (432)');
  });

  it('recencyOf picks the narrowest window up to a year and ignores older or invalid dates', () => {
    const now = Date.parse('2025-06-30T00:00:00Z');
    const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString();
    expect(recencyOf(daysAgo(1), now)).toBe('day');
    expect(recencyOf(daysAgo(1.5), now)).toBe('week');
    expect(recencyOf(daysAgo(7), now)).toBe('week');
    expect(recencyOf(daysAgo(31), now)).toBe('month');
    expect(recencyOf(daysAgo(366), now)).toBe('year');
    expect(recencyOf(daysAgo(367), now)).toBeUndefined();
    expect(recencyOf('not a date', now)).toBeUndefined();
    expect(recencyOf(undefined, now)).toBeUndefined();
  });
});

describe('provider HTML snippets', () => {
  it('htmlToText drops the markup, decodes entities and collapses whitespace', () => {
    expect(htmlToText('  The <strong>quick</strong>\n brown   fox  ')).toBe('The quick brown fox');
    expect(htmlToText('Tom &amp; Jerry &lt;3 &quot;cats&quot; &#8212; &eacute;t&eacute;')).toBe(
      'Tom & Jerry <3 "cats" \u2014 été',
    );
    expect(
      htmlToText('<span class="searchmatch">Paris</span> is the capital<br>of <a href="/f">France</a>'),
    ).toBe('Paris is the capitalof France');
    // Comments are no text; a lone `<` that opens no tag is.
    expect(htmlToText('a <!-- note --> b < c')).toBe('a b < c');
  });
});
