import { describe, expect, it } from 'vitest';
import { authorName } from '../../src/pipeline/extract/byline.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';

describe('authorName', () => {
  it.each([
    ['a label', 'By Scott Pletcher', 'Scott Pletcher'],
    ['a label glued to the name', 'Written ByMiguel Zabludovsky', 'Miguel Zabludovsky'],
    ['a label with a colon', 'Author: Jane Doe', 'Jane Doe'],
    ['the date after a separator', 'By Kathryn Giuffrida  |  Jan 2, 2025', 'Kathryn Giuffrida'],
    ['"on" and a date', 'By Lisa Jennings on Dec. 19, 2025', 'Lisa Jennings'],
    ['a date glued to the name', 'ServiceTitanNovember 26th, 202410 Min Read', 'ServiceTitan'],
    ['"Published" glued to the name', 'By Reyan PerumalPublished on July 18, 2025', 'Reyan Perumal'],
    [
      'a weekday and date',
      'Mike Marshall, Shipping Expert•Friday, December 19, 2025•Advertiser Disclosure',
      'Mike Marshall, Shipping Expert',
    ],
    [
      'a role glued to the name',
      'Written byCamila KaralyteJunior Affiliate Content Writer',
      'Camila Karalyte',
    ],
    ['the lines after the name', 'Brian Truitt\n\nUSA TODAY', 'Brian Truitt'],
    [
      'a label on its own line',
      'By\n      Sergio Martínez-Beltrán | The Texas Newsroom',
      'Sergio Martínez-Beltrán | The Texas Newsroom',
    ],
  ])('takes the name out of %s', (_case, byline, expected) => {
    expect(authorName(byline)).toBe(expected);
  });

  it.each([
    ['names that start like a month or a weekday', 'Jason Montgomery, Maya Sunil'],
    ['a surname with a capital inside it', 'Danielle DeSiato'],
    ['a name that starts like the label', 'Byron Katie'],
    ['more names on the next line', 'Mark SubbaRao and Jonas Jaegermeyer'],
    ['an e-mail address given as the name', 'beatriz.pinto@hommes.studio'],
  ])('keeps %s', (_case, byline) => {
    expect(authorName(byline.replace(' and ', '\n\t\t and '))).toBe(byline);
  });

  it.each([
    ['The Author'],
    ['Full Bio'],
    ['5 min read'],
    ['Aug 15'],
    ['https://example.com/user/jane'],
    ['x'.repeat(201)],
    [''],
  ])('finds no name in %j', (byline) => {
    expect(authorName(byline)).toBeUndefined();
  });

  it('gives extracted pages the name from their byline', async () => {
    const html =
      '<!doctype html><html><head><title>Chisels</title></head><body><article><h1>Chisels</h1>' +
      '<div class="byline">By Jane Doe | Jan 2, 2025</div>' +
      '<p>A sharp chisel cuts clean end grain and needs less force, so it slips less and is safer to use. </p>'.repeat(
        6,
      ) +
      '</article></body></html>';
    const result = await extractContent(html, {
      url: 'https://example.com/chisels',
      contentType: 'text/html',
    });
    expect(result?.byline).toBe('Jane Doe');
  });

  it('falls back to the declared author when the byline Readability found holds no name', async () => {
    // Readability reads no author from JSON-LD whose @type is a list, and takes this line for a byline.
    const html =
      '<!doctype html><html><head><title>Chisels</title><script type="application/ld+json">' +
      '{"@type":["WebPage","Article"],"author":{"@type":"Person","name":"Jane Doe"}}</script></head>' +
      '<body><article><h1>Chisels</h1><div class="byline">Last Updated: 2025-02-22 Cite this Webpage By Jane Doe Fact Checked</div>' +
      '<p>A sharp chisel cuts clean end grain and needs less force, so it slips less and is safer to use. </p>'.repeat(
        6,
      ) +
      '</article></body></html>';
    const result = await extractContent(html, {
      url: 'https://example.com/chisels',
      contentType: 'text/html',
    });
    expect(result?.byline).toBe('Jane Doe');
  });
});
