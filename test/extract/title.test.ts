import { describe, expect, it } from 'vitest';
import { titleWithoutSiteName } from '../../src/pipeline/extract/title.ts';
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
