import { describe, expect, it } from 'vitest';
import { applyDomainFilters, hostMatches, withSiteOperators } from '../../src/pipeline/search/filters.ts';

const hit = (url: string) => ({ url, title: url });

describe('domain filters', () => {
  it('a domain matches itself and its subdomains, not look-alikes', () => {
    expect(hostMatches('example.org', 'example.org')).toBe(true);
    expect(hostMatches('docs.example.org', 'example.org')).toBe(true);
    expect(hostMatches('notexample.org', 'example.org')).toBe(false);
    expect(hostMatches('example.org.evil.test', 'example.org')).toBe(false);
  });

  it('reads *.x, .x, a trailing dot and upper case as the bare domain', () => {
    for (const form of ['*.Example.org', '.example.org', 'example.org.', 'EXAMPLE.ORG']) {
      expect(hostMatches('a.example.org', form)).toBe(true);
    }
  });

  it('keeps only included domains and drops excluded ones; blank entries are ignored', () => {
    const hits = [
      hit('https://a.example.org/1'),
      hit('https://example.org/2'),
      hit('https://other.test/3'),
      hit('https://ads.example.org/4'),
    ];
    expect(
      applyDomainFilters(hits, {
        includeDomains: ['example.org', ' '],
        excludeDomains: ['ads.example.org'],
      }).map((h) => h.url),
    ).toEqual(['https://a.example.org/1', 'https://example.org/2']);
    expect(applyDomainFilters(hits, { includeDomains: [''] })).toEqual(hits);
    expect(applyDomainFilters(hits, undefined)).toEqual(hits);
  });

  it('drops a hit whose URL does not parse when a filter is set', () => {
    expect(applyDomainFilters([hit('not a url')], { excludeDomains: ['x.test'] })).toEqual([]);
  });

  it('writes site: operators: one include, several includes OR-ed, each exclude negated', () => {
    expect(withSiteOperators('q', { includeDomains: ['a.org'] })).toBe('q site:a.org');
    expect(withSiteOperators('q', { includeDomains: ['a.org', 'b.org'], excludeDomains: ['c.org'] })).toBe(
      'q (site:a.org OR site:b.org) -site:c.org',
    );
    expect(withSiteOperators('q', {})).toBe('q');
  });
});
