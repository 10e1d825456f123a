import { afterEach, describe, expect, it } from 'vitest';
import { normalizeDate, writtenZoneOffset } from '../../src/pipeline/extract/metadata.ts';

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
