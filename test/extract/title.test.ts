import { describe, expect, it } from 'vitest';
import { headlineTitle, titleWithoutSiteName } from '../../src/pipeline/extract/title.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';

const PAGE = 'https://www.acme-tools.com/blog/how-to-sharpen';

describe('titleWithoutSiteName', () => {
  it.each([
    [
      'a declared site name after the title',
      'How to Sharpen a Chisel | Acme Tools',
      'Acme Tools',
      'How to Sharpen a Chisel',
    ],
    [
      'the host name after the title',
      'How to Sharpen a Chisel - acme-tools.com',
      undefined,
      'How to Sharpen a Chisel',
    ],
    [
      'the host’s registered label',
      'How to Sharpen a Chisel — ACME TOOLS',
      undefined,
      'How to Sharpen a Chisel',
    ],
    [
      'from the first separator followed by the name, with more after it',
      'Electricians in Ponchatoula, LA - Costs 12 / 2025 — Acme Tools - Consulting & Repairs',
      undefined,
      'Electricians in Ponchatoula, LA - Costs 12 / 2025',
    ],
    [
      'the site name before the title',
      'Acme Tools | How to Sharpen a Chisel',
      'Acme Tools',
      'How to Sharpen a Chisel',
    ],
    [
      'a colon inside the title is no separator',
      'Chisels: a Guide | Acme Tools',
      'Acme Tools',
      'Chisels: a Guide',
    ],
  ])('removes %s', (_case, title, siteName, expected) => {
    expect(titleWithoutSiteName(title, siteName, PAGE)).toBe(expected);
  });

  it.each([
    ['a name that is not the site’s', 'How to Sharpen a Chisel | Woodworking Weekly', 'Acme Tools', PAGE],
    ['a title without a separator', 'Acme Tools guide to sharpening', 'Acme Tools', PAGE],
    ['a hyphen inside a word', 'Fold-and-Cut with Acme-Tools', 'Acme Tools', PAGE],
    [
      'the site’s home page, whose title is the site’s',
      'Acme Tools - Hand Tools Since 1920',
      'Acme Tools',
      'https://acme-tools.com/',
    ],
    ['a title that is only the site name', 'Acme Tools', 'Acme Tools', PAGE],
    ['a name too short to tell from a word', 'How to Sharpen | AT', 'AT', 'https://at.io/sharpen'],
  ])('keeps %s', (_case, title, siteName, url) => {
    expect(titleWithoutSiteName(title, siteName, url)).toBe(title);
  });

  it('reads the registered label under a shared second level (example.co.uk) and accepts a non-URL', () => {
    expect(titleWithoutSiteName('Tea Guide | Leafy', undefined, 'https://shop.leafy.co.uk/guide')).toBe(
      'Tea Guide',
    );
    expect(titleWithoutSiteName('Tea Guide | Leafy', 'Leafy', 'not a url')).toBe('Tea Guide');
    expect(titleWithoutSiteName('Tea Guide | Leafy', undefined, 'not a url')).toBe('Tea Guide | Leafy');
  });

  it('gives extracted pages their own title', async () => {
    const html =
      '<!doctype html><html><head><title>How to Sharpen a Chisel | Acme Tools</title>' +
      '<meta property="og:site_name" content="Acme Tools"></head><body><article>' +
      '<h1>How to Sharpen a Chisel</h1>' +
      '<p>A sharp chisel cuts clean end grain and needs less force, so it slips less and is safer to use. </p>'.repeat(
        6,
      ) +
      '</article></body></html>';
    const result = await extractContent(html, { url: PAGE, contentType: 'text/html' });
    expect(result?.title).toBe('How to Sharpen a Chisel');
    expect(result?.siteName).toBe('Acme Tools');
  });
});

describe('headlineTitle', () => {
  const URL_OF_PAGE = 'https://movers.example/nyc/residential';

  it.each([
    [
      'the one headline naming what the title names',
      ['Best Residential Movers in NYC 2025'],
      'Best Residential Movers in NYC 2025 | Top 19 Companies',
      'Best Residential Movers in NYC 2025',
    ],
    [
      'a headline half of whose words are in the title',
      ['NYC Movers We Trust'],
      'Best NYC Movers',
      'NYC Movers We Trust',
    ],
    ['any headline when the page has no title', ['Residential Movers'], '', 'Residential Movers'],
  ])('takes %s', (_case, headlines, title, expected) => {
    expect(headlineTitle(headlines, title, undefined, URL_OF_PAGE)).toBe(expected);
  });

  it.each([
    ['no headline', [], 'Best Movers'],
    [
      'several headlines (one per card or section)',
      ['Best Movers', 'Best Packers'],
      'Best Movers and Packers',
    ],
    ['a headline about something else', ['Welcome to our site!'], 'Best Movers in NYC'],
    ['the site name set as a headline (a logo)', ['Movers'], 'Best Residential Movers | Movers'],
    ['a declared site name set as a headline', ['Acme Moving Co.'], 'Acme Moving Co. reviews of NYC movers'],
    ['a paragraph set as a headline', ['Movers '.repeat(40)], 'Movers'],
  ])('keeps the document title with %s', (_case, headlines, title) => {
    expect(headlineTitle(headlines, title, 'Acme Moving Co', URL_OF_PAGE)).toBeUndefined();
  });

  it('gives extracted pages the headline they show, read before extraction changes it', async () => {
    const body =
      '<p>Moving across the city takes planning, a crew you trust and a fair quote in writing before the day. </p>'.repeat(
        6,
      );
    const extract = async (head: string, headings: string): Promise<string | undefined> =>
      (
        await extractContent(
          `<!doctype html><html><head>${head}</head><body><header><h1 hidden>Menu</h1></header>` +
            `<main><article>${headings}${body}</article></main></body></html>`,
          { url: URL_OF_PAGE, contentType: 'text/html' },
        )
      )?.title;
    const seoTitle = '<title>Residential Movers NYC 2025 | Top 19 Companies | movers.example</title>';
    expect(await extract(seoTitle, '<h1>Residential  Movers in NYC</h1>')).toBe('Residential Movers in NYC');
    expect(await extract(seoTitle, '<h1>Movers in NYC</h1><h1>Packers</h1>')).toBe(
      'Residential Movers NYC 2025 | Top 19 Companies',
    );
    expect(await extract('', '<h1>Residential Movers in NYC</h1>')).toBe('Residential Movers in NYC');
  });
});
