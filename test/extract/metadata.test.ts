import { afterEach, describe, expect, it } from 'vitest';
import { normalizeDate, writtenDate, writtenZoneOffset } from '../../src/pipeline/extract/metadata.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';

describe('published dates', () => {
  const originalZone = process.env.TZ;
  afterEach(() => {
    // Assigning undefined would set the zone to the string "undefined".
    if (originalZone === undefined) delete process.env.TZ;
    else process.env.TZ = originalZone;
  });

  it('keep the date and time the page wrote, in its own zone', () => {
    // May 2 where it was published, May 3 in UTC: the day must stay the page's.
    expect(normalizeDate('2023-05-02T22:00:00-07:00')).toBe('2023-05-02T22:00:00.000-07:00');
    expect(normalizeDate('2023-05-02T22:00:00.123+0530')).toBe('2023-05-02T22:00:00.123+05:30');
    expect(normalizeDate('2023-05-02T22:00:00Z')).toBe('2023-05-02T22:00:00.000Z');
    expect(normalizeDate('Tue, 02 May 2023 22:00:00 -0700')).toBe('2023-05-02T22:00:00.000-07:00');
    expect(normalizeDate('Tue, 02 May 2023 22:00:00 GMT')).toBe('2023-05-02T22:00:00.000Z');
    expect(normalizeDate('Tue May 02 2023 22:00:00 GMT+0200 (Central European Summer Time)')).toBe(
      '2023-05-02T22:00:00.000+02:00',
    );
  });

  it('invent no zone for a date written without one, whatever the machine’s zone', () => {
    for (const zone of ['UTC', 'America/Los_Angeles', 'Asia/Tokyo']) {
      process.env.TZ = zone;
      expect([zone, normalizeDate('2023-05-02 22:00:00')]).toEqual([zone, '2023-05-02T22:00:00.000']);
      expect([zone, normalizeDate('May 2, 2023')]).toEqual([zone, '2023-05-02T00:00:00.000']);
      expect([zone, normalizeDate('2023-05-02')]).toEqual([zone, '2023-05-02']);
    }
  });

  it('are dropped when they do not parse or fall outside plausible years', () => {
    for (const value of ['', 'yesterday', '2023-13-45', '20230502', '1970-01-01T00:00:00Z', '0001-01-01']) {
      expect([value, normalizeDate(value)]).toEqual([value, undefined]);
    }
  });

  it('read the zone at the end of a date in minutes east of UTC', () => {
    expect(writtenZoneOffset('2023-05-02T22:00:00+02:00')).toBe(120);
    expect(writtenZoneOffset('2023-05-02T22:00:00-0330')).toBe(-210);
    expect(writtenZoneOffset('2023-05-02T22:00:00Z')).toBe(0);
    expect(writtenZoneOffset('Tue, 02 May 2023 22:00:00 UTC')).toBe(0);
    expect(writtenZoneOffset('2023-05-02T22:00:00')).toBeUndefined();
    expect(writtenZoneOffset('2023-05-02')).toBeUndefined();
  });
});

describe('dates written out in a <time> without datetime', () => {
  it.each([
    ['October 8, 2025', '2025-10-08'],
    ['Aug 04, 2025', '2025-08-04'],
    ['Sept. 3, 2024', '2024-09-03'],
    ['February 9th, 2024', '2024-02-09'],
    ['18th Dec 2025', '2025-12-18'],
    ['22 June 2020', '2020-06-22'],
    ['Published on June 04, 2025', '2025-06-04'],
    ['on Friday December 19, 2025 @08:00PM', '2025-12-19'],
    ['- 2025/4/29', '2025-04-29'],
    ['Updated 2024-10-28, first published May 2, 2023', '2024-10-28'],
  ])('reads %j as %s', (text, date) => {
    expect(writtenDate(text)).toBe(date);
  });

  it.each([
    ['a relative date', '1 year ago'],
    ['a time alone', 'Today at 3:40 PM'],
    ['a day that does not exist', 'Feb 30, 2024'],
    ['a numeric date with the day or month first', '04/05/2025'],
    ['a month without a day', 'May 2025'],
    ['a word that starts like a month', 'Mayday 3, 2020'],
    ['an implausible year', 'June 1, 1901'],
  ])('reads nothing from %s', (_case, text) => {
    expect(writtenDate(text)).toBeUndefined();
  });

  it('give a page its published date when nothing else does, and never over a declared one', async () => {
    const page = (head: string, byline: string): string =>
      `<!doctype html><html><head><title>Chisels</title>${head}</head><body><article><h1>Chisels</h1>` +
      `<p class="meta">${byline}</p>` +
      '<p>A sharp chisel cuts clean end grain and needs less force, so it slips less and is safer to use. </p>'.repeat(
        6,
      ) +
      '</article></body></html>';
    const publishedAt = async (html: string): Promise<string | undefined> =>
      (await extractContent(html, { url: 'https://example.com/chisels', contentType: 'text/html' }))
        ?.publishedAt;
    expect(await publishedAt(page('', 'Posted <time>March 5, 2026</time>'))).toBe('2026-03-05');
    expect(
      await publishedAt(
        page('<meta property="article:published_time" content="2026-01-02">', '<time>March 5, 2026</time>'),
      ),
    ).toBe('2026-01-02');
    expect(await publishedAt(page('', '<time>last week</time>'))).toBeUndefined();
  });
});
