import { describe, expect, it } from 'vitest';
import { authorFromProfileLink, authorName } from '../../src/pipeline/extract/byline.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';

/** An article about chisels with `head` in its head and `top` above its paragraphs. */
function chiselArticle(head: string, top: string): string {
  return (
    `<!doctype html><html><head><title>Chisels</title>${head}</head><body><article><h1>Chisels</h1>${top}` +
    '<p>A sharp chisel cuts clean end grain and needs less force, so it slips less and is safer to use. </p>'.repeat(
      6,
    ) +
    '</article></body></html>'
  );
}

/** The byline extracted from a page. */
async function bylineOf(html: string, url = 'https://example.com/chisels'): Promise<string | undefined> {
  return (await extractContent(html, { url, contentType: 'text/html' }))?.byline;
}

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
    expect(await bylineOf(chiselArticle('', '<div class="byline">By Jane Doe | Jan 2, 2025</div>'))).toBe(
      'Jane Doe',
    );
  });

  it('falls back to the declared author when the byline Readability found holds no name', async () => {
    // Readability reads no author from JSON-LD whose @type is a list, and takes this line for a byline.
    const html = chiselArticle(
      '<script type="application/ld+json">' +
        '{"@type":["WebPage","Article"],"author":{"@type":"Person","name":"Jane Doe"}}</script>',
      '<div class="byline">Last Updated: 2025-02-22 Cite this Webpage By Jane Doe Fact Checked</div>',
    );
    expect(await bylineOf(html)).toBe('Jane Doe');
  });
});

describe('authorFromProfileLink', () => {
  const PAGE_URL = 'https://www.example.com/guides/chisels';
  const links = async (html: string): Promise<Element[]> =>
    Array.from(parseDocument(html).document.querySelectorAll('a'));

  it.each([
    [
      'a same-site author page named by the link',
      '<a href="/authors/trevor-jackins">Trevor Jackins</a>',
      'Trevor Jackins',
    ],
    [
      'an absolute address on the bare host',
      '<a href="https://example.com/people/ana-lopez/">Ana López</a>',
      'Ana López',
    ],
    [
      'the first that names its author',
      '<a href="/authors/jo-ray">More from Jo</a> <a href="/authors/jo-ray">Jo Ray</a>',
      'Jo Ray',
    ],
  ])('reads %s', async (_case, html, expected) => {
    expect(authorFromProfileLink(await links(`<p>${html}</p>`), PAGE_URL)).toBe(expected);
  });

  it.each([
    ['a link saying something else', '<a href="/authors/jo-ray">View more posts</a>'],
    ['another site', '<a href="https://social.example.net/profile/jo-ray">Jo Ray</a>'],
    ['a path that is no author page', '<a href="/blog/jo-ray">Jo Ray</a>'],
    ['a sentence', '<a href="/authors/jo-ray-and-friends-of-the-shop">Jo Ray and friends of the shop</a>'],
    ['a malformed address', '<a href="/authors/%E0%A4%A">Jo Ray</a>'],
  ])('reads no one from %s', async (_case, html) => {
    expect(authorFromProfileLink(await links(`<p>${html}</p>`), PAGE_URL)).toBeUndefined();
  });

  it('names the author of an article without a byline, but not of other pages', async () => {
    const article = (name: string, extra = ''): string =>
      chiselArticle('', `<div class="meta"><a href="/authors/jane-doe">${name}</a></div>${extra}`);
    const blog = 'https://www.example.com/blog/chisels';
    expect(await bylineOf(article('Jane Doe'), blog)).toBe('Jane Doe');
    // Read as documentation (a guide's path): no author from a link.
    expect(await bylineOf(article('Jane Doe'), 'https://www.example.com/guides/chisels')).toBeUndefined();
    expect(
      await bylineOf(article('Our team', '<p hidden><a href="/authors/sam-lee">Sam Lee</a></p>'), blog),
    ).toBeUndefined();
  });
});
